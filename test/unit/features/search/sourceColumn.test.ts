/**
 * Sources (a cited passage or selection, a search result) never open in the editor group that
 * shows the DocChat chat, which they would hide: they go to the group last edited in, another
 * group, or a new group beside the chat. Here with a fake `vscode` whose tab groups the test sets.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { fakeVscodeApi, FakeEventEmitter, useFakeVscode, type FakeVscodeScope } from '../../../support/fakeVscode';

type SourceColumnModule = typeof import('../../../../src/features/search/sourceColumn');
const BESIDE_COLUMN = -2;

class TabInputWebview {
  constructor(readonly viewType: string) {}
}
class TabInputText {
  constructor(readonly uri: unknown) {}
}

type Group = { viewColumn: number; isActive: boolean; activeTab?: { input: unknown } };
const chatTab = () => ({ input: new TabInputWebview('mainThreadWebview-docchat.chat') });
const textTab = () => ({ input: new TabInputText('file:///w/a.md') });

describe('where a source opens', () => {
  let groups: Group[] = [];
  const shown: Array<{ uri: string; options: Record<string, unknown> }> = [];
  let scope: FakeVscodeScope;
  let opener: import('../../../../src/features/chat/sourceOpener').ChatSourceOpener;
  let chooseSourceColumn: SourceColumnModule['chooseSourceColumn'];

  before(() => {
    const fake = fakeVscodeApi({
      EventEmitter: FakeEventEmitter,
      ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
      TabInputWebview,
      TabInputText,
      ThemeIcon: class {},
      ThemeColor: class {},
      CancellationError: class extends Error {},
      QuickPickItemKind: { Separator: -1, Default: 0 },
      TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
      env: { language: 'en' },
      Range: class {
        constructor(...args: number[]) {
          Object.assign(this, { args });
        }
      },
      Uri: { parse: (value: string) => ({ toString: () => value, scheme: 'file' }) },
      window: {
        activeTextEditor: undefined,
        visibleTextEditors: [],
        onDidChangeActiveTextEditor: new FakeEventEmitter<unknown>().event,
        tabGroups: {
          get all() {
            return groups;
          },
        },
        showTextDocument: async (document: { uri: string }, options: Record<string, unknown>) => {
          shown.push({ uri: document.uri, options });
          return {};
        },
      },
      workspace: {
        fs: { isWritableFileSystem: () => true },
        openTextDocument: async (uri: { toString(): string }) => ({ uri: uri.toString() }),
      },
      commands: { executeCommand: async () => undefined },
    });
    scope = useFakeVscode(fake);
    ({ chooseSourceColumn } = scope.load<SourceColumnModule>(path.resolve(__dirname, '../../../../src/features/search/sourceColumn.ts')));
    const { ChatSourceOpener } = scope.load<typeof import('../../../../src/features/chat/sourceOpener')>(
      path.resolve(__dirname, '../../../../src/features/chat/sourceOpener.ts'),
    );
    opener = new ChatSourceOpener({} as never);
  });
  after(() => {
    opener.dispose();
    scope.dispose();
  });

  it('opens in the active group when no group shows the chat', () => {
    assert.equal(chooseSourceColumn([{ viewColumn: 1, isActive: true, showsChat: false }]), undefined);
    assert.equal(chooseSourceColumn([]), undefined);
  });

  it('names the group while the chat is on screen, even when the group believed active is another', () => {
    // The extension host learns late that a click into the chat made its group the active one:
    // "the active group" could then be the chat's own.
    assert.equal(
      chooseSourceColumn([
        { viewColumn: 1, isActive: true, showsChat: false },
        { viewColumn: 2, isActive: false, showsChat: true },
      ]),
      1,
    );
    assert.equal(
      chooseSourceColumn([
        { viewColumn: 1, isActive: false, showsChat: true },
        { viewColumn: 2, isActive: true, showsChat: false },
      ]),
      2,
    );
  });

  it("reuses the previous source's group while it exists and is not the chat's", () => {
    const groups = [
      { viewColumn: 1, isActive: false, showsChat: false },
      { viewColumn: 2, isActive: true, showsChat: true },
      { viewColumn: 3, isActive: false, showsChat: false },
    ];
    assert.equal(chooseSourceColumn(groups, 1, 3), 3, 'before the group last edited in');
    assert.equal(chooseSourceColumn(groups, 1, 2), 1, "never the chat's group, though a source opened there once");
    assert.equal(chooseSourceColumn(groups, undefined, 4), 1, 'a group that is gone: another');
  });

  it('opens beside the chat when the chat is the only group', () => {
    assert.equal(chooseSourceColumn([{ viewColumn: 1, isActive: true, showsChat: true }]), BESIDE_COLUMN);
  });

  it('prefers the group last edited in, else the first group that is not the chat', () => {
    const groups = [
      { viewColumn: 1, isActive: false, showsChat: false },
      { viewColumn: 2, isActive: true, showsChat: true },
      { viewColumn: 3, isActive: false, showsChat: false },
    ];
    assert.equal(chooseSourceColumn(groups, 3), 3);
    assert.equal(chooseSourceColumn(groups), 1);
    // The group last edited in is the chat's own: another one.
    assert.equal(chooseSourceColumn(groups, 2), 1);
  });

  describe('through VS Code', () => {
    const selection = {
      kind: 'selection' as const,
      number: 1,
      uri: 'file:///w/notes.md',
      label: 'notes.md',
      content: 'kept ten years',
      range: { startLine: 3, startCharacter: 0, endLine: 3, endCharacter: 14 },
    };

    it('opens a cited selection beside the chat when the chat is alone in the first group, with the quote selected', async () => {
      groups = [{ viewColumn: 1, isActive: true, activeTab: chatTab() }];
      shown.length = 0;
      await opener.open(selection, 1);
      assert.equal(shown.length, 1);
      assert.equal(shown[0]!.options.viewColumn, -2, 'not in the chat group, which it would hide');
      assert.ok(shown[0]!.options.selection, 'the cited range is selected');
    });

    it("opens it in the other group when there is one, found by the chat's tab alone", async () => {
      groups = [
        { viewColumn: 1, isActive: false, activeTab: textTab() },
        { viewColumn: 2, isActive: true, activeTab: chatTab() },
      ];
      shown.length = 0;
      await opener.open(selection);
      assert.equal(shown[0]!.options.viewColumn, 1);
    });
  });
});
