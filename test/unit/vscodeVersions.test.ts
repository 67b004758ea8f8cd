/**
 * The VS Code versions DocChat claims and the ones it is tested on agree: `engines.vscode` admits
 * exactly the oldest tested VS Code and nothing older, `@types/vscode` is that version's API (so
 * the compiler rejects an API the oldest version lacks), and each tested code-server release
 * carries the VS Code it is listed with (code-server 4.X.Y ships VS Code 1.X.Y).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { VSCODE_TARGETS, vscodeTarget } from '../support/harness/paths';

const ROOT = path.resolve(__dirname, '../..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

function parse(version: string): number[] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  assert.ok(match, `not a plain version: ${version}`);
  return match.slice(1).map(Number);
}

describe('supported VS Code versions', () => {
  const manifest = readJson('package.json');
  const oldest = vscodeTarget('oldest');
  const newest = vscodeTarget('newest');

  it('engines.vscode is the oldest tested VS Code', () => {
    assert.equal(manifest.engines.vscode, `^${oldest.vscode}`);
  });

  it('@types/vscode is pinned to the oldest tested VS Code, in package.json and in the lockfile', () => {
    assert.equal(manifest.devDependencies['@types/vscode'], `~${oldest.vscode}`);
    const locked = readJson('package-lock.json').packages['node_modules/@types/vscode'];
    assert.equal(locked.version, oldest.vscode);
  });

  it('each tested code-server release is listed with the VS Code it ships, and the newest is not older', () => {
    for (const [name, target] of Object.entries(VSCODE_TARGETS)) {
      const [csMajor, csMinor, csPatch] = parse(target.codeServer);
      const [major, minor, patch] = parse(target.vscode);
      assert.deepEqual(
        [csMajor, csMinor, csPatch, major],
        [4, minor, patch, 1],
        `${name}: code-server ${target.codeServer} ≠ VS Code ${target.vscode}`,
      );
      assert.match(target.node, /^\d+\.\d+\.\d+$/, `${name}: Node version`);
    }
    assert.ok(parse(newest.vscode)[1] >= parse(oldest.vscode)[1], `newest ${newest.vscode} is older than oldest ${oldest.vscode}`);
  });
});
