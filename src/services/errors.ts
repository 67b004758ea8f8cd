import * as vscode from 'vscode';
import { DocChatError, errorSentence, isAbortError, RateLimitError } from '../api/http/errors';
import { Commands } from '../common/constants';
import type { Logger } from '../common/log';
import type { RateLimitMonitor } from './rateLimits';

export interface ReportOptions {
  /** Which service's credential to offer when the error is an authentication failure. */
  readonly service?: 'documents' | 'gateway';
  /** Offered as "Retry" when given. */
  readonly retry?: () => unknown;
}

/** True for errors that mean "the user or DocChat cancelled", which are never shown. */
export function isCancellation(error: unknown): boolean {
  return isAbortError(error) || error instanceof vscode.CancellationError;
}

/** One readable sentence for an error, without secrets (the clients never put them in messages). */
export const describeError = errorSentence;

/**
 * Shows each error to the user once, with a way forward, and logs the details. The same message
 * is not shown again while its notification is still open (polling cannot pile them up).
 */
export class ErrorReporter {
  private readonly open = new Set<string>();

  constructor(
    private readonly log: Logger,
    private readonly rateLimits: RateLimitMonitor,
    /** Told when a request could not reach its server, so Local mode can check its backend (`ConnectionService.unreachable`). */
    private readonly unreachable: () => void,
  ) {}

  /**
   * `failure` is the whole sentence that says what did not happen, already translated, e.g.
   * `vscode.l10n.t('DocChat: could not refresh the vector stores.')`; the reason follows it.
   */
  report(error: unknown, failure: string, options: ReportOptions = {}): void {
    if (isCancellation(error)) {
      this.log.debug(`${failure} (cancelled)`);
      return;
    }
    const requestId = error instanceof DocChatError && error.requestId ? ` (request ${error.requestId})` : '';
    this.log.error(`${failure}${requestId} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (error instanceof RateLimitError) {
      this.rateLimits.report(failure, error.retryAfterMs ?? 0);
    }
    if (error instanceof DocChatError && error.kind === 'network') this.unreachable();
    // Two whole sentences: what failed, then why.
    const message = `${failure} ${describeError(error)}`;
    if (this.open.has(message)) {
      return;
    }
    const OPEN_OUTPUT = vscode.l10n.t('Open Output');
    const SET_TOKEN = vscode.l10n.t('Set Token');
    const SET_API_KEY = vscode.l10n.t('Set API Key');
    const RETRY = vscode.l10n.t('Retry');
    const actions: string[] = [];
    const isAuth = error instanceof DocChatError && error.kind === 'auth';
    if (isAuth) {
      actions.push(options.service === 'gateway' ? SET_API_KEY : SET_TOKEN);
    }
    if (options.retry && !isAuth) {
      actions.push(RETRY);
    }
    actions.push(OPEN_OUTPUT);
    this.open.add(message);
    void vscode.window.showErrorMessage(message, ...actions).then((choice) => {
      this.open.delete(message);
      switch (choice) {
        case SET_TOKEN:
          return vscode.commands.executeCommand(Commands.setDocumentsToken);
        case SET_API_KEY:
          return vscode.commands.executeCommand(Commands.setGatewayApiKey);
        case RETRY:
          return options.retry?.();
        case OPEN_OUTPUT:
          return vscode.commands.executeCommand(Commands.showOutput);
        default:
          return undefined;
      }
    });
  }

  /** A plain message (no exception) with the Output action. */
  warn(message: string): void {
    this.log.warn(message);
    if (this.open.has(message)) {
      return;
    }
    this.open.add(message);
    const OPEN_OUTPUT = vscode.l10n.t('Open Output');
    void vscode.window.showWarningMessage(message, OPEN_OUTPUT).then((choice) => {
      this.open.delete(message);
      if (choice === OPEN_OUTPUT) {
        void vscode.commands.executeCommand(Commands.showOutput);
      }
    });
  }
}
