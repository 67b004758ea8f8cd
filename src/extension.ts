import * as vscode from 'vscode';
import { Commands } from './common/constants';
import { createLogger, createOutputChannel } from './common/log';
import * as auth from './features/auth';
import * as chat from './features/chat';
import * as metadata from './features/metadata';
import * as modelServer from './features/modelServer';
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
  /** Resolves once the first connection attempt (e.g. starting the local backend) finished. */
  whenReady(): Promise<void>;
  onDidChangeConnection: vscode.Event<ConnectionState>;
}

export function activate(context: vscode.ExtensionContext): DocChatApi {
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
  chat.register(context, services, passages);
  nativeChat.register(context, services, passages);
  skills.register(context, services);
  sync.register(context, services, storesTree, passages);
  modelServer.register(context, services);
  walkthrough.register(context, services);

  // Connecting may start the embedded backend: never on the activation path.
  const connection = services.connection;
  setImmediate(() => void connection.initialize());
  log.info(`DocChat ${context.extension.packageJSON.version} activated`);
  return {
    connectionState: () => connection.state,
    whenReady: () => connection.whenReady(),
    onDidChangeConnection: connection.onDidChange,
  };
}

/** Lets the local backend finish its writes and close its port before the host exits. */
export async function deactivate(): Promise<void> {
  await services?.localBackend.stop();
  services = undefined;
}
