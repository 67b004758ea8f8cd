import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { ViewIds, WALKTHROUGH_ID } from '../../../../src/common/constants';
import { EXTENSION_ID, eventually } from '../documents/fixtures';

// The walkthrough's "Ask with citations" step says "Open Chat opens the DocChat chat in place of this
// page, which stays open as a tab beside it": the step's link opens the chat in the walkthrough's
// group (not as one more column beside it and VS Code's Chat view); the walkthrough stays a tab there.

const isChat = (tab: vscode.Tab | undefined) => tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(ViewIds.chat);

/** The tab groups, for a failure's message. */
const groups = () =>
  JSON.stringify(
    vscode.window.tabGroups.all.map((g) => ({ column: g.viewColumn, tabs: g.tabs.map((t) => t.label), active: g.activeTab?.label })),
  );

describe('Open Chat from the walkthrough (extension host)', () => {
  before(async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("opens the chat in the walkthrough's group, where the walkthrough stays a tab", async () => {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
    // The walkthrough is an editor of its own kind (not a text editor): the only tab, in the only group.
    const walkthrough = await eventually(() => {
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
      return tabs.length === 1 && !isChat(tabs[0]) ? tabs[0] : undefined;
    }, `the walkthrough's tab; groups: ${groups()}`);
    assert.equal(vscode.window.activeTextEditor, undefined, 'no text editor is active');

    // The step's "Open Chat" link, as the walkthrough runs it: the command with the link's arguments.
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const nls = JSON.parse(readFileSync(path.join(extension.extensionPath, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const link = /\[Open Chat\]\(command:docchat\.chat\.open\?([^)]*)\)/.exec(nls['walkthroughs.steps.ask.description']!);
    assert.ok(link, "the step's Open Chat link");
    const args = JSON.parse(decodeURIComponent(link[1]!)) as unknown[];
    await vscode.commands.executeCommand('docchat.chat.open', ...args);
    const chatGroup = await eventually(
      () => vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => isChat(t))),
      'the chat panel',
    ).catch((error: Error) => assert.fail(`${error.message}; groups: ${groups()}`));
    assert.equal(vscode.window.tabGroups.all.length, 1, `no new column; groups: ${groups()}`);
    assert.equal(chatGroup.viewColumn, walkthrough.group.viewColumn, `the chat is in the walkthrough's group; groups: ${groups()}`);
    assert.ok(
      chatGroup.tabs.some((t) => t.label === walkthrough.label),
      `the walkthrough stays a tab there; groups: ${groups()}`,
    );
    assert.ok(isChat(chatGroup.activeTab), `the chat is shown; groups: ${groups()}`);
  });
});
