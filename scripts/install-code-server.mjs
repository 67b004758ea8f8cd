#!/usr/bin/env node
// Installs code-server (a real VS Code that runs in the browser) into the cache folder outside
// the repository, plus the Debian packages the UI tests need. Idempotent: a marker file is written
// only when everything finished, a lock keeps two runs from colliding, and an unfinished install
// is started over. Node built-ins only.
//
//   node scripts/install-code-server.mjs [--force]
//
// Environment: DOCCHAT_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/docchat).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_SERVER_VERSION, cacheDir, cleanNpmEnv, codeServerDir, formatDuration, isRoot, log, run, withLock } from './lib/common.mjs';

export const DEBIAN_PACKAGES = ['libkrb5-dev', 'ripgrep', 'chromium'];
const MARKER = '.docchat-install-complete';

export function codeServerEntry() {
  return path.join(codeServerDir(), 'out/node/entry.js');
}

export function isCodeServerInstalled() {
  return existsSync(path.join(codeServerDir(), MARKER)) && existsSync(codeServerEntry());
}

function missingDebianPackages() {
  return DEBIAN_PACKAGES.filter((name) => {
    const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
    return result.status !== 0 || !result.stdout.includes('install ok installed');
  });
}

/** Installs the missing Debian packages with apt-get when root; otherwise says what to run. */
export async function ensureDebianPackages() {
  const missing = missingDebianPackages();
  if (missing.length === 0) return;
  if (!isRoot()) {
    throw new Error(
      `Missing Debian packages: ${missing.join(' ')}. Install them with:\n` +
        `  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Wait for another apt run (ours or the system's) instead of failing on its lock.
  const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
  await run('apt-get', [...lockWait, 'update'], { env });
  await run('apt-get', [...lockWait, 'install', '-y', '--no-install-recommends', ...missing], { env });
}

async function installInto(target) {
  const npmEnv = cleanNpmEnv();
  const downloads = mkdtempSync(path.join(cacheDir(), 'download-'));
  try {
    await run('npm', ['pack', `code-server@${CODE_SERVER_VERSION}`, '--pack-destination', downloads], {
      cwd: downloads,
      env: npmEnv,
    });
    const tarball = readdirSync(downloads).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack produced no tarball');
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', path.join(downloads, tarball), '-C', target, '--strip-components=1']);
  } finally {
    rmSync(downloads, { recursive: true, force: true });
  }

  const vscodeDir = path.join(target, 'lib/vscode');
  await run('npm', ['install', '--omit=dev', '--ignore-scripts'], { cwd: vscodeDir, env: npmEnv });
  // @vscode/ripgrep would download its binary during the rebuild; Debian's ripgrep stands in.
  const ripgrepBin = path.join(vscodeDir, 'node_modules/@vscode/ripgrep/bin');
  mkdirSync(ripgrepBin, { recursive: true });
  rmSync(path.join(ripgrepBin, 'rg'), { force: true });
  symlinkSync('/usr/bin/rg', path.join(ripgrepBin, 'rg'));
  await run('npm', ['rebuild'], { cwd: vscodeDir, env: cleanNpmEnv({ npm_config_yes: 'true' }) });
  await run('npm', ['install', '--omit=dev'], { cwd: path.join(vscodeDir, 'extensions'), env: npmEnv });
  rmSync(path.join(vscodeDir, 'node_modules.asar'), { force: true });
  symlinkSync('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  await run('npm', ['install', '--omit=dev', '--ignore-scripts'], { cwd: target, env: npmEnv });
  await run('npm', ['rebuild', 'argon2'], { cwd: target, env: npmEnv });
}

/** Ensures the Debian packages and code-server are installed; returns code-server's folder. */
export async function installCodeServer({ force = false } = {}) {
  await ensureDebianPackages();
  const target = codeServerDir();
  if (!force && isCodeServerInstalled()) return target;
  mkdirSync(cacheDir(), { recursive: true });
  await withLock(
    `${target}.lock`,
    async () => {
      if (!force && isCodeServerInstalled()) return; // another run finished it while we waited
      const started = Date.now();
      log(`installing code-server ${CODE_SERVER_VERSION} into ${target} (takes a few minutes, once)`);
      rmSync(target, { recursive: true, force: true });
      await installInto(target);
      if (!existsSync(codeServerEntry())) throw new Error(`code-server entry missing: ${codeServerEntry()}`);
      writeFileSync(
        path.join(target, MARKER),
        JSON.stringify({
          version: CODE_SERVER_VERSION,
          installedAt: new Date().toISOString(),
        }) + '\n',
      );
      log(`code-server installed in ${formatDuration(Date.now() - started)}`);
    },
    { onWait: (pid) => log(`waiting for another install of code-server (pid ${pid})`) },
  );
  return target;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  installCodeServer({ force: process.argv.includes('--force') }).then(
    (dir) => log(`code-server ${CODE_SERVER_VERSION} ready in ${dir} (${formatDuration(Date.now() - started)})`),
    (error) => {
      console.error(`[docchat] ${error.message}`);
      process.exit(1);
    },
  );
}
