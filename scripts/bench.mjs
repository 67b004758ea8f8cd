// `npm run bench [-- name…]`: builds DocChat if needed, bundles the benchmarks in test/bench,
// runs each one in its own process, prints markdown tables and writes test/bench/RESULTS.md.
// Benchmarks are not tests: they never run in `npm test` and assert nothing about time.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(repoRoot, 'out/bench');
const resultsDir = path.join(outDir, 'results');
const resultsFile = path.join(repoRoot, 'test/bench/RESULTS.md');

/** Benchmarks in run order; `workers` are extra entry points run in child processes. */
const BENCHMARKS = [
  { id: 'streaming', entry: 'test/bench/streaming.ts', workers: { streamWorker: 'test/bench/streaming/worker.ts' } },
  { id: 'listing', entry: 'test/bench/listing.ts', workers: {} },
  { id: 'sync', entry: 'test/bench/sync.ts', workers: {} },
  { id: 'backend', entry: 'test/bench/backend.ts', workers: { backendWorker: 'test/bench/backend/worker.ts' } },
  { id: 'mcp', entry: 'test/bench/mcp.ts', workers: {} },
  { id: 'localmode', entry: 'test/bench/localmode.ts', workers: { localmodeWorker: 'test/bench/localmode/worker.ts' } },
  { id: 'retrieval', entry: 'test/bench/retrieval.ts', workers: {} },
  { id: 'answers', entry: 'test/bench/answers.ts', workers: {} },
  // Needs a BEIR dataset outside the repository (DOCCHAT_BEIR=/path/to/scifact); skipped without one.
  { id: 'beir', entry: 'test/bench/beir.ts', workers: {} },
  // Needs a conversation set in MT-RAG's layout (--data DIR, or shared/benchmarks/conversations above the repository).
  { id: 'conversations', entry: 'test/bench/conversations.ts', workers: {} },
  // Local mode's answers on the same conversation set (skipped without it).
  { id: 'answers-public', entry: 'test/bench/answersPublic.ts', workers: {} },
  // From source with tsx: OCR starts its engine's thread from the sources when there is no dist/ocr beside the bundle.
  { id: 'conversion', entry: 'test/bench/conversion.ts', workers: {}, fromSource: true },
  // Chromium and code-server runs hold the lock the UI tests use, so they never overlap.
  { id: 'rendering', entry: 'test/bench/rendering.ts', workers: {}, exclusive: true },
  // Run from source with tsx: the test harness finds the repository relative to its own files.
  { id: 'activation', entry: 'test/bench/activation.ts', workers: {}, exclusive: true, fromSource: true },
  { id: 'latency', entry: 'test/bench/latency.ts', workers: {}, exclusive: true, fromSource: true },
];

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

function newestMtime(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(target).map((name) => newestMtime(path.join(target, name))));
}

/** Rebuilds dist/ when a source is newer than the bundles (or a bundle is missing). */
function buildIfNeeded() {
  const bundles = ['dist/extension.js', 'dist/backend.js', 'dist/backend-cli.js', 'dist/webview/chat.js'].map((f) =>
    path.join(repoRoot, f),
  );
  const oldestBundle = Math.min(...bundles.map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  const newestSource = Math.max(...['src', 'media', 'package.json', 'esbuild.mjs'].map((f) => newestMtime(path.join(repoRoot, f))));
  if (oldestBundle >= newestSource) return;
  log('building DocChat (npm run build)');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
  if (build.status !== 0) {
    if (bundles.every((f) => existsSync(f))) log('the build failed; measuring the existing dist/ bundles');
    else throw new Error('npm run build failed and dist/ is incomplete');
  }
}

async function bundleBenchmarks(selected) {
  const esbuild = await import('esbuild');
  const entryPoints = {};
  for (const b of selected) {
    if (!b.fromSource) entryPoints[b.id] = b.entry;
    Object.assign(entryPoints, b.workers);
  }
  await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    // Dependencies load from node_modules as they would for the extension's own bundle at run time.
    packages: 'external',
    logLevel: 'warning',
  });
}

/** Resolves the result, `skipped` (it exited 0 and wrote none: its data is not here), or undefined on failure. */
function runBenchmark(benchmark) {
  return new Promise((resolve) => {
    const out = path.join(resultsDir, `${benchmark.id}.json`);
    rmSync(out, { force: true });
    const started = Date.now();
    const loadBefore = os.loadavg()[0];
    const script = benchmark.fromSource
      ? ['--import', 'tsx', path.join(repoRoot, benchmark.entry)]
      : [path.join(outDir, `${benchmark.id}.js`)];
    const node = [process.execPath, '--expose-gc', ...script, '--out', out];
    const [command, ...args] = benchmark.exclusive ? ['flock', '/tmp/docchat-e2e.lock', ...node] : node;
    const child = spawn(command, args, {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      if (code !== 0) {
        log(`${benchmark.id} failed (exit ${code}) after ${seconds} s`);
        return resolve(undefined);
      }
      if (!existsSync(out)) {
        log(`${benchmark.id} skipped; RESULTS.md keeps its last section`);
        return resolve('skipped');
      }
      const result = JSON.parse(readFileSync(out, 'utf8'));
      result.measuredAt = new Date().toISOString();
      result.seconds = Number(seconds);
      // Other work on the machine skews absolute times (ratios are measured interleaved).
      result.load = [loadBefore, os.loadavg()[0]].map((l) => Number(l.toFixed(2)));
      writeFileSync(out, JSON.stringify(result, null, 2));
      log(`${benchmark.id} done in ${seconds} s`);
      resolve(result);
    });
  });
}

function cell(value) {
  return String(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function markdownTable(table) {
  const lines = [
    `**${table.caption}**`,
    '',
    `| ${table.columns.map(cell).join(' | ')} |`,
    `|${table.columns.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
  ];
  for (const row of table.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function section(result) {
  const parts = [`## ${result.title}`, '', `Goal: ${result.goal}`, '', result.method, ''];
  for (const table of result.tables) parts.push(markdownTable(table), '');
  if (result.notes.length) parts.push(...result.notes.map((n) => `- ${n}`), '');
  const load = result.load ? `; 1-minute load average ${result.load[0]} before, ${result.load[1]} after` : '';
  parts.push(`_Measured ${result.measuredAt.slice(0, 16).replace('T', ' ')} UTC in ${result.seconds} s${load}._`, '');
  return parts.join('\n');
}

function machineFacts() {
  const cpus = os.cpus();
  return [
    `- Node ${process.version} on ${os.type()} ${os.release()} (${os.arch()})`,
    `- ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB memory`,
    `- Run on ${new Date().toISOString().slice(0, 10)}`,
  ].join('\n');
}

// `--beir=<folder>`: the BEIR dataset the `beir` benchmark measures (same as DOCCHAT_BEIR=<folder>).
const beirArg = process.argv.find((a) => a.startsWith('--beir='));
if (beirArg) process.env.DOCCHAT_BEIR = path.resolve(beirArg.slice('--beir='.length));
// `--data DIR`, `--model-url URL`, `--model NAME`, `--embed-url URL`, `--embed-model NAME` (also as
// `--data=DIR`…): the `conversations` benchmark's data set, the OpenAI-compatible server whose
// model rewrites follow-ups, and the one whose embedding model measures the relevance check by meaning.
const VALUE_FLAGS = {
  '--data': 'DOCCHAT_CONVERSATIONS',
  '--model-url': 'DOCCHAT_MODEL_URL',
  '--model': 'DOCCHAT_MODEL',
  '--embed-url': 'DOCCHAT_EMBED_URL',
  '--embed-model': 'DOCCHAT_EMBED_MODEL',
};
const argv = process.argv.slice(2);
const positional = [];
for (let i = 0; i < argv.length; i++) {
  const [flag, inline] = argv[i].split(/=(.*)/s, 2);
  if (flag in VALUE_FLAGS) {
    const value = inline ?? argv[++i];
    if (value === undefined) {
      log(`${flag} needs a value`);
      process.exit(2);
    }
    process.env[VALUE_FLAGS[flag]] = flag === '--data' ? path.resolve(value) : value;
  } else if (!argv[i].startsWith('-')) positional.push(argv[i]);
}
const requested = positional;
const unknown = requested.filter((id) => !BENCHMARKS.some((b) => b.id === id));
if (unknown.length) {
  log(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.id).join(', ')}`);
  process.exit(2);
}
const selected = requested.length ? BENCHMARKS.filter((b) => requested.includes(b.id)) : BENCHMARKS;

// `--write-only` rewrites RESULTS.md from the last results in out/bench without running anything.
const writeOnly = process.argv.includes('--write-only');
if (!writeOnly) buildIfNeeded();
mkdirSync(resultsDir, { recursive: true });
if (!writeOnly) await bundleBenchmarks(selected);
let failed = 0;
for (const benchmark of writeOnly ? [] : selected) {
  log(`running ${benchmark.id}`);
  const result = await runBenchmark(benchmark);
  if (!result) failed++;
  else if (result !== 'skipped') process.stdout.write(`\n${section(result)}\n`);
}

// RESULTS.md holds the latest result of every benchmark (each section says when it was measured).
// A benchmark with no result in this checkout's out/bench keeps the section RESULTS.md has.
const fresh = new Map(
  BENCHMARKS.map((b) => path.join(resultsDir, `${b.id}.json`))
    .filter((f) => existsSync(f))
    .map((f) => JSON.parse(readFileSync(f, 'utf8')))
    .map((result) => [result.title, section(result)]),
);
const previous = existsSync(resultsFile)
  ? readFileSync(resultsFile, 'utf8')
      .split(/^(?=## )/m)
      .slice(1)
      .map((text) => ({ title: text.slice(3, text.indexOf('\n')).trim(), text: `${text.trimEnd()}\n` }))
  : [];
const sections = [
  ...previous.map((p) => fresh.get(p.title) ?? p.text),
  ...[...fresh].filter(([title]) => !previous.some((p) => p.title === title)).map(([, text]) => text),
];
const header = [
  '# DocChat benchmarks',
  '',
  'Written by `npm run bench` (scripts/bench.mjs); do not edit by hand. Medians of repeated runs;',
  '"× floor" and "× SDK" are ratios of medians. A goal that is missed says **NO**.',
  '',
  machineFacts(),
  '',
].join('\n');
writeFileSync(resultsFile, `${header}\n${sections.join('\n')}`);
log(`wrote ${path.relative(repoRoot, resultsFile)}`);
process.exit(failed ? 1 : 0);
