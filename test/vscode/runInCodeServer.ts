// Runs the extension-host suite inside a real VS Code (code-server + Chromium): the bundled suite
// is installed as a small runner extension next to DocChat, the workbench is opened (the extension
// host starts only when a client connects), and the JSON results the runner writes are reported.
// Exit code 1 on any failure, a crash, or no results at all.
//
//   node --import tsx test/vscode/runInCodeServer.ts
//   DOCCHAT_EXTHOST_GREP='Chat panel host' node --import tsx test/vscode/runInCodeServer.ts   (only matching tests; code-server passes its environment on)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchVSCode, repoRoot, testResultsRoot, vscodeTarget, type VSCodeSession } from '../support/harness';
import type { SuiteResults } from './runner/runSuite';

const RESULTS_TIMEOUT_MS = 180_000;
export const EXTENSION_HOST_RESULTS = path.join(testResultsRoot, 'extension-host/results.json');

async function waitForFile(file: string, session: VSCodeSession): Promise<string | undefined> {
  const deadline = Date.now() + RESULTS_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (existsSync(file)) return readFileSync(file, 'utf8');
    if (session.server.process.exitCode !== null) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return undefined;
}

function report(results: SuiteResults): void {
  console.log(`\nExtension-host suite in VS Code ${results.vscodeVersion}:`);
  for (const test of results.tests) {
    const mark = test.state === 'passed' ? '✔' : test.state === 'failed' ? '✘' : '-';
    console.log(`  ${mark} ${test.title}`);
    if (test.error) console.log(test.error.replace(/^/gm, '      '));
  }
  console.log(`Extension-host suite totals — ${results.passed} passing, ${results.failed} failing, ${results.pending} pending`);
}

async function main(): Promise<number> {
  const build = spawnSync(process.execPath, [path.join(repoRoot, 'test/vscode/build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) return 1;
  rmSync(EXTENSION_HOST_RESULTS, { force: true });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'docchat-exthost-'));
  const resultsFile = path.join(scratch, 'results.json');
  const session = await launchVSCode({
    name: 'extension-host',
    // The suite checks that it runs in the VS Code version this run is meant for.
    env: { DOCCHAT_EXTHOST_RESULTS: resultsFile, DOCCHAT_EXPECTED_VSCODE: vscodeTarget().vscode },
    extraExtensions: [path.join(repoRoot, 'out/vscode-tests/runner-extension')],
  });
  let json: string | undefined;
  try {
    json = await waitForFile(resultsFile, session);
    await session.screenshot('after-suite');
  } finally {
    if (!json) {
      console.error('No results from the extension-host suite. Extension host log:\n' + session.extensionHostLog());
    }
    await session.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!json) return 1;
  mkdirSync(path.dirname(EXTENSION_HOST_RESULTS), { recursive: true });
  writeFileSync(EXTENSION_HOST_RESULTS, json);
  const results = JSON.parse(json) as SuiteResults & { crashed?: string };
  if (results.crashed) {
    console.error(`The extension-host suite crashed:\n${results.crashed}`);
    return 1;
  }
  report(results);
  return results.failed === 0 && results.passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
