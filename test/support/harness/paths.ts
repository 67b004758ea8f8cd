import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Mirrors scripts/lib/common.mjs, which must stay free of dependencies (it runs before `npm ci`).
/** The repository root, whether the harness runs from source or bundled into out/bench. */
export const repoRoot = (() => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'esbuild.mjs'))) return dir;
  }
  return path.resolve(__dirname, '../../..');
})();

/** A VS Code version DocChat is tested on: a code-server release and the Node that runs it. */
export interface VSCodeTarget {
  name: string;
  codeServer: string;
  vscode: string;
  node: string;
}

/** scripts/lib/vscode-versions.json: `newest` (the main target) and `oldest` (engines.vscode). */
export const VSCODE_TARGETS = JSON.parse(readFileSync(path.join(repoRoot, 'scripts/lib/vscode-versions.json'), 'utf8')) as Record<
  string,
  Omit<VSCodeTarget, 'name'>
>;

/** The target named by `$DOCCHAT_VSCODE` (`newest` when unset). */
export function vscodeTarget(name = process.env.DOCCHAT_VSCODE || 'newest'): VSCodeTarget {
  const target = VSCODE_TARGETS[name];
  if (!target) throw new Error(`Unknown VS Code target "${name}" (DOCCHAT_VSCODE); use one of: ${Object.keys(VSCODE_TARGETS).join(', ')}`);
  return { name, ...target };
}
export const CHROMIUM_PATH = process.env.DOCCHAT_CHROMIUM ?? '/usr/bin/chromium';

/** test-results/ for the newest VS Code, test-results/vscode-<target>/ for another one. */
export const testResultsRoot = path.join(
  repoRoot,
  'test-results',
  ...(vscodeTarget().name === 'newest' ? [] : [`vscode-${vscodeTarget().name}`]),
);

export function cacheDir(): string {
  if (process.env.DOCCHAT_CACHE) return path.resolve(process.env.DOCCHAT_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'docchat');
}

export function codeServerDir(target = vscodeTarget()): string {
  return path.join(cacheDir(), `code-server-${target.codeServer}`);
}

export function codeServerEntry(target = vscodeTarget()): string {
  return path.join(codeServerDir(target), 'out/node/entry.js');
}

/** The Node that runs the target's code-server, installed next to it. */
export function codeServerNode(target = vscodeTarget()): string {
  return path.join(cacheDir(), `node-${target.node}`, 'bin/node');
}

/** Folder-safe name for a test, used for its screenshot folder. */
export function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80) || 'test'
  );
}
