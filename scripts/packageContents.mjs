// What the .vsix holds, and what loads each file. test/unit/packaging.test.ts fails when the
// package holds a file no line here names, when a file's loader is not packaged or does not
// contain the text that loads it, and when a built bundle is neither packaged nor listed in
// DEVELOPMENT_BUNDLES. A new bundle or data file: one line here, one `!path` line in .vscodeignore.
//
// `file`: a path in the package; `*` stands for any part of a name, `**/` for any folders.
// `loadedBy`: the packaged file that loads it (a path, or a function of the file's path), or
//   'VS Code' for the files VS Code itself reads by convention (the manifest, its strings, the
//   extension page).
// `via`: text the loader must contain, with `{path}` (the file's path) and `{name}` (its name).
//   Names survive minification: they are string literals of the bundles.

/** @typedef {{ file: string, loadedBy: string | ((file: string) => string), via?: string, why: string }} PackagedFile */

/** @type {PackagedFile[]} */
export const PACKAGED = [
  { file: 'package.json', loadedBy: 'VS Code', why: 'the manifest' },
  { file: 'package.nls.json', loadedBy: 'VS Code', why: 'the English strings of the manifest' },
  { file: 'README.md', loadedBy: 'VS Code', why: 'the extension page' },
  { file: 'CHANGELOG.md', loadedBy: 'VS Code', why: 'the Changelog tab of the extension page' },
  { file: 'LICENSE', loadedBy: 'VS Code', why: 'the licence link of the extension page' },
  { file: 'l10n/bundle.l10n*.json', loadedBy: 'package.json', via: '"l10n": "./l10n"', why: 'vscode.l10n.t strings' },
  { file: 'media/icons/*', loadedBy: 'package.json', via: '{path}', why: 'activity bar and view icons' },
  {
    file: 'media/icon.png',
    loadedBy: 'package.json',
    via: '"icon": "{path}"',
    why: 'the icon of the extension page and the Extensions view',
  },
  { file: 'media/readme/*.png', loadedBy: 'README.md', via: '({path})', why: 'the pictures of the extension page' },
  { file: 'media/walkthrough/*', loadedBy: 'package.json', via: '{path}', why: 'the Getting Started walkthrough' },
  { file: 'dist/extension.js', loadedBy: 'package.json', via: '"main": "./dist/extension.js"', why: 'the extension' },
  {
    file: 'dist/first-use.js',
    loadedBy: 'dist/extension.js',
    via: './first-use.js',
    why: "the API clients, their schemas, zod and the features' code that runs on use, at first use",
  },
  { file: 'dist/undici.js', loadedBy: 'dist/first-use.js', via: './undici.js', why: 'the HTTP client, at the first request' },
  { file: 'dist/hash-worker.js', loadedBy: 'dist/first-use.js', via: '{name}', why: "folder sync's hashing thread" },
  { file: 'dist/backend-cli.js', loadedBy: 'dist/extension.js', via: '{name}', why: 'the Local mode backend process' },
  { file: 'dist/convert-worker.js', loadedBy: 'dist/backend-cli.js', via: '{name}', why: "the backend's conversion threads" },
  {
    file: 'dist/ocr/worker.js',
    loadedBy: 'dist/convert-worker.js',
    via: '{name}',
    why: "tesseract.js's worker thread, started by a conversion's OCR",
  },
  { file: 'dist/ocr/tesseract-core-simd-lstm.js', loadedBy: 'dist/ocr/worker.js', via: '{name}', why: "Tesseract's engine (LSTM, SIMD)" },
  {
    file: 'dist/ocr/tesseract-core-simd-lstm.wasm',
    loadedBy: 'dist/ocr/tesseract-core-simd-lstm.js',
    via: '{name}',
    why: "Tesseract's WebAssembly",
  },
  {
    file: 'dist/ocr/eng.traineddata.gz',
    loadedBy: 'dist/ocr/worker.js',
    via: '.traineddata',
    why: "OCR's English language data (the worker asks for '<lang>.traineddata' + '.gz')",
  },
  {
    file: 'dist/ocr/ara.traineddata.gz',
    loadedBy: 'dist/ocr/worker.js',
    via: '.traineddata',
    why: "OCR's Arabic language data (the worker asks for '<lang>.traineddata' + '.gz')",
  },
  {
    file: 'dist/ocr/fas.traineddata.gz',
    loadedBy: 'dist/ocr/worker.js',
    via: '.traineddata',
    why: "OCR's Persian language data (the worker asks for '<lang>.traineddata' + '.gz')",
  },
  {
    file: 'dist/ocr/heb.traineddata.gz',
    loadedBy: 'dist/ocr/worker.js',
    via: '.traineddata',
    why: "OCR's Hebrew language data (the worker asks for '<lang>.traineddata' + '.gz')",
  },
  { file: 'dist/webview/chat.js', loadedBy: 'dist/first-use.js', via: '{name}', why: 'the chat webview' },
  {
    file: 'dist/webview/highlight.js',
    loadedBy: 'dist/webview/chat.js',
    via: '{name}',
    why: 'code highlighting, loaded at the first code block',
  },
  {
    file: 'dist/mcp-server.js',
    loadedBy: 'dist/extension.js',
    via: '{name}',
    why: "DocChat's MCP server, started by VS Code or another agent host",
  },
  {
    file: 'resources/skills/*/SKILL.md',
    loadedBy: 'package.json',
    via: '{path}',
    why: 'the Agent Skills VS Code gives its agents (contributes.chatSkills)',
  },
  ...['dist/agent-plugin/docchat/*', 'dist/agent-plugin/docchat/*/plugin.json', 'dist/agent-plugin/docchat/skills/*/SKILL.md'].map(
    (file) => ({
      file,
      loadedBy: 'dist/extension.js',
      via: 'agent-plugin',
      why: 'the agent plugin for Claude Code and Copilot CLI (manifests, skill) that "Copy MCP Server Configuration…" completes and offers',
    }),
  ),
  { file: 'dist/webview/chat.css', loadedBy: 'dist/first-use.js', via: '{name}', why: 'the chat webview' },
  { file: 'dist/webview/codicons/codicon.css', loadedBy: 'dist/first-use.js', via: '{name}', why: 'icons in the chat webview' },
  { file: 'dist/webview/codicons/codicon.ttf', loadedBy: 'dist/webview/codicons/codicon.css', via: '{name}', why: 'the icon font' },
  {
    file: 'dist/**/*.js.LEGAL.txt',
    loadedBy: (file) => file.replace(/\.LEGAL\.txt$/, ''),
    via: 'For license information please see {name}',
    why: "the licences of the code a bundle includes, linked from the bundle's header (esbuild legalComments: 'linked')",
  },
];

/**
 * Bundles the build writes that the package leaves out on purpose, and who uses them. Source maps
 * (`*.map`) are never packaged: VS Code does not apply an extension's source maps to the stack
 * traces it logs, so they would only add size; `npm run build` writes them for debugging from the
 * repository.
 */
export const DEVELOPMENT_BUNDLES = [
  {
    file: 'dist/backend.js',
    usedBy:
      'the embedded backend as a library, started inside a process: benchmarks (test/bench/localmode.ts) and the extension-host tests',
  },
];
