import * as vscode from 'vscode';
import { Commands } from '../common/constants';
import type { Logger } from '../common/log';
import type { LocalEndpoint } from './localBackend';

/**
 * Says what happened to Local mode's backend, once and in the user's words: a restart is one
 * sentence in the output (requests go on by themselves); the end of the restarts (a crash loop, or
 * a start that failed) is one error with Show Output, where the details are.
 */
export function announceLocalBackendChange(change: LocalEndpoint | Error, log: Pick<Logger, 'warn'>): void {
  if (!(change instanceof Error)) {
    log.warn(vscode.l10n.t('The local backend stopped and was started again; DocChat goes on at {0}.', change.url));
    return;
  }
  const showOutput = vscode.l10n.t('Show Output');
  void vscode.window.showErrorMessage(vscode.l10n.t('DocChat: {0}', change.message), showOutput).then((choice) => {
    if (choice === showOutput) void vscode.commands.executeCommand(Commands.showOutput);
  });
}
