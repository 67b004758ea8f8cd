/** The "DocChat" log output channel, and the component-tagged `Logger`s that write to it. */
import * as vscode from 'vscode';
import type { Logger } from '../common/log';

export function createOutputChannel(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('DocChat', { log: true });
}

/**
 * Writes one line. A channel VS Code has already closed throws ("Channel has been closed"): as a
 * window closes, VS Code 1.139 disposes it while `deactivate` still stops the backend and logs.
 * That line has nowhere to go, and logging must never make the work it reports fail.
 */
function write(line: () => void): void {
  try {
    line();
  } catch {
    // The channel is closed.
  }
}

export function createLogger(channel: vscode.LogOutputChannel, component: string): Logger {
  const tag = (message: string) => `[${component}] ${message}`;
  const logger: Logger = {
    trace: (m) => write(() => channel.trace(tag(m))),
    debug: (m) => write(() => channel.debug(tag(m))),
    info: (m) => write(() => channel.info(tag(m))),
    warn: (m) => write(() => channel.warn(tag(m))),
    error: (m) => write(() => channel.error(typeof m === 'string' ? tag(m) : tag(m.stack ?? m.message))),
    child: (name) => createLogger(channel, name),
    sink: () => (level, message) => logger[level](message),
  };
  return logger;
}
