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
  let file: vscode.Uri;
  let opener: ChatSourceOpener;
  let chat: vscode.WebviewPanel | undefined;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-columns-'));
    const target = path.join(dir, 'retention.md');
    writeFileSync(target, '# Retention\n\nInvoices are kept for ten years.\n');
    file = vscode.Uri.file(target);
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

  const selection = () => ({
    kind: 'selection' as const,
    number: 1,
    uri: file.toString(),
    label: 'retention.md',
    content: 'Invoices are kept for ten years.',
    range: { startLine: 2, startCharacter: 0, endLine: 2, endCharacter: 32 },
  });

  it('opens beside the chat when the chat is alone, keeping it visible, with the cited text selected', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    chat = vscode.window.createWebviewPanel(ViewIds.chat, 'DocChat', vscode.ViewColumn.One, {});
    await chatTabShown();
    const before = groups();
    await opener.open(selection());
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.toString(), file.toString());
    assert.notEqual(editor?.viewColumn, vscode.ViewColumn.One, `not in the chat group; groups before: ${before}, after: ${groups()}`);
    assert.equal(chat.visible, true, 'the chat stays in view');
    assert.equal(editor?.document.getText(editor.selection), 'Invoices are kept for ten years.');
  });

  it("opens a second source in the first one's group right after a click into the chat, not over the chat", async () => {
    // A click into the chat's webview makes the chat's group the active one in the workbench; the
    // extension host hears of it only later. `reveal` does the same: the extension host still
    // believes the first source's group (Two) active when the second source is opened.
    const before = groups();
    chat!.reveal(vscode.ViewColumn.One);
    await opener.open(selection());
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.toString(), file.toString());
    assert.equal(editor?.viewColumn, vscode.ViewColumn.Two, `in the first source's group; groups before: ${before}, after: ${groups()}`);
    assert.equal(vscode.window.tabGroups.all.length, 2, 'no third group');
    await eventually(() => chat!.visible || undefined, 'the chat in view');
  });

  it('opens in the other group when there is one', async () => {
    // The chat (in group 1) is focused again; group 2 holds the editor opened before.
    chat!.reveal(vscode.ViewColumn.One);
    await chatTabShown();
    const before = groups();
    await opener.open(selection());
    assert.equal(vscode.window.activeTextEditor?.viewColumn, vscode.ViewColumn.Two, `groups before: ${before}, after: ${groups()}`);
    assert.equal(vscode.window.tabGroups.all.length, 2, 'no third group');
    assert.equal(chat!.visible, true);
  });
});
