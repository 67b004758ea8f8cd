import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findFiles(full, name));
    else if (entry.name.toLowerCase() === name.toLowerCase()) found.push(full);
  }
  return found;
}

/**
 * Text of a log output channel (`createOutputChannel(name, { log: true })`) as VS Code writes it
 * to `<user-data>/logs/<session>/exthost*\/<publisher.name>/<name>.log`. All sessions, oldest first.
 */
export function readOutputChannel(userDataDir: string, channel = 'DocChat'): string {
  return findFiles(path.join(userDataDir, 'logs'), `${channel}.log`)
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((file) => readFileSync(file, 'utf8'))
    .join('');
}

/** The extension host's own log (activation errors of every extension end up here). */
export function readExtensionHostLog(userDataDir: string): string {
  return findFiles(path.join(userDataDir, 'logs'), 'remoteexthost.log')
    .map((file) => readFileSync(file, 'utf8'))
    .join('');
}

/**
 * Lines of the extension host log that report an error of the given extension (e.g. a failed
 * activation, or VS Code refusing a global the extension's code reached for): the error line names
 * the extension, or its next line or stack does.
 */
export function extensionErrors(userDataDir: string, extensionId = 'docchat.docchat'): string[] {
  const lines = readExtensionHostLog(userDataDir).split('\n');
  const errors: string[] = [];
  let next = 0; // first line not yet taken, so overlapping reports are not repeated
  lines.forEach((line, i) => {
    if (!/\[error\]/i.test(line)) return;
    let end = i + 2;
    while (end < lines.length && /^\s+at /.test(lines[end])) end++;
    if (lines.slice(i, end).some((l) => l.includes(extensionId))) {
      errors.push(...lines.slice(Math.max(i, next), Math.max(end, i + 3)));
      next = Math.max(next, end, i + 3);
    }
  });
  return errors;
}
