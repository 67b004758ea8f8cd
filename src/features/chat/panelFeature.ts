import type * as vscode from 'vscode';
import { ContextKeys } from '../../common/constants';
import type { Services } from '../../services';
import type { Logger } from '../../common/log';
import { completeWalkthroughStep } from '../walkthrough';
import { ChatController } from './chatController';
import type { SourceOpener } from './sourceOpener';

/**
 * The chat panel's controller, with its session, answer generation and webview: loaded at the
 * chat's first use (dist/first-use.js), not when DocChat activates. The commands that use it are
 * registered at activation (./index.ts).
 */
export function createChatController(
  context: vscode.ExtensionContext,
  services: Services,
  opener: SourceOpener,
  log: Logger,
): ChatController {
  const controller = new ChatController(context, services, opener, log);
  context.subscriptions.push(
    controller,
    // "Ask a question" in the walkthrough: an answer that came from a model and was not stopped.
    controller.onDidAnswer(({ end }) => {
      if (end.type === 'done' && !end.result.stopped && !end.result.nextSteps?.length) completeWalkthroughStep(ContextKeys.answered);
    }),
  );
  return controller;
}
