import * as vscode from 'vscode';
import { Commands } from './common/constants';
import { createLogger, createOutputChannel } from './common/log';

export function activate(context: vscode.ExtensionContext): void {
  const channel = createOutputChannel();
  context.subscriptions.push(channel);
  const log = createLogger(channel, 'extension');
  context.subscriptions.push(vscode.commands.registerCommand(Commands.showOutput, () => channel.show()));
  log.info(`DocChat ${context.extension.packageJSON.version} activated`);
}

export function deactivate(): void {}
