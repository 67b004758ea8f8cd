import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ViewIds, WALKTHROUGH_ID } from '../../../../src/common/constants';
import { EXTENSION_ID, eventually } from '../documents/fixtures';

// The walkthrough's "Ask with citations" step says "Open Chat opens the DocChat chat beside the
// editor": from the walkthrough, the chat opens in a group of its own next to it, and the
// walkthrough stays in view.

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

  it('opens the chat beside the walkthrough, which stays in view', async () => {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
    // The walkthrough is an editor of its own kind (not a text editor): the only tab, in the only group.
    const walkthrough = await eventually(() => {
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
      return tabs.length === 1 && !isChat(tabs[0]) ? tabs[0] : undefined;
    }, `the walkthrough's tab; groups: ${groups()}`);
    assert.equal(vscode.window.activeTextEditor, undefined, 'no text editor is active');

    // The step's "Open Chat" link runs this command.
    await vscode.commands.executeCommand('docchat.chat.open');
    const chatGroup = await eventually(
      () => vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => isChat(t))),
      'the chat panel',
    ).catch((error: Error) => assert.fail(`${error.message}; groups: ${groups()}`));
    const walkthroughGroup = walkthrough.group;
    assert.notEqual(chatGroup.viewColumn, walkthroughGroup.viewColumn, `the chat has a group of its own; groups: ${groups()}`);
    assert.ok(chatGroup.viewColumn > walkthroughGroup.viewColumn, `beside it, to the right; groups: ${groups()}`);
    const shownInItsGroup = vscode.window.tabGroups.all.find((g) => g.viewColumn === walkthroughGroup.viewColumn)?.activeTab;
    assert.equal(shownInItsGroup?.label, walkthrough.label, `the walkthrough stays in view; groups: ${groups()}`);
  });
});
