// Bundles the extension-host suite (test/vscode/suite/**/*.test.ts) with mocha into out/vscode-tests/:
//   suite.js                   exports run() for @vscode/test-electron (`npm run test:vscode`)
//   runner-extension/          a small extension the code-server harness installs next to DocChat;
//                              it runs the same suite on startup and writes JSON results
// DocChat's own bundle stays free of test code.
import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
export const outDir = path.join(root, 'out/vscode-tests');
export const runnerExtensionDir = path.join(outDir, 'runner-extension');

function suiteFiles(dir = path.join(here, 'suite')) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return suiteFiles(full);
      return entry.name.endsWith('.test.ts') ? [full] : [];
    })
    .sort();
}

function filesTable() {
  const rows = suiteFiles().map((file) => {
    const relative = `./${path.relative(here, file).split(path.sep).join('/')}`;
    return `  { file: ${JSON.stringify(relative)}, load: () => require(${JSON.stringify(relative)}) },`;
  });
  return `const files = [\n${rows.join('\n')}\n];\n`;
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  external: ['vscode'],
  logLevel: 'warning',
  absWorkingDir: root,
  // The repository the suite was built from: its dist/backend.js (the backend as a library, which
  // the package does not hold) starts test backends inside the extension host.
  define: { DOCCHAT_REPOSITORY_ROOT: JSON.stringify(root) },
  // mocha looks up optional reporters and ESM loaders at run time; the suite uses neither.
  logOverride: { 'require-resolve-not-external': 'silent', 'unsupported-dynamic-import': 'silent' },
};

export async function buildExtensionHostTests() {
  mkdirSync(runnerExtensionDir, { recursive: true });
  await esbuild.build({
    ...common,
    stdin: {
      contents:
        `import * as vscode from 'vscode';\nimport { runSuite } from './runner/runSuite';\n${filesTable()}` +
        `export async function run() {\n  const results = await runSuite(files, vscode.version);\n` +
        `  if (results.failed > 0) throw new Error(results.failed + ' extension-host test(s) failed');\n}\n`,
      resolveDir: here,
      sourcefile: 'suite-entry.ts',
      loader: 'ts',
    },
    outfile: path.join(outDir, 'suite.js'),
  });
  await esbuild.build({
    ...common,
    stdin: {
      contents:
        `import { activateRunner } from './runner/extension';\n${filesTable()}` +
        'export function activate(context) { return activateRunner(files, context); }\nexport function deactivate() {}\n',
      resolveDir: here,
      sourcefile: 'runner-entry.ts',
      loader: 'ts',
    },
    outfile: path.join(runnerExtensionDir, 'extension.js'),
  });
  writeFileSync(
    path.join(runnerExtensionDir, 'package.json'),
    JSON.stringify(
      {
        name: 'docchat-test-runner',
        displayName: 'DocChat extension-host tests',
        publisher: 'docchat',
        version: '0.0.0',
        private: true,
        engines: { vscode: '^1.100.0' },
        main: './extension.js',
        activationEvents: ['onStartupFinished'],
        // A view of its own, so that tests can show a DocChat tree provider in a real tree view.
        contributes: { views: { explorer: [{ id: 'docchatTest.tree', name: 'DocChat test tree' }] } },
      },
      null,
      2,
    ),
  );
  return { suite: path.join(outDir, 'suite.js'), runnerExtensionDir };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildExtensionHostTests();
}
