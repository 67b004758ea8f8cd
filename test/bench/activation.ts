/**
 * Benchmark 5, activation: module load and activate() time of DocChat inside the real VS Code
 * extension host (code-server 1.100.3 driven by the test harness), for the production build (as
 * `npm run package` ships it) and the development build in dist/; and the bundle sizes.
 * The installed copy's `main` is a small wrapper that requires the real bundle and times it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { launchVSCode } from '../support/harness';
import { repoRoot } from './lib/backendProcess';
import { main, progress, type BenchResult } from './lib/report';
import { goal, kb, ms, ratio, summarize } from './lib/stats';

const RUNS = Number(process.env.ACTIVATION_RUNS ?? 5);
const GOAL_ACTIVATE_MS = 10;
const GOAL_BUNDLE_KB = 400;

/** The production bundles, built like `node esbuild.mjs --production` (minified), into `outDir`. */
async function buildProduction(outDir: string): Promise<void> {
  const node = {
    bundle: true,
    minify: true,
    platform: 'node' as const,
    format: 'cjs' as const,
    target: 'node20',
    absWorkingDir: repoRoot,
    legalComments: 'linked' as const,
    external: ['vscode', 'canvas', 'bufferutil', 'utf-8-validate'],
    logLevel: 'warning' as const,
  };
  await Promise.all([
    esbuild.build({
      ...node,
      entryPoints: { extension: 'src/extension.ts', backend: 'src/backend/index.ts', 'backend-cli': 'src/backend/cli.ts' },
      outdir: outDir,
    }),
    esbuild.build({
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      absWorkingDir: repoRoot,
      legalComments: 'linked',
      entryPoints: { chat: 'media/chat/main.ts' },
      outdir: path.join(outDir, 'webview'),
      loader: { '.css': 'css' },
      logLevel: 'warning',
    }),
  ]);
  cpSync(path.join(repoRoot, 'dist/webview/codicons'), path.join(outDir, 'webview/codicons'), { recursive: true });
}

/** An installable extension folder whose main times the real bundle. */
function prepareExtension(dist: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-ext-'));
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  manifest.main = './dist/bench-activation.js';
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  cpSync(dist, path.join(dir, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.vsix') && !f.endsWith('.map') });
  cpSync(path.join(repoRoot, 'test/bench/activation/measuringMain.js'), path.join(dir, 'dist/bench-activation.js'));
  if (existsSync(path.join(repoRoot, 'media'))) cpSync(path.join(repoRoot, 'media'), path.join(dir, 'media'), { recursive: true });
  return dir;
}

interface Activation {
  loadMs: number;
  activateMs: number;
  settledMs: number;
}

async function measureOnce(extensionDir: string): Promise<Activation> {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-act-')), 'activation.jsonl');
  process.env.DOCCHAT_EXTENSION_DIR = extensionDir;
  const session = await launchVSCode({ name: 'bench-activation', env: { DOCCHAT_BENCH_ACTIVATION_OUT: out } });
  try {
    const deadline = Date.now() + 90_000;
    while (!existsSync(out) || !readFileSync(out, 'utf8').trim()) {
      if (Date.now() > deadline) {
        throw new Error(`DocChat did not activate within 90 s. Extension host log:\n${session.extensionHostLog().slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return JSON.parse(readFileSync(out, 'utf8').trim().split('\n')[0]!) as Activation;
  } finally {
    await session.close();
    rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .sort();
}

main(async (): Promise<BenchResult> => {
  const prodDist = path.join(repoRoot, 'out/bench/prod/dist');
  rmSync(prodDist, { recursive: true, force: true });
  mkdirSync(prodDist, { recursive: true });
  progress('building the production bundles');
  await buildProduction(prodDist);
  const devDist = path.join(repoRoot, 'dist');

  const variants = [
    { id: 'production', label: 'production build (minified, as packaged)', dir: prepareExtension(prodDist) },
    { id: 'development', label: 'development build (dist/ from npm run build)', dir: prepareExtension(devDist) },
  ];
  const samples = new Map<string, Activation[]>(variants.map((v) => [v.id, []]));
  const notes: string[] = [];
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const v of run % 2 ? variants : [...variants].reverse()) {
        progress(`activation run ${run}/${RUNS}: ${v.id}`);
        samples.get(v.id)!.push(await measureOnce(v.dir));
      }
    }
  } finally {
    for (const v of variants) rmSync(v.dir, { recursive: true, force: true });
  }

  const activationRows: (string | number)[][] = [];
  for (const v of variants) {
    for (const [key, label] of [
      ['loadMs', 'module load (require of dist/extension.js)'],
      ['activateMs', 'activate()'],
    ] as const) {
      const s = summarize(samples.get(v.id)!.map((a) => a[key]));
      activationRows.push([
        v.label,
        label,
        ms(s.median),
        ms(s.min),
        ms(s.max),
        key === 'activateMs' ? ratio(s.median, GOAL_ACTIVATE_MS) : '—',
        s.n,
      ]);
    }
  }
  const prodActivate = summarize(samples.get('production')!.map((a) => a.activateMs)).median;

  const sizeRows: (string | number)[][] = [];
  let extensionProdBytes = 0;
  for (const file of jsFiles(prodDist)) {
    const prod = statSync(path.join(prodDist, file)).size;
    const dev = existsSync(path.join(devDist, file)) ? statSync(path.join(devDist, file)).size : Number.NaN;
    if (file === 'extension.js') extensionProdBytes = prod;
    const gz = gzipSync(readFileSync(path.join(prodDist, file))).length;
    sizeRows.push([
      `dist/${file}`,
      kb(prod),
      kb(gz),
      Number.isFinite(dev) ? kb(dev) : 'n/a',
      file === 'extension.js' ? ratio(prod / 1024, GOAL_BUNDLE_KB) : '—',
    ]);
  }
  const metActivate = prodActivate <= GOAL_ACTIVATE_MS;
  const metBundle = extensionProdBytes / 1024 <= GOAL_BUNDLE_KB;
  if (!metActivate) notes.push(`activate() takes ${ms(prodActivate)} ms in the production build (goal ≤ ${GOAL_ACTIVATE_MS} ms).`);
  if (!metBundle) notes.push(`The production extension bundle is ${kb(extensionProdBytes)} KB (goal ≤ ${GOAL_BUNDLE_KB} KB).`);
  return {
    id: 'activation',
    title: 'Activation and bundle size',
    goal: `activate() ≤ ${GOAL_ACTIVATE_MS} ms inside the extension host; extension bundle ≤ ${GOAL_BUNDLE_KB} KB.`,
    method: `code-server 4.100.3 (VS Code 1.100.3) started by the test harness with a fresh profile per run, opened in headless Chromium; DocChat activates on \`onStartupFinished\`. The installed copy's \`main\` is a wrapper that times \`require('./extension.js')\` and the real \`activate(context)\` with performance.now() inside the extension host. ${RUNS} runs per build, interleaved.`,
    tables: [
      {
        caption: 'Inside the extension host (ms)',
        columns: ['build', 'step', 'median', 'min', 'max', '× goal (10 ms)', 'n'],
        rows: activationRows,
      },
      {
        caption: 'Bundle sizes (KB)',
        columns: ['bundle', 'production', 'production gzip', 'development (dist/)', '× goal (400 KB)'],
        rows: sizeRows,
      },
      {
        caption: 'Goals (production build)',
        columns: ['goal', 'measured', 'target', 'goal met'],
        rows: [
          ['activate()', `${ms(prodActivate)} ms`, `≤ ${GOAL_ACTIVATE_MS} ms`, goal(metActivate)],
          ['extension bundle (dist/extension.js)', `${kb(extensionProdBytes)} KB`, `≤ ${GOAL_BUNDLE_KB} KB`, goal(metBundle)],
        ],
      },
    ],
    notes,
  };
});
