import * as vscode from 'vscode';
import { Commands, ContextKeys, ViewIds, WALKTHROUGH_ID } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';

/** globalState: the walkthrough was opened once (the first time the view was shown after installing). */
const SHOWN_KEY = 'docchat.walkthrough.shown';
/** VS Code's own switch for walkthroughs opening by themselves after an install. */
const OPEN_ON_INSTALL = 'workbench.welcomePage.walkthroughs.openOnInstall';

type StepKey =
  typeof ContextKeys.storeCreated | typeof ContextKeys.fileAttached | typeof ContextKeys.answered | typeof ContextKeys.participantAnswered;
const done = new Set<StepKey>();

/**
 * Marks a Getting Started step as done in this window: the walkthrough's `onContext:` completion
 * event fires and VS Code keeps the step checked from then on.
 */
export function completeWalkthroughStep(key: StepKey): void {
  if (!done.has(key)) {
    done.add(key);
    void vscode.commands.executeCommand('setContext', key, true);
  }
}

function openWalkthrough(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false);
}

/** Whether a DocChat chat panel is the one shown in an editor group (the walkthrough would cover it). */
function chatShown(): boolean {
  return vscode.window.tabGroups.all.some(
    (group) => group.activeTab?.input instanceof vscode.TabInputWebview && group.activeTab.input.viewType.endsWith(ViewIds.chat), // VS Code prefixes the type,
  );
}

/**
 * Opens the walkthrough the first time the user shows DocChat's view after installing it, unless
 * a DocChat chat is on screen: a newcomer who opened the chat first is not covered by it (the
 * view's "Get Started" opens it any time, and it opens by itself once the chat is not shown).
 */
export function offerWalkthrough(context: vscode.ExtensionContext): void {
  if (context.globalState.get<boolean>(SHOWN_KEY) || vscode.workspace.getConfiguration().get<boolean>(OPEN_ON_INSTALL) === false) {
    return;
  }
  if (chatShown()) {
    return;
  }
  void context.globalState.update(SHOWN_KEY, true).then(() => openWalkthrough());
}

/** The Getting Started walkthrough: opened once when DocChat's view is first shown, from the view's menu any time. */
export function register(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.openWalkthrough,
      vscode.l10n.t('DocChat: could not open the walkthrough.'),
      () => openWalkthrough(),
      { retry: false, waitForConnection: false },
    ),
    services.documentsEvents.onDidChangeStore(() => completeWalkthroughStep(ContextKeys.storeCreated)),
    services.documentsEvents.onDidChangeStoreFile(() => completeWalkthroughStep(ContextKeys.fileAttached)),
  );
}
