#!/usr/bin/env node
// `npm run mutation -- --named`: the breaks written by hand in scripts/mutants.mjs, each beside the
// test meant to catch it (modules StrykerJS does not cover yet, and regressions once found). Applies
// each break, one at a time, to a copy of the tree in a temporary folder, runs only the test files
// that should catch it (mocha, stopping at the first failure), and reports each break as killed (a
// test failed) or survived (every test still passed). The working tree is never touched.
//
//   npm run mutation -- --named [--only=name,name] [--area=src/backend,src/api] [--list] [--no-bail]
// --no-bail runs every test of a break's files and prints how many failed (to see that each test
// a break is meant for fails, not only the first).
// Exits non-zero when a break survives or cannot be applied (its code moved: update the list).
// Node built-ins only.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDuration, log, repoRoot } from './lib/common.mjs';
import { MUTANTS } from './mutants.mjs';

const args = process.argv.slice(2).filter((a) => a !== '--named');
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = option('only')?.split(',');
const areas = option('area')?.split(',');
/** A break mocha has not finished with in this long is counted as killed by a hang, and said so. */
const MUTANT_TIMEOUT_MS = 3 * 60_000;

const unknown = only?.filter((name) => !MUTANTS.some((m) => m.name === name)) ?? [];
if (unknown.length) {
  console.error(`[docchat] unknown break: ${unknown.join(', ')}; see scripts/mutants.mjs or --list`);
  process.exit(2);
}
const selected = MUTANTS.filter((m) => (!only || only.includes(m.name)) && (!areas || areas.some((a) => m.file.startsWith(a))));
if (args.includes('--list')) {
  for (const m of selected) console.log(`${m.name.padEnd(34)} ${m.file}\n${''.padEnd(35)}${m.description}`);
  process.exit(0);
}

/** A copy of what the unit tests read; node_modules is linked, not copied. */
function copyTree() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-mutation-'));
  for (const entry of ['src', 'test', 'media', 'package.json', 'tsconfig.json', '.mocharc.json']) {
    cpSync(path.join(repoRoot, entry), path.join(dir, entry), { recursive: true });
  }
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** The source with the break applied; throws when the text to replace is not there exactly once. */
function mutate(source, mutant) {
  const count = source.split(mutant.find).length - 1;
  if (count !== 1) throw new Error(`${mutant.name}: the code it breaks appears ${count} times in ${mutant.file}, not once`);
  return source.replace(mutant.find, () => mutant.replace);
}

const bail = !args.includes('--no-bail');

function runTests(dir, mutant) {
  const mochaArgs = [
    ...(bail ? ['--bail'] : []),
    '--exit',
    '--reporter',
    'dot',
    ...(mutant.grep ? ['--grep', mutant.grep] : []),
    ...mutant.tests,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(dir, 'node_modules/mocha/bin/mocha.js'), ...mochaArgs], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'test' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), MUTANT_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, signal, output });
    });
  });
}

/** The first failing test's title and error, from mocha's report ("1) suite\n  title:\n  Error…"). */
function firstFailure(output) {
  const at = output.indexOf('\n  1) ');
  if (at < 0) return output.trim().split('\n').slice(-3).join(' ');
  const lines = output
    .slice(at + 6)
    .split('\n')
    .map((line) => line.trim());
  const titleEnd = lines.findIndex((line) => line.endsWith(':'));
  const title = lines
    .slice(0, titleEnd + 1)
    .join(' › ')
    .replace(/:$/, '');
  return `${title}: ${lines.slice(titleEnd + 1).find(Boolean) ?? ''}`;
}

function failingCount(output) {
  return /(\d+ failing)/.exec(output)?.[1] ?? 'failed';
}

const dir = copyTree();
const started = Date.now();
const results = [];
try {
  log(`${selected.length} breaks, tree copied to ${dir}`);
  for (const mutant of selected) {
    const file = path.join(dir, mutant.file);
    const original = readFileSync(file, 'utf8');
    const at = Date.now();
    let result;
    try {
      writeFileSync(file, mutate(original, mutant));
      const run = await runTests(dir, mutant);
      result = run.signal
        ? { status: 'killed', note: `no end within ${formatDuration(MUTANT_TIMEOUT_MS)} (a hang)` }
        : run.code === 0
          ? { status: 'survived', note: `${mutant.tests.join(', ')} all pass` }
          : { status: 'killed', note: `${failingCount(run.output)}, first: ${firstFailure(run.output)}` };
    } catch (error) {
      result = { status: 'error', note: error.message };
    } finally {
      writeFileSync(file, original);
    }
    results.push({ mutant, ...result, ms: Date.now() - at });
    log(`${result.status.toUpperCase().padEnd(8)} ${mutant.name} (${formatDuration(Date.now() - at)}): ${result.note}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const killed = results.filter((r) => r.status === 'killed').length;
const survived = results.filter((r) => r.status === 'survived');
const errors = results.filter((r) => r.status === 'error');
console.log('\n| area | breaks | killed | survived |\n|---|---:|---:|---:|');
for (const area of [...new Set(results.map((r) => r.mutant.file.split('/').slice(0, 2).join('/')))]) {
  const inArea = results.filter((r) => r.mutant.file.startsWith(`${area}/`));
  const k = inArea.filter((r) => r.status === 'killed').length;
  console.log(`| ${area} | ${inArea.length} | ${k} | ${inArea.filter((r) => r.status === 'survived').length} |`);
}
const score = results.length ? Math.round((100 * killed) / (results.length - errors.length || 1)) : 0;
log(`mutation score ${score}% (${killed} of ${results.length - errors.length} breaks killed) in ${formatDuration(Date.now() - started)}`);
for (const r of survived) log(`survived: ${r.mutant.name} — ${r.mutant.description}`);
for (const r of errors) log(`could not apply: ${r.note}`);
process.exit(survived.length || errors.length ? 1 : 0);
