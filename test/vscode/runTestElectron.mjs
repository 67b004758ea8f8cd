// `npm run test:vscode`: the extension-host suite in VS Code desktop via @vscode/test-electron
// (downloads VS Code 1.100.3 into .vscode-test/). Where no download is possible, the same suite
// runs inside code-server: `npm run test:exthost` (part of `npm test`).
import { runTests } from '@vscode/test-electron';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildExtensionHostTests } from './build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const build = spawnSync(process.execPath, [path.join(root, 'esbuild.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);
const { suite } = await buildExtensionHostTests();
const workspace = mkdtempSync(path.join(os.tmpdir(), 'docchat-test-electron-'));
try {
  await runTests({
    version: process.env.DOCCHAT_VSCODE_VERSION ?? '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: suite,
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome'],
  });
} catch (error) {
  console.error(`Extension-host tests failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
