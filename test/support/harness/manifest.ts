import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths';

/** package.json with its `%key%` strings replaced from package.nls.json, as VS Code shows them in English. */
export const manifest = (() => {
  const raw = readFileSync(path.join(repoRoot, 'package.json'), 'utf8');
  const nls = JSON.parse(readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
  return JSON.parse(raw, (_key, value: unknown) => {
    const key = typeof value === 'string' ? /^%([\w.-]+)%$/.exec(value)?.[1] : undefined;
    if (key === undefined) return value;
    if (!(key in nls)) throw new Error(`package.json refers to ${key}, which package.nls.json lacks`);
    return nls[key];
  });
})();

function contributedCommand(id: string): { title: string; category?: string } {
  const command = manifest.contributes.commands.find((c: { command: string }) => c.command === id);
  if (!command) throw new Error(`package.json contributes no command ${id}`);
  return command;
}

/** A command as the Command Palette lists it ("DocChat: Search a Vector Store…"). */
export function commandTitle(id: string): string {
  const command = contributedCommand(id);
  return command.category ? `${command.category}: ${command.title}` : command.title;
}

/** A command as menus list it (its title alone). */
export function commandLabel(id: string): string {
  return contributedCommand(id).title;
}
