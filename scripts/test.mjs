#!/usr/bin/env node
// `npm test`: everything CI runs, from a fresh clone on a fresh machine.
//   1. npm packages (npm ci when node_modules is missing, npm install when it is stale)
//   2. Debian packages + the newest and the oldest supported code-server, each with its Node, in
//      the cache folder (scripts/install-code-server.mjs, versions in scripts/lib/vscode-versions.json)
//   3. production build and the .vsix (npm run package)
//   4. lint and format check, type-check, unit tests (mocha), extension-host suite (inside code-server), e2e UI tests,
//      all on the newest VS Code; then `oldest`: the extension-host suite and the e2e smoke test on the oldest
// Ends with a summary naming each failed test, then one line `N passed, N failed` summing the test
// layers; exits non-zero on any failure.
// Node built-ins only: this file runs before the npm packages exist.
//
//   npm test [-- --only=lint,typecheck,unit,exthost,e2e,oldest] [--skip-package]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { formatDuration, log, repoRoot, run, vscodeTarget } from './lib/common.mjs';
import { installCodeServer } from './install-code-server.mjs';
import { ensureNpmPackages, npmPackagesState } from './lib/npmPackages.mjs';
import { mochaFailures, suiteFailures } from './lib/testReport.mjs';

const args = process.argv.slice(2);
const onlyArg = args.find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
const LAYERS = ['lint', 'typecheck', 'unit', 'exthost', 'e2e', 'oldest'];
const unknownLayers = only ? [...only].filter((layer) => !LAYERS.includes(layer)) : [];
if (only && (unknownLayers.length > 0 || only.size === 0)) {
  // A mistyped layer would otherwise run nothing and pass.
  console.error(`[docchat] unknown test layer: ${unknownLayers.join(', ') || '(none given)'}; the layers are ${LAYERS.join(', ')}`);
  process.exit(2);
}
const unknownArgs = args.filter((a) => !a.startsWith('--only=') && a !== '--skip-package');
if (unknownArgs.length > 0) {
  console.error(`[docchat] unknown argument: ${unknownArgs.join(' ')}; usage: npm test [-- --only=${LAYERS.join(',')}] [--skip-package]`);
  process.exit(2);
}
const wants = (layer) => !only || only.has(layer);

const steps = []; // { name, ok, passed?, failed?, pending?, ms, note?, failures? }
let totalPassed = 0;
let totalFailed = 0;
let totalSkipped = 0;

async function step(name, fn) {
  log(`── ${name}`);
  const started = Date.now();
  let outcome;
  try {
    const result = await fn();
    outcome = result && typeof result === 'object' && 'ok' in result ? result : { ok: true };
  } catch (error) {
    console.error(`[docchat] ${name} failed: ${error.message}`);
    outcome = { ok: false };
  }
  const record = { name, ms: Date.now() - started, ...outcome };
  steps.push(record);
  totalPassed += record.passed ?? 0;
  totalSkipped += record.pending ?? 0;
  // A failed step with no failed test of its own (a build, no tests found) still counts once.
  totalFailed += record.failed || (record.ok ? 0 : 1);
  log(`── ${name}: ${record.ok ? 'ok' : 'FAILED'} (${formatDuration(record.ms)})`);
  return record.ok;
}

/** Runs a command, echoing its output, and returns the output too (for the test counts). */
function runCapturing(command, commandArgs, env = process.env) {
  log(`$ ${[command, ...commandArgs].join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const node = process.execPath;
const bin = (relative) => path.join(repoRoot, 'node_modules', relative);

/** A mocha run: counts come from its closing "N passing / N failing / N pending" lines. */
async function mochaLayer(mochaArgs, env) {
  const { code, output } = await runCapturing(node, [bin('mocha/bin/mocha.js'), ...mochaArgs], env);
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (word) => Number(plain.match(new RegExp(`^\\s*(\\d+) ${word}`, 'm'))?.[1] ?? 0);
  const passed = count('passing');
  let failed = count('failing');
  if (code !== 0 && failed === 0) failed = 1; // mocha itself failed (no tests found, a crash)
  return { ok: code === 0 && failed === 0 && passed > 0, passed, failed, pending: count('pending'), failures: mochaFailures(plain) };
}

/** Where the harness puts a target's results (test/support/harness/paths.ts: testResultsRoot). */
function resultsRoot(target) {
  return path.join(repoRoot, 'test-results', ...(target.name === 'newest' ? [] : [`vscode-${target.name}`]));
}

async function extensionHostLayer(env, target) {
  const resultsFile = path.join(resultsRoot(target), 'extension-host/results.json');
  rmSync(resultsFile, { force: true });
  const { code } = await runCapturing(node, ['--import', 'tsx', 'test/vscode/runInCodeServer.ts'], env);
  let passed = 0;
  let failed = 0;
  let pending = 0;
  let failures = [];
  if (existsSync(resultsFile)) {
    const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
    ({ passed = 0, failed = 0, pending = 0 } = results);
    if (results.crashed) failed += 1;
    failures = suiteFailures(results);
  }
  if (code !== 0 && failed === 0) failed = 1; // no results at all: the suite never ran
  return { ok: code === 0 && failed === 0, passed, failed, pending, failures };
}

const started = Date.now();
const newest = vscodeTarget('newest');
const oldest = vscodeTarget('oldest');
const testEnv = { ...process.env, DOCCHAT_VSIX: path.join(repoRoot, 'dist/docchat.vsix'), DOCCHAT_VSCODE: newest.name };
// The short part on the oldest supported VS Code: the whole extension-host suite and the smoke test.
const SMOKE_TEST = 'test/e2e/smoke.e2e.test.ts';

if (npmPackagesState() !== 'ok') await step('npm packages', () => ensureNpmPackages());
const needsHarness = wants('exthost') || wants('e2e');
const harnessReady = needsHarness
  ? await step(`install code-server ${newest.codeServer} (VS Code ${newest.vscode})`, () => installCodeServer({ target: newest }))
  : true;
const oldestReady = wants('oldest')
  ? await step(`install code-server ${oldest.codeServer} (VS Code ${oldest.vscode})`, () => installCodeServer({ target: oldest }))
  : true;
rmSync(path.join(repoRoot, 'test-results'), { recursive: true, force: true });
const built = await step('build and package (.vsix)', async () => {
  if (args.includes('--skip-package')) {
    await run(node, ['esbuild.mjs', '--production']);
    delete testEnv.DOCCHAT_VSIX; // the harness copies dist/ instead
  } else {
    await run('npm', ['run', 'package']);
  }
});
if (wants('lint')) {
  await step('lint (ESLint)', () => run(node, [bin('eslint/bin/eslint.js'), '.', '--max-warnings', '0']));
  await step('format (Prettier)', () => run(node, [bin('prettier/bin/prettier.cjs'), '--check', '.', '--log-level', 'warn']));
}
if (wants('typecheck')) await step('type-check', () => run(node, [bin('typescript/bin/tsc'), '-p', '.', '--noEmit']));
if (wants('unit')) await step('unit tests', () => mochaLayer(['test/unit/**/*.test.ts'], testEnv));
const skipped = { ok: false, note: 'skipped: build or install failed' };
if (wants('exthost')) {
  await step(`extension-host tests, VS Code ${newest.vscode}`, async () =>
    built && harnessReady ? extensionHostLayer(testEnv, newest) : skipped,
  );
}
if (wants('e2e')) {
  await step(`e2e tests, VS Code ${newest.vscode}`, async () =>
    built && harnessReady ? mochaLayer(['--config', 'test/e2e/.mocharc.json', 'test/e2e/**/*.e2e.test.ts'], testEnv) : skipped,
  );
}
if (wants('oldest')) {
  const oldestEnv = { ...testEnv, DOCCHAT_VSCODE: oldest.name };
  await step(`extension-host tests, VS Code ${oldest.vscode}`, async () =>
    built && oldestReady ? extensionHostLayer(oldestEnv, oldest) : skipped,
  );
  await step(`e2e smoke test, VS Code ${oldest.vscode}`, async () =>
    built && oldestReady ? mochaLayer(['--config', 'test/e2e/.mocharc.json', SMOKE_TEST], oldestEnv) : skipped,
  );
}

console.log('\nSummary');
for (const s of steps) {
  const counts = s.passed !== undefined ? `${s.passed} passed, ${s.failed} failed${s.pending ? `, ${s.pending} pending` : ''}` : '';
  console.log(
    `  ${s.ok ? 'ok    ' : 'FAILED'} ${s.name.padEnd(40)} ${formatDuration(s.ms).padStart(8)}  ${counts}${s.note ? `  (${s.note})` : ''}`,
  );
  for (const failure of s.failures ?? []) console.log(`           ✘ ${failure}`);
}
console.log(`  total ${formatDuration(Date.now() - started)}; screenshots in test-results/\n`);
// Skipped (pending) tests stay visible in the closing line instead of vanishing.
console.log(`${totalPassed} passed, ${totalFailed} failed${totalSkipped ? `, ${totalSkipped} skipped` : ''}`);
process.exit(steps.every((s) => s.ok) ? 0 : 1);
