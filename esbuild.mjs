// Builds every bundle of DocChat:
//   dist/extension.js    the extension (Node, CommonJS, `vscode` external): what activation loads
//   dist/first-use.js    the API clients, their schemas, zod and the features' code that runs on use
//                        (chat panel, search quick pick, folder sync steps), required by the
//                        extension at first use (scripts/lib/firstUseBundle.mjs)
//   dist/undici.js       the HTTP client library, required by first-use.js at the first request
//   dist/backend-cli.js  the embedded backend's server (`docchat-backend`); Local mode runs it as its own process
//   dist/mcp-server.js   DocChat's MCP server (stdio), started by VS Code or another agent host
//   dist/convert-worker.js  the backend's conversion worker threads
//   dist/hash-worker.js  the folder sync's hashing worker thread (off the extension host's thread)
//   dist/ocr/*           the OCR engine (tesseract.js worker, Tesseract's WebAssembly, language data)
//   dist/agent-plugin/docchat/  the agent plugin (Agent Skill + MCP server definition) without its
//                        .mcp.json, which "Copy MCP Server Configuration…" adds for the user's setup
//   dist/webview/*       the webview bundles (browser, IIFE) and their styles; highlight.js is loaded
//                        by chat.js at the first code block
//   dist/backend.js      the embedded backend as a library (startBackend), for benchmarks and the
//                        extension-host tests; not packaged: nothing in the extension loads it
// What the .vsix holds and what loads each file: scripts/packageContents.mjs (checked by a unit test).
// Flags: --production (minify, no inline sources, source maps without a link: they are not
// packaged), --watch.
import * as esbuild from 'esbuild';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstUseEntry, requireFromFirstUse } from './scripts/lib/firstUseBundle.mjs';

const root = path.dirname(fileURLToPath(import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
/** `--quiet`: warnings and errors only, not the list of files written (`npm start`). */
const quiet = process.argv.includes('--quiet');

const common = {
  bundle: true,
  minify: production,
  // Maps stay in dist/ for debugging from the repository; the .vsix leaves them out (VS Code does not
  // apply an extension's maps to the stack traces it logs), so production bundles do not link them.
  sourcemap: production ? 'external' : true,
  sourcesContent: !production,
  logLevel: quiet ? 'warning' : 'info',
  absWorkingDir: root,
  legalComments: 'linked',
};

const nodeCommon = {
  ...common,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Optional native accelerators of some dependencies; never required at run time. node-fetch:
  // tesseract.js's fallback for Node versions without a global fetch (Node 20 has one).
  external: ['vscode', 'canvas', 'bufferutil', 'utf-8-validate', 'node-fetch'],
};

/**
 * Keeps undici out of extension.js and first-use.js: src/api/http/undici.ts requires it at the first
 * request, and there that `require` loads dist/undici.js. Activation then parses a third of the
 * code it used to.
 * @type {import('esbuild').Plugin}
 */
const undiciAtFirstUse = {
  name: 'undici-at-first-use',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: './undici.js', external: true }));
  },
};

/**
 * Every module of the extension imports `vscode` as a namespace. Bundled to CommonJS, each of those
 * imports would copy the API object's several hundred exports into a namespace of its own (esbuild's
 * `__toESM`), some fifty copies while extension.js loads. Here they all share one: the only
 * `require('vscode')` is in a virtual module that re-exports it.
 * @type {import('esbuild').Plugin}
 */
const vscodeNamespaceOnce = {
  name: 'vscode-namespace-once',
  setup(build) {
    const namespace = 'vscode-namespace-once';
    build.onResolve({ filter: /^vscode$/ }, (args) =>
      args.namespace === namespace ? { path: 'vscode', external: true } : { path: 'vscode', namespace },
    );
    build.onLoad({ filter: /.*/, namespace }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/**
 * The extension host of VS Code 1.139 logs an error (PendingMigrationError) whenever an extension
 * reads the global `navigator`, which Node 21+ has and browsers have; zod reads it once to detect
 * Cloudflare Workers. No code of the extension bundle needs it, so it is `undefined` there.
 */
const noNavigator = { navigator: 'undefined' };

/**
 * The one Tesseract WebAssembly build shipped: LSTM engine only, with SIMD (every Node and
 * Electron that runs a supported VS Code has WebAssembly SIMD). Each build is about 1 MB in the .vsix.
 */
const TESSERACT_CORE = 'tesseract-core-simd-lstm';

/**
 * The OCR worker loads Tesseract's core from the files copied next to it (dist/ocr/), which load
 * their .wasm from their own folder; bundling them would inline megabytes of base64 per variant.
 * @type {import('esbuild').Plugin}
 */
const tesseractCoreBesideWorker = {
  name: 'tesseract-core-beside-worker',
  setup(build) {
    build.onResolve({ filter: /^tesseract\.js-core\// }, (args) => {
      // DocChat's engine is LSTM only, so every core the loader may ask for (tesseract.js 7's Node
      // loader also picks builds with the legacy engine, and relaxed SIMD where it exists) maps
      // to the one shipped build, which runs the same LSTM recognizer.
      if (!args.path.startsWith('tesseract.js-core/tesseract-core')) return undefined;
      return { path: `./${TESSERACT_CORE}.js`, external: true };
    });
  },
};

/**
 * Every bundle's options; test/unit/bundles.test.ts builds them with a metafile to check what
 * each bundle holds.
 * @type {import('esbuild').BuildOptions[]}
 */
export const targets = [
  {
    ...nodeCommon,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    plugins: [requireFromFirstUse(root), undiciAtFirstUse, vscodeNamespaceOnce],
    define: noNavigator,
  },
  {
    ...nodeCommon,
    entryPoints: { 'first-use': 'docchat-first-use' },
    outdir: 'dist',
    plugins: [firstUseEntry(root), undiciAtFirstUse, vscodeNamespaceOnce],
    define: noNavigator,
  },
  { ...nodeCommon, entryPoints: { undici: createRequire(import.meta.url).resolve('undici') }, outdir: 'dist' },
  { ...nodeCommon, entryPoints: { backend: 'src/backend/index.ts' }, outdir: 'dist' },
  // Conversion worker threads of the backend, found next to backend-cli.js (and backend.js).
  { ...nodeCommon, entryPoints: { 'convert-worker': 'src/backend/convert/worker.ts' }, outdir: 'dist' },
  // tesseract.js's own worker thread, started by the OCR of a conversion worker (src/backend/convert/ocr.ts),
  // with its WebAssembly memory capped and measured (src/backend/convert/ocrThread.ts).
  {
    ...nodeCommon,
    entryPoints: { worker: 'src/backend/convert/ocrThread.ts' },
    outdir: 'dist/ocr',
    plugins: [tesseractCoreBesideWorker],
  },
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
    // highlight.js is a script of its own, loaded by the panel at the first code block.
    entryPoints: { chat: 'media/chat/main.ts', highlight: 'media/chat/highlight.ts' },
    outdir: 'dist/webview',
    loader: { '.css': 'css' },
    // markdown-it decodes `&name;` with the browser's own entity table (see htmlEntities.ts).
    alias: { entities: './media/chat/htmlEntities.ts' },
  },
];

/** Tesseract's WebAssembly and the language data (English, Arabic, Persian, Hebrew), next to the OCR worker. */
async function copyOcrAssets() {
  const require = createRequire(import.meta.url);
  const out = path.join(root, 'dist/ocr');
  await mkdir(out, { recursive: true });
  const core = path.dirname(require.resolve('tesseract.js-core/package.json'));
  await cp(path.join(core, `${TESSERACT_CORE}.js`), path.join(out, `${TESSERACT_CORE}.js`));
  await cp(path.join(core, `${TESSERACT_CORE}.wasm`), path.join(out, `${TESSERACT_CORE}.wasm`));
  // The OCR languages of src/backend/convert/ocrLanguages.ts, each in Tesseract's integer (best_int) build.
  for (const language of ['eng', 'ara', 'fas', 'heb']) {
    const data = path.dirname(require.resolve(`@tesseract.js-data/${language}/package.json`));
    await cp(path.join(data, `4.0.0_best_int/${language}.traineddata.gz`), path.join(out, `${language}.traineddata.gz`));
  }
}

async function copyStaticAssets() {
  const codicons = path.join(root, 'node_modules/@vscode/codicons/dist');
  const out = path.join(root, 'dist/webview/codicons');
  await mkdir(out, { recursive: true });
  await cp(path.join(codicons, 'codicon.css'), path.join(out, 'codicon.css'));
  await cp(path.join(codicons, 'codicon.ttf'), path.join(out, 'codicon.ttf'));
}

/**
 * The agent plugin, in the layouts Claude Code (`.claude-plugin/plugin.json`), GitHub Copilot CLI
 * (`plugin.json`, which names its skills and MCP servers) and Open Plugins (`.plugin/plugin.json`)
 * read: DocChat's Agent Skill (the one `contributes.chatSkills` gives VS Code) under skills/. The
 * MCP server definition (`.mcp.json`) depends on the user's mode and install, so
 * src/mcp/agentPlugin.ts writes it when the user asks for the plugin.
 */
async function writeAgentPlugin() {
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const out = path.join(root, 'dist/agent-plugin/docchat');
  await rm(out, { recursive: true, force: true });
  const manifest = {
    name: 'docchat',
    version,
    description: "Answer from the company's documents in DocChat vector stores: search them, read them and cite them.",
    author: { name: 'DocChat' },
    license: 'MIT',
    keywords: ['documents', 'search', 'retrieval', 'mcp'],
  };
  const files = {
    '.claude-plugin/plugin.json': manifest,
    '.plugin/plugin.json': manifest,
    'plugin.json': { ...manifest, skills: 'skills/', mcpServers: '.mcp.json' },
  };
  for (const [file, json] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(out, file)), { recursive: true });
    await writeFile(path.join(out, file), `${JSON.stringify(json, null, 2)}\n`);
  }
  await mkdir(path.join(out, 'skills/docchat'), { recursive: true });
  await cp(path.join(root, 'resources/skills/docchat/SKILL.md'), path.join(out, 'skills/docchat/SKILL.md'));
}

async function buildAll() {
  await copyStaticAssets();
  await copyOcrAssets();
  await writeAgentPlugin();
  if (watch) {
    const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[watch] watching for changes');
  } else {
    await Promise.all(targets.map((t) => esbuild.build(t)));
  }
}

// Builds when run (`node esbuild.mjs`), not when imported for its targets.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildAll();
