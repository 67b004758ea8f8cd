import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { ViewIds } from '../../../../src/common/constants';
import { ChatSourceOpener } from '../../../../src/features/chat/sourceOpener';
import type { PassageDocuments } from '../../../../src/features/search';
import { eventually } from '../documents/fixtures';

// A cited source opens next to the DocChat chat, never in the chat's own editor group (which it
// would hide): in real VS Code, with a webview of the chat's view type, found by its tab alone.

describe('Chat sources open beside the chat (extension host)', () => {
  let dir: string;
  /** One file a test: a source that did not open cannot pass for one opened before. */
  let files: vscode.Uri[];
  let opener: ChatSourceOpener;
  let chat: vscode.WebviewPanel | undefined;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-columns-'));
    files = ['retention.md', 'archive.md', 'deletion.md'].map((name) => {
      const target = path.join(dir, name);
      writeFileSync(target, '# Retention\n\nInvoices are kept for ten years.\n');
      return vscode.Uri.file(target);
    });
    opener = new ChatSourceOpener({} as PassageDocuments);
  });
  after(async () => {
    opener.dispose();
    chat?.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(dir, { recursive: true, force: true });
  });

  /** The tab groups as the extension host sees them (for a failure's message). */
  const groups = () =>
    JSON.stringify(
      vscode.window.tabGroups.all.map((g) => ({
        column: g.viewColumn,
        active: g.isActive,
        tab: g.activeTab?.input instanceof vscode.TabInputWebview ? g.activeTab.input.viewType : g.activeTab?.label,
      })),
    );

  /** The workbench tells the extension host of tab changes after they happened: waits for the chat's tab to be the active one. */
  async function chatTabShown(): Promise<void> {
    const shown = () =>
      vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputWebview &&
      vscode.window.tabGroups.activeTabGroup.activeTab.label === 'DocChat';
    if (shown()) return;
    await new Promise<void>((resolve) => {
      // A new tab changes the tabs; focusing the chat's group again changes only the groups.
      const listeners = [vscode.window.tabGroups.onDidChangeTabs, vscode.window.tabGroups.onDidChangeTabGroups].map((event) =>
        event(() => {
          if (!shown()) return;
          listeners.forEach((l) => l.dispose());
          resolve();
        }),
      );
    });
  }

  /**
   * The editors showing the source, once it is on screen. Not `activeTextEditor`: a webview takes the
   * focus after `reveal` when its frame is ready, which on a busy machine can come after the source
   * opened; where the source is shown is what the user sees (and a source opened over the chat would
   * show twice, or hide the chat).
   */
  const sourceEditors = (file: vscode.Uri) =>
    eventually(() => {
      const shown = vscode.window.visibleTextEditors.filter((e) => e.document.uri.toString() === file.toString());
      return shown.length > 0 ? shown : undefined;
    }, `the source on screen; groups: ${groups()}`);

  const selection = (file: vscode.Uri) => ({
    kind: 'selection' as const,
    number: 1,
    uri: file.toString(),
    label: path.basename(file.fsPath),
    content: 'Invoices are kept for ten years.',
    range: { startLine: 2, startCharacter: 0, endLine: 2, endCharacter: 32 },
  });

  it('opens beside the chat when the chat is alone, keeping it visible, with the cited text selected', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    chat = vscode.window.createWebviewPanel(ViewIds.chat, 'DocChat', vscode.ViewColumn.One, {});
    await chatTabShown();
    const before = groups();
    await opener.open(selection(files[0]));
    const [editor, ...more] = await sourceEditors(files[0]);
    assert.deepEqual(more, [], 'shown once');
    assert.notEqual(editor.viewColumn, vscode.ViewColumn.One, `not in the chat group; groups after: ${groups()}, before: ${before}`);
    assert.equal(chat.visible, true, 'the chat stays in view');
    assert.equal(editor.document.getText(editor.selection), 'Invoices are kept for ten years.');
  });

  it("opens a second source in the first one's group right after a click into the chat, not over the chat", async () => {
    // A click into the chat's webview makes the chat's group the active one in the workbench; the
    // extension host hears of it only later. `reveal` does the same: the extension host still
    // believes the first source's group (Two) active when the second source is opened.
    const before = groups();
    chat!.reveal(vscode.ViewColumn.One);
    await opener.open(selection(files[1]));
    const columns = (await sourceEditors(files[1])).map((e) => e.viewColumn);
    assert.deepEqual(columns, [vscode.ViewColumn.Two], `in the first source's group only; groups after: ${groups()}, before: ${before}`);
    assert.equal(vscode.window.tabGroups.all.length, 2, 'no third group');
    await eventually(() => chat!.visible || undefined, 'the chat in view');
  });

  it('opens in the other group when there is one', async () => {
    // The chat (in group 1) is focused again; group 2 holds the editor opened before.
    chat!.reveal(vscode.ViewColumn.One);
    await chatTabShown();
    const before = groups();
    await opener.open(selection(files[2]));
    const columns = (await sourceEditors(files[2])).map((e) => e.viewColumn);
    assert.deepEqual(columns, [vscode.ViewColumn.Two], `in the other group only; groups after: ${groups()}, before: ${before}`);
    assert.equal(vscode.window.tabGroups.all.length, 2, 'no third group');
    assert.equal(chat!.visible, true);
  });
});
