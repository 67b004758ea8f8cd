/**
 * How every DocChat command is registered, and the one check that a command has a service to talk
 * to. Modelled on VS Code's git extension (`createCommand`): a command body just throws; the error
 * reaches the user once, with the action that fixes it.
 */
import * as vscode from 'vscode';
import type { DocumentsClient } from '../api/documents/client';
import type { GatewayClient } from '../api/gateway/client';
import type { CommandId } from '../common/constants';
import type { ErrorReporter } from './errors';

export interface CommandOptions {
  /** Whose credentials an authentication error asks for (default: the documents service's token). */
  readonly service?: 'documents' | 'gateway';
  /** Offer Retry, which runs the command again with the same arguments (default: true). */
  readonly retry?: boolean;
  /**
   * Wait for DocChat's connection before the body runs (default: true). A command is a use of
   * DocChat, so it starts the connection either way; the chat panel's commands open the panel at
   * once, which shows the connection as it comes.
   */
  readonly waitForConnection?: boolean;
}

/** How a command reaches DocChat's first use in the window (ExtensionServices sets it). */
let useDocChat: ((reason: string) => Promise<void>) | undefined;

/** Every command registered with `registerCommand` calls `use` before its body. */
export function setCommandUse(use: (reason: string) => Promise<void>): vscode.Disposable {
  useDocChat = use;
  return new vscode.Disposable(() => {
    if (useDocChat === use) useDocChat = undefined;
  });
}

/**
 * Registers `id`. When `body` throws, the user sees `failure` (a whole translated sentence such as
 * `vscode.l10n.t('DocChat: could not sync now.')`) and the reason once, with
 * Set Token / Set API Key for rejected credentials, Retry, and Open Output; a cancellation is silent.
 */
export function registerCommand<A extends unknown[]>(
  errors: ErrorReporter,
  id: CommandId,
  failure: string,
  body: (...args: A) => unknown,
  options: CommandOptions = {},
): vscode.Disposable {
  const run = async (...args: A): Promise<void> => {
    try {
      const connected = useDocChat?.(`the command ${id}`);
      if (options.waitForConnection !== false) await connected;
      await body(...args);
    } catch (error) {
      errors.report(error, failure, { service: options.service, retry: options.retry === false ? undefined : () => run(...args) });
    }
  };
  return vscode.commands.registerCommand(id, run);
}

/** Thrown when a command needs a service DocChat has no connection to. */
export class NotConnectedError extends Error {
  constructor(readonly service: 'documents' | 'gateway') {
    super(
      service === 'documents'
        ? vscode.l10n.t('DocChat is not connected to a documents service: set a token, or leave the Documents URL empty to use Local mode.')
        : vscode.l10n.t(
            'DocChat is not connected to a language-model gateway: set an API key, or leave the Gateway URL empty to use Local mode.',
          ),
    );
    this.name = 'NotConnectedError';
  }
}

/** The documents client, or the one "not connected" error. */
export function requireDocuments(connection: { readonly documents: DocumentsClient | undefined }): DocumentsClient {
  const client = connection.documents;
  if (!client) throw new NotConnectedError('documents');
  return client;
}

/** The gateway client, or the one "not connected" error. */
export function requireGateway(connection: { readonly gateway: GatewayClient | undefined }): GatewayClient {
  const client = connection.gateway;
  if (!client) throw new NotConnectedError('gateway');
  return client;
}
