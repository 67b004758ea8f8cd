/**
 * Benchmark 3, embedded backend: search latency (p50/p95) at about 1,000 / 10,000 / 100,000
 * chunks, on the store's index and end to end over HTTP with DocumentsClient; ingest throughput
 * for markdown and PDF; memory. Every run is a fresh process that ingests its corpus through the
 * real upload → convert → chunk → index path.
 */
import { runWorker } from './lib/child';
import { main, progress, type BenchResult } from './lib/report';
import { goal, mb, ms, ratio, summarize } from './lib/stats';

const SIZES = [1_000, 10_000, 100_000];
const RUNS = 5;
const GOAL_P50_MS = 10;

interface SearchRun {
  chunks: number;
  files: number;
  bytes: number;
  ingestSeconds: number;
  failed: number;
  heapGrowth: number;
  rssGrowth: number;
  rss: number;
  direct: { p50: number; p95: number; n: number };
  http: { p50: number; p95: number; n: number; meanHits: number };
}

interface PdfRun {
  files: number;
  pages: number;
  bytes: number;
  ingestSeconds: number;
  chunks: number;
  failed: number;
  rss: number;
}

const nodeArgs = ['--expose-gc'];

main(async (): Promise<BenchResult> => {
  const runs = new Map<number, SearchRun[]>(SIZES.map((s) => [s, []]));
  const pdfRuns: PdfRun[] = [];
  for (let run = 1; run <= RUNS; run++) {
    for (const size of SIZES) {
      progress(`backend run ${run}/${RUNS}: ${size} chunks`);
      const r = await runWorker<SearchRun>('backendWorker.js', ['search', String(size)], { nodeArgs, timeoutMs: 600_000 });
      if (r.failed) throw new Error(`${r.failed} files failed to ingest`);
      runs.get(size)!.push(r);
    }
    progress(`backend run ${run}/${RUNS}: pdf`);
    const pdf = await runWorker<PdfRun>('backendWorker.js', ['pdf'], { nodeArgs });
    if (pdf.failed) throw new Error(`${pdf.failed} PDFs failed to ingest`);
    pdfRuns.push(pdf);
  }

  const latencyRows: (string | number)[][] = [];
  const goalRows: (string | number)[][] = [];
  const notes: string[] = [];
  for (const size of SIZES) {
    const r = runs.get(size)!;
    const chunks = summarize(r.map((x) => x.chunks)).median;
    for (const [path, label] of [
      ['direct', 'index (StoreIndex.search)'],
      ['http', 'HTTP (DocumentsClient.search)'],
    ] as const) {
      const p50 = summarize(r.map((x) => x[path].p50));
      const p95 = summarize(r.map((x) => x[path].p95));
      latencyRows.push([
        chunks.toLocaleString('en'),
        label,
        ms(p50.median),
        ms(p50.min),
        ms(p50.max),
        ms(p95.median),
        ms(p95.min),
        ms(p95.max),
        ratio(p50.median, GOAL_P50_MS),
        `${r.length}×${r[0]![path].n}`,
      ]);
      if (size === 100_000) {
        const met = p50.median <= GOAL_P50_MS;
        goalRows.push([`p50 at ${chunks.toLocaleString('en')} chunks, ${label}`, `${ms(p50.median)} ms`, `≤ ${GOAL_P50_MS} ms`, goal(met)]);
        if (!met) {
          notes.push(
            `Search p50 through ${label} at ${chunks.toLocaleString('en')} chunks is ${ms(p50.median)} ms (goal ≤ ${GOAL_P50_MS} ms).`,
          );
        }
      }
    }
  }

  const mdRates = SIZES.map((size) => runs.get(size)!.map((x) => x.bytes / x.ingestSeconds));
  const pdfRate = summarize(pdfRuns.map((x) => x.bytes / x.ingestSeconds));
  const mdLargest = summarize(mdRates[mdRates.length - 1]!);
  const throughputRows: (string | number)[][] = SIZES.map((size, i) => {
    const r = runs.get(size)!;
    const s = summarize(mdRates[i]!);
    return [
      `markdown, ${r[0]!.files} files, ${mb(r[0]!.bytes)} MB`,
      mb(s.median),
      mb(s.min),
      mb(s.max),
      ratio(s.median, mdLargest.median),
      s.n,
    ];
  });
  throughputRows.push([
    `PDF (text), ${pdfRuns[0]!.files} files × ${pdfRuns[0]!.pages / pdfRuns[0]!.files} pages, ${mb(pdfRuns[0]!.bytes)} MB`,
    mb(pdfRate.median),
    mb(pdfRate.min),
    mb(pdfRate.max),
    ratio(pdfRate.median, mdLargest.median),
    pdfRate.n,
  ]);

  const memoryRows = SIZES.map((size) => {
    const r = runs.get(size)!;
    const heap = summarize(r.map((x) => x.heapGrowth));
    const rss = summarize(r.map((x) => x.rss));
    return [
      summarize(r.map((x) => x.chunks)).median.toLocaleString('en'),
      mb(r[0]!.bytes),
      mb(heap.median),
      mb(heap.min),
      mb(heap.max),
      mb(rss.median),
      ratio(heap.median, r[0]!.bytes),
    ];
  });

  return {
    id: 'backend',
    title: 'Embedded backend: search, ingest, memory',
    goal: `Search p50 ≤ ${GOAL_P50_MS} ms at 100,000 chunks.`,
    method: `Synthetic markdown (Zipf-distributed words over a 40,000-word vocabulary, headings every four paragraphs, ~200 KB a file) ingested through the backend's service API (upload → convert → chunk → index, ${RUNS} fresh processes per size). 500 queries of 2–5 words (after 50 warm-up) on the index itself, and 300 end to end through DocumentsClient over HTTP to the in-process server (max_num_results 10, BM25; no embedding upstream). Text PDFs generated with Helvetica text, 40 pages each.`,
    tables: [
      {
        caption: "Search latency (ms); medians over runs of each run's p50 / p95",
        columns: [
          'chunks',
          'path',
          'p50 median',
          'p50 min',
          'p50 max',
          'p95 median',
          'p95 min',
          'p95 max',
          'p50 × goal (10 ms)',
          'runs × queries',
        ],
        rows: latencyRows,
      },
      {
        caption: 'Ingest throughput (MB/s of input, upload until every file is `completed`)',
        columns: ['input', 'median', 'min', 'max', '× markdown (largest)', 'n'],
        rows: throughputRows,
      },
      {
        caption: 'Memory after ingest (MB): heap growth over the empty backend, and the process RSS',
        columns: ['chunks', 'markdown MB', 'heap growth median', 'min', 'max', 'RSS median', 'heap growth × text size'],
        rows: memoryRows,
      },
      { caption: 'Goal', columns: ['goal', 'measured', 'target', 'goal met'], rows: goalRows },
    ],
    notes,
  };
});
