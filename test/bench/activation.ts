/**
 * Benchmark 5, activation: module load and activate() time of DocChat inside the real VS Code
 * extension host (the code-servers of both tested VS Code versions, ACTIVATION_VSCODE=newest,oldest by
 * default, driven by the test harness), set against the floor extension's (test/bench/floor) in
 * the same extension host, and the size of the extension bundle, for the design before lazy activation (a baseline commit, activated at startup with
 * everything in one bundle; ACTIVATION_BASELINE_REF names another) and the current tree (activated
 * when DocChat is first used, the API clients with zod and the HTTP library in bundles of their own
 * loaded at first use), side by side in one run. Each is built by its own esbuild.mjs with
 * --production, as `npm run package` ships it. The installed copy's `main` is a small wrapper that
 * requires the real bundle and times it (and, with ACTIVATION_CPU_PROFILE=<folder>, profiles it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchVSCode, pollUntil, vscodeTarget } from '../support/harness';
import { repoRoot } from './lib/backendProcess';
import { main, progress, type BenchResult } from './lib/report';
import { feltFigures, feltRow, FELT_COLUMNS, FLOOR_DIR, FLOOR_EXTENSION_ID, type FeltGoal } from './latency/floor';
import { goal, kb, ms, ratio, summarize } from './lib/stats';

const RUNS = Number(process.env.ACTIVATION_RUNS ?? 5);
/** The VS Code versions measured one after the other (scripts/lib/vscode-versions.json). */
const TARGETS = (process.env.ACTIVATION_VSCODE ?? 'newest,oldest')
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);
/** The last commit of the startup-activated design (main before lazy activation). */
const BASELINE_REF = process.env.ACTIVATION_BASELINE_REF ?? '1cf2b69';
/** Another baseline (ACTIVATION_BASELINE_REF, e.g. main before a change) is named by its commit only. */
const STARTUP_BASELINE = process.env.ACTIVATION_BASELINE_REF === undefined;
/**
 * A folder for CPU profiles of the current tree's module load + activate() (one per run, written by
 * the wrapper); the profiler slows what it measures, so such a run's times are not the figures.
 */
const CPU_PROFILE_DIR = process.env.ACTIVATION_CPU_PROFILE;
const GOAL_LOAD_AND_ACTIVATE_MS = 20;
const GOAL_BUNDLE_KB = 400;

/** What a build needs: its sources, manifest and build script; node_modules is this checkout's. */
const BUILD_INPUTS = ['src', 'media', 'esbuild.mjs', 'scripts/lib', 'package.json', 'package.nls.json', 'tsconfig.json'];

/** Builds a source tree with its own `esbuild.mjs --production`; returns the folder holding dist/. */
function buildProduction(tree: string): string {
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
  const build = spawnSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error(`the production build in ${tree} failed`);
  return tree;
}

/** The baseline commit's sources, from git. */
function baselineTree(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-baseline-'));
  const archive = execFileSync('git', ['archive', '--format=tar', BASELINE_REF, ...BUILD_INPUTS], { cwd: repoRoot, maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

/** This checkout's sources as they are now (committed or not). */
function currentTree(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-current-'));
  for (const input of BUILD_INPUTS) cpSync(path.join(repoRoot, input), path.join(dir, input), { recursive: true });
  return dir;
}

/** An installable extension folder with the tree's manifest, whose main times the real bundle. */
function prepareExtension(tree: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-ext-'));
  const manifest = JSON.parse(readFileSync(path.join(tree, 'package.json'), 'utf8'));
  manifest.main = './dist/bench-activation.js';
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  cpSync(path.join(tree, 'package.nls.json'), path.join(dir, 'package.nls.json'));
  cpSync(path.join(tree, 'dist'), path.join(dir, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.vsix') && !f.endsWith('.map') });
  cpSync(path.join(repoRoot, 'test/bench/activation/measuringMain.js'), path.join(dir, 'dist/bench-activation.js'));
  cpSync(path.join(tree, 'media'), path.join(dir, 'media'), { recursive: true });
  return dir;
}

interface Activation {
  /** The extension's id, as the wrapper reports it. */
  extension?: string;
  loadMs: number;
  activateMs: number;
  settledMs: number;
  /** CPU time of the extension host's process during the same steps. */
  loadCpuMs: number;
  activateCpuMs: number;
}

/** The floor extension with the timing wrapper as its `main`, so its module load + activate() is timed the same way. */
function prepareFloor(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-floor-'));
  cpSync(FLOOR_DIR, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  manifest.main = './bench-activation.js';
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  cpSync(path.join(repoRoot, 'test/bench/activation/measuringMain.js'), path.join(dir, 'bench-activation.js'));
  return dir;
}

/** One launch: DocChat's activation and, with `floorDir`, the floor's, activated by showing its view next. */
async function measureOnce(
  extensionDir: string,
  profileDir: string | undefined,
  floorDir: string | undefined,
): Promise<{ docchat: Activation; floor?: Activation }> {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-act-')), 'activation.jsonl');
  process.env.DOCCHAT_EXTENSION_DIR = extensionDir;
  const env: Record<string, string> = { DOCCHAT_BENCH_ACTIVATION_OUT: out };
  if (profileDir) env.DOCCHAT_BENCH_ACTIVATION_PROFILE = profileDir;
  const session = await launchVSCode({ name: 'bench-activation', env, extraExtensions: floorDir ? [floorDir] : [] });
  // The wrappers append their lines while this reads: a line still being written is skipped.
  const parse = (line: string): Activation[] => {
    try {
      return [JSON.parse(line) as Activation];
    } catch {
      return [];
    }
  };
  const records = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []).flatMap(parse);
  const of = (list: Activation[], id: string) => list.find((a) => a.extension === id);
  try {
    // Both designs activate by the time the harness has shown the DocChat view (its first use).
    const first = await pollUntil(records, (list) => list.some((a) => a.extension !== FLOOR_EXTENSION_ID), {
      timeoutMs: 90_000,
      intervalMs: 200,
      what: 'DocChat activating',
    });
    const docchat = first.find((a) => a.extension !== FLOOR_EXTENSION_ID)!;
    if (!floorDir) return { docchat };
    // The floor activates when its view is first shown, as DocChat did.
    await session.openView('Floor');
    const list = await pollUntil(records, (l) => of(l, FLOOR_EXTENSION_ID) !== undefined, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'the floor extension activating',
    });
    return { docchat, floor: of(list, FLOOR_EXTENSION_ID) };
  } finally {
    await session.close();
    rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

function size(file: string): { bytes: number; gzip: number } | undefined {
  if (!existsSync(file)) return undefined;
  return { bytes: statSync(file).size, gzip: gzipSync(readFileSync(file)).length };
}

main(async (): Promise<BenchResult> => {
  progress(`building the baseline (${BASELINE_REF}) and the current tree with --production`);
  const trees = [
    {
      id: 'old',
      label: STARTUP_BASELINE ? `startup activation, one bundle (${BASELINE_REF})` : `the tree at ${BASELINE_REF}`,
      tree: buildProduction(baselineTree()),
    },
    {
      id: 'new',
      label: 'activation on first use, the API clients and zod at first use, undici at first request (this tree)',
      tree: buildProduction(currentTree()),
    },
  ];
  const variants = trees.map((t) => ({ ...t, dir: prepareExtension(t.tree) }));
  const floorDir = prepareFloor();
  const samples = new Map<string, Activation[]>();
  const floorSamples = new Map<string, Activation[]>();
  const loads = new Map<string, [number, number]>();
  const key = (target: string, id: string) => `${target}/${id}`;
  const notes: string[] = [];
  try {
    for (const target of TARGETS) {
      process.env.DOCCHAT_VSCODE = target;
      const version = vscodeTarget().vscode;
      loads.set(target, [os.loadavg()[0]!, Number.NaN]);
      for (const v of variants) samples.set(key(target, v.id), []);
      floorSamples.set(target, []);
      for (let run = 1; run <= RUNS; run++) {
        for (const v of run % 2 ? variants : [...variants].reverse()) {
          progress(`VS Code ${version}, activation run ${run}/${RUNS}: ${v.id}${v.id === 'new' ? ' and the floor' : ''}`);
          const isNew = v.id === 'new';
          const sample = await measureOnce(v.dir, isNew ? CPU_PROFILE_DIR : undefined, isNew ? floorDir : undefined);
          samples.get(key(target, v.id))!.push(sample.docchat);
          if (sample.floor) floorSamples.get(target)!.push(sample.floor);
          const d = sample.docchat;
          const f = sample.floor;
          progress(
            `  ${v.id}: load ${ms(d.loadMs)} + activate ${ms(d.activateMs)} ms (CPU ${ms(d.loadCpuMs)} + ${ms(d.activateCpuMs)} ms)${f ? `; floor ${ms(f.loadMs)} + ${ms(f.activateMs)} ms` : ''}`,
          );
        }
      }
      loads.get(target)![1] = os.loadavg()[0]!;
    }
  } finally {
    for (const v of variants) {
      rmSync(v.dir, { recursive: true, force: true });
    }
    rmSync(floorDir, { recursive: true, force: true });
  }

  const summaryOf = (id: string) => {
    const runs = samples.get(id)!;
    return {
      load: summarize(runs.map((a) => a.loadMs)),
      activate: summarize(runs.map((a) => a.activateMs)),
      total: summarize(runs.map((a) => a.loadMs + a.activateMs)),
      totalCpu: summarize(runs.map((a) => a.loadCpuMs + a.activateCpuMs)),
    };
  };
  const steps = [
    ['module load (require of dist/extension.js)', 'load'],
    ['activate()', 'activate'],
    ['module load + activate()', 'total'],
    ['CPU time of module load + activate()', 'totalCpu'],
  ] as const;
  const versionOf = (target: string) => vscodeTarget(target).vscode;
  const activationRows = TARGETS.flatMap((target) => {
    const old = summaryOf(key(target, 'old'));
    const now = summaryOf(key(target, 'new'));
    return steps.map(([label, step]) => [
      versionOf(target),
      label,
      ms(old[step].median),
      ms(now[step].median),
      ratio(now[step].median, old[step].median),
      `${ms(old[step].min)}–${ms(old[step].max)}`,
      `${ms(now[step].min)}–${ms(now[step].max)}`,
      step === 'total' ? ratio(now.total.median, GOAL_LOAD_AND_ACTIVATE_MS) : '—',
      now[step].n,
    ]);
  });
  const floorGoal: FeltGoal = { kind: 'overhead', maxMs: GOAL_LOAD_AND_ACTIVATE_MS };
  const floorRows = TARGETS.map((target) => {
    const total = (a: Activation) => a.loadMs + a.activateMs;
    const figures = feltFigures(
      { docchat: samples.get(key(target, 'new'))!.map(total), floor: floorSamples.get(target)!.map(total) },
      floorGoal,
    );
    if (!figures.met) {
      notes.push(
        `VS Code ${versionOf(target)}: DocChat's module load + activate() is ${ms(figures.overhead.p50)} ms over the floor's (p50; goal ≤ ${GOAL_LOAD_AND_ACTIVATE_MS} ms).`,
      );
    }
    const [before, after] = loads.get(target)!;
    return feltRow(versionOf(target), 'module load + activate()', figures, floorGoal, `${before.toFixed(2)} → ${after.toFixed(2)}`);
  });
  const goalRows = TARGETS.map((target) => {
    const old = summaryOf(key(target, 'old'));
    const now = summaryOf(key(target, 'new'));
    const met = now.total.median <= GOAL_LOAD_AND_ACTIVATE_MS;
    if (!met) {
      notes.push(
        `VS Code ${versionOf(target)}: module load + activate() takes ${ms(now.total.median)} ms (goal ≤ ${GOAL_LOAD_AND_ACTIVATE_MS} ms).`,
      );
    }
    return [
      `VS Code ${versionOf(target)}: module load + activate()`,
      `${ms(old.total.median)} ms`,
      `${ms(now.total.median)} ms`,
      `≤ ${GOAL_LOAD_AND_ACTIVATE_MS} ms`,
      goal(met),
    ];
  });

  const atFirstUse: Record<string, string> = { 'first-use.js': ' (loaded at first use)', 'undici.js': ' (loaded at the first request)' };
  const bundles = ['extension.js', 'first-use.js', 'undici.js', 'backend-cli.js', 'webview/chat.js'];
  const sizeRows = bundles.map((file) => {
    const before = size(path.join(variants[0]!.tree, 'dist', file));
    const after = size(path.join(variants[1]!.tree, 'dist', file));
    return [
      `dist/${file}${atFirstUse[file] ?? ''}`,
      before ? kb(before.bytes) : '—',
      after ? kb(after.bytes) : '—',
      after ? kb(after.gzip) : '—',
      before && after ? ratio(after.bytes, before.bytes) : '—',
      file === 'extension.js' && after ? ratio(after.bytes / 1024, GOAL_BUNDLE_KB) : '—',
    ];
  });
  const oldExtensionBytes = size(path.join(variants[0]!.tree, 'dist/extension.js'))!.bytes;
  const extensionBytes = size(path.join(variants[1]!.tree, 'dist/extension.js'))!.bytes;
  for (const v of variants) rmSync(v.tree, { recursive: true, force: true });

  const metBundle = extensionBytes / 1024 <= GOAL_BUNDLE_KB;
  if (!metBundle) notes.push(`The extension bundle is ${kb(extensionBytes)} KB (goal ≤ ${GOAL_BUNDLE_KB} KB).`);
  if (STARTUP_BASELINE) {
    notes.push(
      'The old design activates at startup in every window (`onStartupFinished`) and connects at once; the new one activates when DocChat is first used (its view, a command, the chat panel, `@docchat`) and loads undici at its first request, so a window that never uses DocChat pays nothing.',
    );
  }
  return {
    id: 'activation',
    title: 'Activation and bundle size',
    goal: `module load + activate() ≤ ${GOAL_LOAD_AND_ACTIVATE_MS} ms inside the extension host; extension bundle ≤ ${GOAL_BUNDLE_KB} KB minified.`,
    method: `${TARGETS.map((t) => `code-server ${vscodeTarget(t).codeServer} (VS Code ${vscodeTarget(t).vscode})`).join(' and ')}, one after the other in one run, each started by the test harness with a fresh profile per run, opened in headless Chromium; the harness then shows the DocChat view, as a user does first. The installed copy's \`main\` is a wrapper that times \`require('./extension.js')\` and the real \`activate(context)\` with performance.now() inside the extension host. Old design: commit ${BASELINE_REF}; new: this tree; both built with their own \`esbuild.mjs --production\`. ${RUNS} runs per design and version, interleaved. The floor is test/bench/floor, a bare extension with a tree view and four commands, installed beside the new design with the same timing wrapper and activated by showing its view right after DocChat's; its overhead row is DocChat's module load + activate() minus the floor's, p50 and p95, with the 1-minute load average when the version's runs started and ended.${CPU_PROFILE_DIR ? ` CPU profiles of the new design in ${CPU_PROFILE_DIR} (the profiler slows what it measures: these times are not comparable).` : ''}`,
    tables: [
      {
        caption: 'Inside the extension host (ms, medians)',
        columns: [
          'VS Code',
          'step',
          'old design',
          'new design',
          'new ÷ old',
          'old min–max',
          'new min–max',
          `× goal (${GOAL_LOAD_AND_ACTIVATE_MS} ms)`,
          'n',
        ],
        rows: activationRows,
      },
      {
        caption:
          'DocChat (new design) against the floor: the bare extension of the latency benchmark, installed beside it and timed by the same wrapper in the same extension host (ms)',
        columns: FELT_COLUMNS,
        rows: floorRows,
      },
      {
        caption: 'Bundle sizes (KB, minified)',
        columns: ['bundle', 'old design', 'new design', 'new gzip', 'new ÷ old', `× goal (${GOAL_BUNDLE_KB} KB)`],
        rows: sizeRows,
      },
      {
        caption: 'Goals (new design)',
        columns: ['goal', 'old design', 'new design', 'target', 'goal met'],
        rows: [
          ...goalRows,
          [
            'extension bundle (dist/extension.js)',
            `${kb(oldExtensionBytes)} KB`,
            `${kb(extensionBytes)} KB`,
            `≤ ${GOAL_BUNDLE_KB} KB`,
            goal(metBundle),
          ],
        ],
      },
    ],
    notes,
  };
});
