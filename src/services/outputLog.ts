/** The "DocChat" log output channel, and the component-tagged `Logger`s that write to it. */
import * as vscode from 'vscode';
import type { Logger } from '../common/log';

export function createOutputChannel(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('DocChat', { log: true });
}

export function createLogger(channel: vscode.LogOutputChannel, component: string): Logger {
  const tag = (message: string) => `[${component}] ${message}`;
  const logger: Logger = {
    trace: (m) => channel.trace(tag(m)),
    debug: (m) => channel.debug(tag(m)),
    info: (m) => channel.info(tag(m)),
    warn: (m) => channel.warn(tag(m)),
    error: (m) => channel.error(typeof m === 'string' ? tag(m) : tag(m.stack ?? m.message)),
    child: (name) => createLogger(channel, name),
    sink: () => (level, message) => logger[level](message),
  };
  return logger;
}
