import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, run } from './common.mjs';

/** 'missing' (no node_modules), 'stale' (a declared package or the lockfile is newer) or 'ok'. */
export function npmPackagesState() {
  if (!existsSync(path.join(repoRoot, 'node_modules'))) return 'missing';
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const declared = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
  if (declared.some((name) => !existsSync(path.join(repoRoot, 'node_modules', name, 'package.json')))) return 'stale';
  const lock = path.join(repoRoot, 'package-lock.json');
  const installed = path.join(repoRoot, 'node_modules/.package-lock.json');
  if (existsSync(lock) && (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs + 1000)) {
    return 'stale';
  }
  return 'ok';
}

/**
 * Installs the npm packages when needed: `npm ci` into a missing node_modules (a fresh clone),
 * `npm install` over a stale one (it keeps what is there). Returns false when nothing was needed.
 */
export async function ensureNpmPackages() {
  const state = npmPackagesState();
  if (state === 'ok') return false;
  const lockfile = existsSync(path.join(repoRoot, 'package-lock.json'));
  if (state === 'missing' && lockfile) await run('npm', ['ci', '--no-audit', '--no-fund']);
  else await run('npm', ['install', '--no-audit', '--no-fund']);
  return true;
}
