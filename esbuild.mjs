// Builds every bundle DocChat ships:
//   dist/extension.js    the extension (Node, CommonJS, `vscode` external)
//   dist/undici.js       the HTTP client library, required by the extension at its first request
//   dist/backend.js      the embedded backend, loaded lazily by the extension in Local mode
//   dist/backend-cli.js  the `docchat-backend` command-line server
//   dist/mcp-server.js   DocChat's MCP server (stdio), started by VS Code or another agent host
//   dist/convert-worker.js  the backend's conversion worker threads
//   dist/hash-worker.js  the folder sync's hashing worker thread (off the extension host's thread)
//   dist/webview/*       the webview bundles (browser, IIFE) and their styles
// Flags: --production (minify, no inline sources), --watch.
import * as esbuild from 'esbuild';
import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  minify: production,
  sourcemap: true,
  sourcesContent: !production,
  logLevel: 'info',
  absWorkingDir: root,
  legalComments: 'linked',
};

const nodeCommon = {
  ...common,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Optional native accelerators of some dependencies; never required at run time.
  external: ['vscode', 'canvas', 'bufferutil', 'utf-8-validate'],
};

/**
 * Keeps undici out of extension.js: src/api/http/undici.ts requires it at the first request, and
 * in the extension bundle that `require` loads dist/undici.js. Activation then parses a third of
 * the code it used to.
 * @type {import('esbuild').Plugin}
 */
const undiciAtFirstUse = {
  name: 'undici-at-first-use',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: './undici.js', external: true }));
  },
};

/**
 * The extension host of VS Code 1.139 logs an error (PendingMigrationError) whenever an extension
 * reads the global `navigator`, which Node 21+ has and browsers have; zod reads it once to detect
 * Cloudflare Workers. No code of the extension bundle needs it, so it is `undefined` there.
 */
const noNavigator = { navigator: 'undefined' };

/** @type {import('esbuild').BuildOptions[]} */
const targets = [
  {
    ...nodeCommon,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    plugins: [undiciAtFirstUse],
    define: noNavigator,
  },
  { ...nodeCommon, entryPoints: { undici: createRequire(import.meta.url).resolve('undici') }, outdir: 'dist' },
  { ...nodeCommon, entryPoints: { backend: 'src/backend/index.ts' }, outdir: 'dist' },
  // Conversion worker threads of the backend, found next to backend.js and backend-cli.js.
  { ...nodeCommon, entryPoints: { 'convert-worker': 'src/backend/convert/worker.ts' }, outdir: 'dist' },
  // Hashes a synced folder's files in a worker thread, found next to extension.js.
  { ...nodeCommon, entryPoints: { 'hash-worker': 'src/workers/hashFiles.ts' }, outdir: 'dist' },
  {
    ...nodeCommon,
    entryPoints: { 'backend-cli': 'src/backend/cli.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The MCP server, run by agent hosts with their own Node (or VS Code's): one self-contained file.
  { ...nodeCommon, entryPoints: { 'mcp-server': 'src/mcp/main.ts' }, outdir: 'dist' },
  {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    entryPoints: { chat: 'media/chat/main.ts' },
    outdir: 'dist/webview',
    loader: { '.css': 'css' },
  },
];

async function copyStaticAssets() {
  const codicons = path.join(root, 'node_modules/@vscode/codicons/dist');
  const out = path.join(root, 'dist/webview/codicons');
  await mkdir(out, { recursive: true });
  await cp(path.join(codicons, 'codicon.css'), path.join(out, 'codicon.css'));
  await cp(path.join(codicons, 'codicon.ttf'), path.join(out, 'codicon.ttf'));
}

await copyStaticAssets();
if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] watching for changes');
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
