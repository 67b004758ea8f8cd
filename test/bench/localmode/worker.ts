/**
 * One measurement of Local mode, alone in its process (this process plays the extension host):
 *   `localmodeWorker.js <design>` with <design> one of
 *     `inprocess-serial`  the backend in this process, converting on its serving thread (the old design),
 *     `inprocess-pool`    the backend in this process, converting in its worker threads,
 *     `process`           the backend as its own process (dist/backend-cli.js); only the client here.
 * Ingests a small markdown corpus, times idle searches, then attaches a 1,500-page text PDF twice:
 * once watching this process's event loop, once searching every 20 ms until it is converted.
 * Prints one JSON line.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DocumentsClient } from '../../../src/api/documents/client';
import type { RunningBackend } from '../../../src/backend';
import type { BackendOptions } from '../../../src/backend/options';
import { repoRoot, startBackendProcess } from '../lib/backendProcess';
import { nowMs, percentile } from '../lib/stats';
import { textPdf, WordSource } from '../backend/corpus';

export const PDF_PAGES = 1_500;
const PDF_LINES_PER_PAGE = 57;
const TOKEN = 'bench-token';
const SEARCH_EVERY_MS = 20;
const IDLE_SEARCHES = 250;

export type Design = 'inprocess-serial' | 'inprocess-pool' | 'process';

export interface SearchSample {
  p50: number;
  p99: number;
  max: number;
  sent: number;
  failed: number;
  errors: string[];
}

export interface LocalModeRun {
  design: Design;
  pdfBytes: number;
  /** Event-loop delay of this process from upload to `completed` (ms). */
  loop: { max: number; p99: number; mean: number };
  attachSeconds: number;
  /** This process's RSS: before the attach, and the highest sampled during it (bytes). */
  rssBefore: number;
  rssPeak: number;
  /** Peak RSS of the separate backend process (bytes), when there is one. */
  backendPeakRss?: number;
  idle: SearchSample;
  converting: SearchSample;
  status: string[];
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function summarizeSearches(latencies: number[], failed: number, errors: string[]): SearchSample {
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    sent: latencies.length + failed,
    failed,
    errors: [...new Set(errors)].slice(0, 5),
  };
}

/** Searches every 20 ms (one in flight at a time) until `done()` says stop or `count` were sent. */
async function searchLoop(client: DocumentsClient, storeId: string, queries: string[], until: { done: () => boolean; count?: number }) {
  const latencies: number[] = [];
  const errors: string[] = [];
  let failed = 0;
  for (let i = 0; !until.done() && (until.count === undefined || i < until.count); i++) {
    const started = nowMs();
    try {
      await client.search(storeId, { query: queries[i % queries.length]!, max_num_results: 10 });
      latencies.push(nowMs() - started);
    } catch (error) {
      failed++;
      const e = error as Error & { code?: string; cause?: { code?: string } };
      errors.push(e.cause?.code ?? e.code ?? e.message.slice(0, 120));
    }
    const rest = started + SEARCH_EVERY_MS - nowMs();
    if (rest > 0) await sleep(rest);
  }
  return summarizeSearches(latencies, failed, errors);
}

function peakRssOf(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function startDesign(design: Design, dataDir: string): Promise<{ url: string; pid?: number; stop: () => Promise<void> }> {
  if (design === 'process') {
    const backend = await startBackendProcess(dataDir, TOKEN);
    return { url: backend.url, pid: backend.child.pid, stop: backend.stop };
  }
  // As the extension loaded it: the built bundle, required into this process.
  const { startBackend } = createRequire(__filename)(path.join(repoRoot, 'dist/backend.js')) as {
    startBackend: (o: BackendOptions) => Promise<RunningBackend>;
  };
  const backend = await startBackend({
    dataDir,
    token: TOKEN,
    apiKey: TOKEN,
    rateLimits: false,
    conversion: design === 'inprocess-serial' ? { workers: 0 } : {},
  });
  return { url: backend.url, stop: () => backend.close() };
}

async function run(design: Design): Promise<LocalModeRun> {
  const words = new WordSource(40_000);
  const pages = Array.from({ length: PDF_PAGES }, () => Array.from({ length: PDF_LINES_PER_PAGE }, () => words.sentence(11)));
  const pdf = textPdf(pages);
  pages.length = 0;
  const corpus = Array.from({ length: 8 }, (_, i) => Buffer.from(words.markdown(`Manual ${i}`, 100_000)));
  const queries = words.queries(400);

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-localmode-'));
  const backend = await startDesign(design, dataDir);
  // The extension's own client, as Local mode uses it; no retries so every failure counts.
  const client = new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
  const status: string[] = [];
  try {
    const store = await client.createVectorStore({ name: 'bench' });
    for (const [i, data] of corpus.entries()) {
      const file = await client.uploadFile({ filename: `manual-${i}.md`, data });
      await client.attachFile(store.id, { file_id: file.id });
      const done = await client.waitUntilProcessed(store.id, file.id, { initialDelayMs: 50, maxDelayMs: 200 });
      if (done.status !== 'completed') throw new Error(`manual-${i}.md: ${done.status} ${done.last_error ?? ''}`);
    }
    const idle = await searchLoop(client, store.id, queries, { done: () => false, count: IDLE_SEARCHES });

    // 1. The event loop of this process while the big PDF is uploaded, attached and waited for.
    gc();
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 50);
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const started = nowMs();
    const first = await client.uploadFile({ filename: 'report.pdf', data: pdf });
    await client.attachFile(store.id, { file_id: first.id });
    const firstDone = await client.waitUntilProcessed(store.id, first.id);
    const attachSeconds = (nowMs() - started) / 1000;
    histogram.disable();
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    status.push(`${firstDone.status}${firstDone.last_error ? `: ${firstDone.last_error}` : ''}`);

    // 2. Searches every 20 ms while the same PDF converts again.
    const second = await client.uploadFile({ filename: 'report-2.pdf', data: pdf });
    await client.attachFile(store.id, { file_id: second.id });
    let converted = false;
    const waiting = client.waitUntilProcessed(store.id, second.id).finally(() => (converted = true));
    const converting = await searchLoop(client, store.id, queries, { done: () => converted });
    const secondDone = await waiting;
    status.push(`${secondDone.status}${secondDone.last_error ? `: ${secondDone.last_error}` : ''}`);

    return {
      design,
      pdfBytes: pdf.length,
      loop: { max: histogram.max / 1e6, p99: histogram.percentile(99) / 1e6, mean: histogram.mean / 1e6 },
      attachSeconds,
      rssBefore,
      rssPeak,
      backendPeakRss: backend.pid ? peakRssOf(backend.pid) : undefined,
      idle,
      converting,
      status,
    };
  } finally {
    await client.close();
    await backend.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const design = process.argv[2] as Design;
if (!['inprocess-serial', 'inprocess-pool', 'process'].includes(design)) {
  process.stderr.write(`unknown design ${design}\n`);
  process.exit(2);
}
run(design)
  .then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  })
  .catch((error) => {
    process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
    process.exit(1);
  });
