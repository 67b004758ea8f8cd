import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Commands } from '../../src/common/constants';

// package.json and the typed Commands constants must list exactly the same commands, and every
// command id used in package.json (menus, key bindings, welcome-view links) must be contributed.
// The extension-host suite checks the other half: each one is really registered at run time.

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const contributed: string[] = (manifest.contributes?.commands ?? []).map((c: { command: string }) => c.command);
const declared: string[] = Object.values(Commands);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe('commands: package.json and src/common/constants.ts agree', () => {
  it('contributes each command once', () => {
    const duplicates = contributed.filter((id, i) => contributed.indexOf(id) !== i);
    assert.deepEqual(duplicates, []);
  });

  it('declares every contributed command in Commands', () => {
    const missing = contributed.filter((id) => !declared.includes(id));
    assert.deepEqual(missing, [], `in package.json but not in Commands: ${missing.join(', ')}`);
  });

  it('contributes every command declared in Commands', () => {
    const missing = declared.filter((id) => !contributed.includes(id));
    assert.deepEqual(missing, [], `in Commands but not contributed in package.json: ${missing.join(', ')}`);
  });

  it('uses every Commands constant somewhere in src', () => {
    const sources = sourceFiles(path.join(root, 'src'))
      .filter((file) => !file.endsWith(path.join('common', 'constants.ts')))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const unused = Object.entries(Commands)
      .filter(([key, id]) => !sources.includes(`Commands.${key}`) && !sources.includes(`'${id}'`))
      .map(([key]) => key);
    assert.deepEqual(unused, [], `declared but never registered or used: ${unused.join(', ')}`);
  });

  it('registers no docchat command by a literal id outside Commands', () => {
    const literal = /registerCommand\(\s*['"`](docchat\.[\w.]+)['"`]/g;
    const stray: string[] = [];
    for (const file of sourceFiles(path.join(root, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(literal)) {
        if (!contributed.includes(match[1]!)) stray.push(`${path.relative(root, file)}: ${match[1]}`);
      }
    }
    assert.deepEqual(stray, []);
  });

  it('refers only to contributed commands in menus, key bindings and welcome views', () => {
    const referenced = new Set<string>();
    for (const items of Object.values<Array<{ command?: string }>>(manifest.contributes?.menus ?? {})) {
      for (const item of items) if (item.command?.startsWith('docchat.')) referenced.add(item.command);
    }
    for (const binding of manifest.contributes?.keybindings ?? []) {
      if (binding.command?.startsWith('docchat.')) referenced.add(binding.command);
    }
    for (const welcome of manifest.contributes?.viewsWelcome ?? []) {
      for (const match of String(welcome.contents).matchAll(/command:(docchat\.[\w.]+)/g)) referenced.add(match[1]!);
    }
    const unknown = [...referenced].filter((id) => !contributed.includes(id));
    assert.deepEqual(unknown, [], `referenced but not contributed: ${unknown.join(', ')}`);
  });
});
