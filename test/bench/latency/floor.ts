/**
 * The floor of the latency benchmark: test/bench/floor, a bare extension installed beside DocChat
 * in the same code-server, does each UI operation with no work behind it. A row of the benchmark
 * sets DocChat's time against the floor's in the same VS Code and the same run; DocChat's own
 * overhead is the difference. Where DocChat also waits for a server (a search, a page of files,
 * a first token), the floor is the bare extension's time plus that server's raw round trip,
 * measured interleaved: no extension can answer before the server does.
 */
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { repoRoot } from '../lib/backendProcess';
import { goal, ms, percentile, ratio } from '../lib/stats';

export const FLOOR_DIR = path.join(repoRoot, 'test/bench/floor');
export const FLOOR_EXTENSION_ID = 'docchat-bench.floor';
export const FRAME_MS = 16.7;
/** The panel may take at most this many times its floor. */
export const PANEL_GOAL_RATIO = 1.2;

export type FeltGoal = { kind: 'overhead'; maxMs: number } | { kind: 'ratio'; max: number };

export interface FeltSamples {
  /** DocChat's times (ms), one per run. */
  docchat: number[];
  /** The bare extension's times (ms) for the same operation, one per run. */
  floor: number[];
  /** The server's raw round trip (ms) DocChat had to wait for in the same run, if any. */
  server?: number[];
}

export interface FeltFigures {
  docchat: { p50: number; p95: number };
  /** VS Code's floor with the server's round trip added, per run. */
  floor: { p50: number; p95: number };
  server?: { p50: number; p95: number };
  overhead: { p50: number; p95: number };
  ratio: { p50: number; p95: number };
  met: boolean;
  n: number;
}

const pair = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

/**
 * DocChat, its floor and DocChat's own overhead (difference of the percentiles, and their ratio).
 * With `server`, the floor of run i is floor[i] + server[i].
 */
export function feltFigures(samples: FeltSamples, target: FeltGoal): FeltFigures {
  const { docchat, floor, server } = samples;
  if (!docchat.length || !floor.length) throw new Error('a felt-latency row needs DocChat and floor samples');
  if (server && server.length !== floor.length) {
    throw new Error(`the floor has ${floor.length} runs but the server ${server.length}: they are added run by run`);
  }
  const floorTotal = server ? floor.map((f, i) => f + server[i]!) : floor;
  const d = pair(docchat);
  const f = pair(floorTotal);
  const overhead = { p50: d.p50 - f.p50, p95: d.p95 - f.p95 };
  const ratios = { p50: d.p50 / f.p50, p95: d.p95 / f.p95 };
  const met = target.kind === 'overhead' ? overhead.p50 <= target.maxMs : ratios.p50 <= target.max;
  return { docchat: d, floor: f, server: server ? pair(server) : undefined, overhead, ratio: ratios, met, n: docchat.length };
}

export function describeGoal(target: FeltGoal): string {
  return target.kind === 'overhead' ? `overhead p50 ≤ ${ms(target.maxMs)} ms` : `≤ ${target.max}× floor (p50)`;
}

export const FELT_COLUMNS = [
  'VS Code',
  'row',
  'DocChat p50',
  'DocChat p95',
  'floor p50',
  'floor p95',
  'of which server p50',
  'overhead p50',
  'overhead p95',
  '× floor p50',
  '× floor p95',
  'goal',
  'goal met',
  'n',
  'load (1-min avg)',
];

/** A row of the felt-latency table, in the order of FELT_COLUMNS. */
export function feltRow(version: string, label: string, figures: FeltFigures, target: FeltGoal, load: string): (string | number)[] {
  return [
    version,
    label,
    ms(figures.docchat.p50),
    ms(figures.docchat.p95),
    ms(figures.floor.p50),
    ms(figures.floor.p95),
    figures.server ? ms(figures.server.p50) : '—',
    ms(figures.overhead.p50),
    ms(figures.overhead.p95),
    ratio(figures.docchat.p50, figures.floor.p50),
    ratio(figures.docchat.p95, figures.floor.p95),
    describeGoal(target),
    goal(figures.met),
    figures.n,
    load,
  ];
}

/** The document of an extension's webview panel (nested in two iframes), once `selector` is in it. */
export async function webviewFrame(page: Page, extensionId: string, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const element = page
    .frameLocator(`iframe.webview.ready[src*="extensionId=${extensionId}"]`)
    .frameLocator('#active-frame')
    .locator(selector);
  await element.waitFor({ state: 'attached', timeout: timeoutMs });
  const frame = await (await element.elementHandle())?.ownerFrame();
  if (!frame) throw new Error(`the webview of ${extensionId} has no document`);
  return frame;
}
