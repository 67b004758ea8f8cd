import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Mirrors scripts/lib/common.mjs, which must stay free of dependencies (it runs before `npm ci`).
export const CODE_SERVER_VERSION = '4.100.3';
/** The repository root, whether the harness runs from source or bundled into out/bench. */
export const repoRoot = (() => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'esbuild.mjs'))) return dir;
  }
  return path.resolve(__dirname, '../../..');
})();
export const testResultsRoot = path.join(repoRoot, 'test-results');
export const CHROMIUM_PATH = process.env.DOCCHAT_CHROMIUM ?? '/usr/bin/chromium';

export function cacheDir(): string {
  if (process.env.DOCCHAT_CACHE) return path.resolve(process.env.DOCCHAT_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'docchat');
}

export function codeServerDir(): string {
  return path.join(cacheDir(), `code-server-${CODE_SERVER_VERSION}`);
}

export function codeServerEntry(): string {
  return path.join(codeServerDir(), 'out/node/entry.js');
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
