import * as vscode from 'vscode';
import { Commands, ContextKeys, ViewIds, WALKTHROUGH_ID, StateKeys } from '../../common/constants';
import type { Services } from '../../services';
import type { ConfigService } from '../../services/config';
import type { ConnectionState } from '../../services/connection';
import { registerCommand } from '../../services/commands';

/** globalState: the walkthrough was opened once (the first time the view was shown after installing). */
const SHOWN_KEY = StateKeys.walkthroughShown;

/** The walkthrough's steps (package.json `contributes.walkthroughs`), by the context key that marks each done. */
const STEPS = {
  [ContextKeys.signedIn]: 'connect',
  [ContextKeys.storeCreated]: 'createStore',
  [ContextKeys.fileAttached]: 'attach',
  [ContextKeys.answered]: 'ask',
  [ContextKeys.participantAnswered]: 'participant',
} as const;
type StepKey = Exclude<keyof typeof STEPS, typeof ContextKeys.signedIn>;
type StepId = (typeof STEPS)[keyof typeof STEPS] | 'search';
const done = new Set<StepId>();

/**
 * Records a Getting Started step as done in VS Code's walkthrough progress (kept in the profile),
 * so the step shows checked whenever the walkthrough opens. The steps' `onContext:`/`onCommand:`
 * completion events alone are not enough: VS Code's walkthrough service starts the first time a
 * walkthrough is shown, and an event that happened before that (a context key already true when
 * it registers the walkthrough, a command already run) never checks the step in that window.
 */
export function markWalkthroughStepDone(step: StepId): void {
  if (done.has(step)) {
    return;
  }
  done.add(step);
  // The step id is `<walkthrough id>#<step id>`. Without the command (another editor), the
  // completion events still check the steps done after the walkthrough is shown.
  Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', `${WALKTHROUGH_ID}#${step}`)).catch(() => undefined);
}

/** Marks a Getting Started step as done: sets the context key its `onContext:` event waits for and records it done. */
export function completeWalkthroughStep(key: StepKey): void {
  if (!done.has(STEPS[key])) {
    void vscode.commands.executeCommand('setContext', key, true);
    markWalkthroughStepDone(STEPS[key]);
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
export function offerWalkthrough(context: vscode.ExtensionContext, config: ConfigService): void {
  if (context.globalState.get<boolean>(SHOWN_KEY) || !config.walkthroughsOpenOnInstall) {
    return;
  }
  if (chatShown()) {
    return;
  }
  void context.globalState.update(SHOWN_KEY, true).then(() => openWalkthrough());
}

/** The "connect" step is done once DocChat serves requests (Local mode, or signed in to the services). */
function markConnectDone(state: ConnectionState): void {
  if (state.kind === 'local' || state.kind === 'remote') {
    markWalkthroughStepDone(STEPS[ContextKeys.signedIn]);
  }
}

/** The Getting Started walkthrough: opened once when DocChat's view is first shown, from the view's menu any time. */
export function register(context: vscode.ExtensionContext, services: Services): void {
  markConnectDone(services.connection.state);
  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.openWalkthrough,
      vscode.l10n.t('DocChat: could not open the walkthrough.'),
      () => openWalkthrough(),
      { retry: false, waitForConnection: false },
    ),
    services.connection.onDidChange(markConnectDone),
    services.documentsEvents.onDidChangeStore(() => completeWalkthroughStep(ContextKeys.storeCreated)),
    services.documentsEvents.onDidChangeStoreFile(() => completeWalkthroughStep(ContextKeys.fileAttached)),
  );
}
