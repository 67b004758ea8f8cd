#!/usr/bin/env node
// `npm start`: builds DocChat and opens it in a real VS Code with a demo workspace.
//   npm start                      code-server on http://127.0.0.1:8080/, opened in the default browser
//                                  when this machine has one (else the address to open is printed);
//                                  Ctrl+C stops it
//   npm start -- --no-open         print the address only
//   npm start -- --port 9000       another port
//   npm start -- --desktop         VS Code desktop (`code --extensionDevelopmentPath`), when installed
// The demo workspace and the VS Code profile persist under the cache folder
// ($DOCCHAT_CACHE or ${XDG_CACHE_HOME:-~/.cache}/docchat/demo). DocChat starts in Local mode against
// its embedded backend; a demo store made from this repository's documents is seeded once.
// Node built-ins only: this file runs before the npm packages exist.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, commandExists, log, nodeBinary, repoRoot, run, vscodeTarget } from './lib/common.mjs';
import { ensureNpmPackages } from './lib/npmPackages.mjs';
import { demoSettings } from './lib/demoSettings.mjs';
import { installPackagedFiles } from './lib/extensionFiles.mjs';
import { codeServerEntry, installCodeServer } from './install-code-server.mjs';

const args = process.argv.slice(2);
const desktop = args.includes('--desktop');
const noOpen = args.includes('--no-open');
const portIndex = args.indexOf('--port');
const port = portIndex >= 0 ? Number(args[portIndex + 1]) : Number(process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('Usage: npm start -- [--port N] [--desktop]');
  process.exit(2);
}

const demoRoot = path.join(cacheDir(), 'demo');
const workspaceDir = path.join(demoRoot, 'workspace');
const userDataDir = path.join(demoRoot, 'user-data');
const extensionsDir = path.join(demoRoot, 'extensions');
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const extensionId = `${manifest.publisher}.${manifest.name}`;
const DEMO_DOCUMENTS = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'docs'];
/**
 * Not in the demo store: the benchmark report quotes the benchmarks' own questions word for word
 * ("Which model answers in Local mode?"), so it would answer questions about DocChat with sentences
 * about measuring the answers. It stays in the demo workspace.
 */
const NOT_SEEDED = new Set(['docs/benchmarks.md']);

/** The files the demo store is seeded with: DEMO_DOCUMENTS, folders listed, less NOT_SEEDED. */
function seedDocuments() {
  return DEMO_DOCUMENTS.flatMap((name) => {
    const file = path.join(repoRoot, name);
    if (!existsSync(file)) return [];
    if (!statSync(file).isDirectory()) return [file];
    return readdirSync(file, { recursive: true })
      .map((entry) => path.join(name, String(entry)))
      .filter((entry) => !NOT_SEEDED.has(entry.split(path.sep).join('/')) && statSync(path.join(repoRoot, entry)).isFile())
      .sort()
      .map((entry) => path.join(repoRoot, entry));
  });
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function prepareWorkspace() {
  mkdirSync(workspaceDir, { recursive: true });
  for (const name of DEMO_DOCUMENTS) {
    const source = path.join(repoRoot, name);
    const target = path.join(workspaceDir, name);
    if (existsSync(source) && !existsSync(target)) cpSync(source, target, { recursive: true });
  }
  // Settings of the user profile; the user's own changes are kept across starts.
  const settingsFile = path.join(userDataDir, 'User/settings.json');
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify(demoSettings(readJson(settingsFile)), null, 2));
}

/** Installs the current build into the demo extensions dir: the files of the .vsix, nothing else. */
async function installBuild() {
  const { files } = await installPackagedFiles(extensionsDir);
  log(`installed ${files.length} files, the same as the .vsix holds`);
}

/** Seeds the Local-mode data folder once, with the backend's own `--seed-demo`. */
async function seedDemoStore() {
  const dataDir = path.join(userDataDir, 'User/globalStorage', extensionId, 'backend');
  const marker = path.join(dataDir, '.demo-seeded');
  if (existsSync(marker)) return;
  const cli = path.join(repoRoot, 'dist/backend-cli.js');
  if (!existsSync(cli)) {
    log('no dist/backend-cli.js in this build: skipping the demo store');
    return;
  }
  const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
  if (!`${help.stdout}${help.stderr}`.includes('--seed-demo')) {
    log('this backend has no --seed-demo option: skipping the demo store');
    return;
  }
  const documents = seedDocuments();
  mkdirSync(dataDir, { recursive: true });
  log(`seeding a demo store from ${documents.map((d) => path.relative(repoRoot, d)).join(', ')}`);
  const helpText = `${help.stdout}${help.stderr}`;
  const seedOnly = helpText.includes('--seed-only');
  // With --seed-only the backend exits once seeded; otherwise it is stopped when it prints its
  // {url,...} line, which it does after seeding.
  await new Promise((resolve, reject) => {
    const cliArgs = [cli, '--port', '0', '--data-dir', dataDir, '--seed-demo', ...documents];
    if (seedOnly) cliArgs.push('--seed-only');
    // Its log (one line a file) is shown only when seeding fails.
    const child = spawn(process.execPath, cliArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    const announced = () => /^\{.*"url"/m.test(output);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (!seedOnly && announced()) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      (seedOnly ? code === 0 : announced()) ? resolve() : reject(new Error(`seeding failed:\n${errors}${output}`)),
    );
  });
  writeFileSync(marker, new Date().toISOString());
}

async function startCodeServer() {
  const target = vscodeTarget();
  log(`starting code-server ${target.codeServer} (VS Code ${target.vscode}) on Node ${target.node}`);
  const child = spawn(
    nodeBinary(),
    [
      codeServerEntry(),
      '--config',
      path.join(demoRoot, 'code-server.yaml'),
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--extensions-dir',
      extensionsDir,
      '--user-data-dir',
      userDataDir,
      workspaceDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // code-server's own log (extension gallery lookups, Node deprecation warnings) goes to a file;
  // the terminal shows DocChat's lines, and the log's end when code-server stops with an error.
  const logFile = path.join(demoRoot, 'code-server.log');
  const logStream = createWriteStream(logFile, { flags: 'w' });
  let tail = '';
  const keep = (chunk) => {
    logStream.write(chunk);
    tail = `${tail}${chunk}`.slice(-4000);
  };
  child.stderr.on('data', keep);
  child.stdout.on('data', (chunk) => {
    keep(chunk);
    const match = /HTTP server listening on (http:\/\/\S+)/.exec(chunk.toString());
    if (match) {
      const url = `${match[1].replace(/\/$/, '')}/?folder=${encodeURIComponent(workspaceDir)}`;
      const opened = !noOpen && openInBrowser(url);
      console.log(
        opened
          ? `\n  DocChat in VS Code, opened in your browser: ${url}\n  Press Ctrl+C to stop.\n`
          : `\n  DocChat in VS Code is ready: open ${url} in your browser.\n  Press Ctrl+C to stop.\n`,
      );
      log(`code-server's log: ${logFile}`);
    }
  });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 0)));
  logStream.end();
  if (code !== 0) console.error(`code-server stopped (exit code ${code}); the end of its log (${logFile}):\n${tail}`);
  process.exit(code);
}

/**
 * Opens `url` in the default browser when this machine has one to open (a desktop session);
 * false when it cannot (a server without a display, no opener command), so the caller says what
 * to do instead.
 */
function openInBrowser(url) {
  const opener =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', [url]]
          : undefined;
  if (!opener || (process.platform !== 'win32' && !commandExists(opener[0]))) return false;
  try {
    const child = spawn(opener[0], opener[1], { stdio: 'ignore', detached: true });
    child.on('error', () => console.log(`  Could not open a browser: open ${url} yourself.`));
    child.unref();
    return true;
  } catch {
    return false;
  }
}

async function startDesktop() {
  if (!commandExists('code')) {
    console.error('No `code` command on this machine: run `npm start` for VS Code in the browser.');
    process.exit(1);
  }
  // The same demo profile as in the browser, so the seeded Local-mode store is there too.
  await run('code', ['--wait', `--user-data-dir=${userDataDir}`, `--extensionDevelopmentPath=${repoRoot}`, workspaceDir]);
}

try {
  await ensureNpmPackages();
  // The build's file list is for `npm run build`; here only its warnings and errors are shown.
  await run(process.execPath, ['esbuild.mjs', '--quiet'], { quiet: true });
  log('built dist/');
  mkdirSync(demoRoot, { recursive: true });
  const configFile = path.join(demoRoot, 'code-server.yaml');
  if (!existsSync(configFile)) writeFileSync(configFile, 'auth: none\ncert: false\n');
  prepareWorkspace();
  await seedDemoStore().catch((error) => log(`demo store not seeded: ${error.message}`));
  if (desktop) {
    await startDesktop();
  } else {
    await installCodeServer();
    await installBuild();
    await startCodeServer();
  }
} catch (error) {
  console.error(`[docchat] npm start failed: ${error.message}`);
  process.exit(1);
}
