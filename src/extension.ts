import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';
import { Commands } from './common/constants';
import { createLogger, createOutputChannel } from './services/outputLog';
import * as agents from './features/agents';
import * as auth from './features/auth';
import * as chat from './features/chat';
import * as metadata from './features/metadata';
import * as models from './features/models';
import * as nativeChat from './features/nativeChat';
import * as skills from './features/skills';
import * as search from './features/search';
import * as stores from './features/stores';
import * as sync from './features/sync';
import * as walkthrough from './features/walkthrough';
import { ExtensionServices, type ConnectionState } from './services';

let services: ExtensionServices | undefined;

/**
 * What DocChat exports to other extensions (and its extension-host tests): the connection state
 * only. Clients and secrets are deliberately not exposed.
 */
export interface DocChatApi {
  connectionState(): ConnectionState;
  /**
   * Connects DocChat (in Local mode: starts or joins the local backend) if it has not been used in
   * this window yet, and resolves once that first attempt finished. Activation alone connects nothing.
   */
  whenReady(): Promise<void>;
  onDidChangeConnection: vscode.Event<ConnectionState>;
}

export function activate(context: vscode.ExtensionContext): DocChatApi {
  // Modules without a `vscode` import word their sentences with `@vscode/l10n`: hand it VS Code's bundle.
  if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });
  const channel = createOutputChannel();
  context.subscriptions.push(channel);
  const log = createLogger(channel, 'extension');
  context.subscriptions.push(vscode.commands.registerCommand(Commands.showOutput, () => channel.show()));

  services = new ExtensionServices(context, log);
  context.subscriptions.push(services);
  auth.register(context, services);
  const storesTree = stores.register(context, services);
  metadata.register(context, services);
  const passages = search.register(context, services);
  const chatStores = chat.register(context, services, passages);
  nativeChat.register(context, services, passages, chatStores);
  skills.register(context, services);
  sync.register(context, services, storesTree, passages);
  models.register(context, services);
  walkthrough.register(context, services);
  agents.register(context, services);

  // Nothing connects here: the local backend starts when DocChat is first used in this window
  // (its view shown, one of its commands, the chat panel, @docchat, a folder sync to resume).
  const connection = services.connection;
  log.info(`DocChat ${context.extension.packageJSON.version} activated`);
  return {
    connectionState: () => connection.state,
    whenReady: () => connection.use('another extension asked for DocChat'),
    onDidChangeConnection: connection.onDidChange,
  };
}

/** Lets the local backend finish its writes and close its port before the host exits. */
export async function deactivate(): Promise<void> {
  await services?.localBackend.stop();
  services = undefined;
}
