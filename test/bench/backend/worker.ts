/**
 * One measurement of the embedded backend, alone in its process so its memory is its own:
 *   `backendWorker.js search <chunks>`: ingests markdown files until the store holds about
 *     <chunks> chunks (real upload → convert → chunk → index path), then times searches on the
 *     store's index directly and end to end over HTTP with DocumentsClient.
 *   `backendWorker.js pdf`: ingest throughput for text PDFs.
 * Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DocumentsClient } from '../../../src/api/documents/client';
import { startBackend, type RunningBackend } from '../../../src/backend';
import { nowMs, percentile } from '../lib/stats';
import { textPdf, WordSource } from './corpus';

const TOKEN = 'bench-token';
const MARKDOWN_FILE_CHARS = 200_000;
const PARALLEL_UPLOADS = 8;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function ingest(
  backend: RunningBackend,
  storeId: string,
  files: { name: string; data: Buffer }[],
): Promise<{ seconds: number; chunks: number; failed: number }> {
  const docs = backend.documents;
  const started = nowMs();
  const ids: string[] = [];
  for (let i = 0; i < files.length; i += PARALLEL_UPLOADS) {
    await Promise.all(
      files.slice(i, i + PARALLEL_UPLOADS).map(async (f) => {
        const file = await docs.uploadFile(f.name, f.data);
        await docs.attachFile(storeId, file.id, undefined, false);
        ids.push(file.id);
      }),
    );
  }
  let chunks = 0;
  let failed = 0;
  for (const id of ids) {
    const record = await docs.whenProcessed(storeId, id);
    if (record?.status !== 'completed') {
      failed++;
      process.stderr.write(`    ${id}: ${record?.status} ${record?.last_error ?? ''}\n`);
    }
    chunks += (record as { chunk_count?: number } | undefined)?.chunk_count ?? 0;
  }
  return { seconds: (nowMs() - started) / 1000, chunks, failed };
}

async function withBackend<T>(run: (backend: RunningBackend, storeId: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-backend-'));
  const backend = await startBackend({ dataDir, token: TOKEN, apiKey: TOKEN, rateLimits: false });
  try {
    const store = await backend.documents.createStore('bench', {});
    return await run(backend, store.id);
  } finally {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function searchBenchmark(targetChunks: number) {
  return withBackend(async (backend, storeId) => {
    const words = new WordSource();
    // About one chunk per 2,170 characters of this text with the default chunk size; the count is reported as measured.
    const chunksPerFile = Math.round(MARKDOWN_FILE_CHARS / 2_170);
    const fileCount = Math.max(1, Math.round(targetChunks / chunksPerFile));
    const files = Array.from({ length: fileCount }, (_, i) => ({
      name: `doc-${i}.md`,
      data: Buffer.from(words.markdown(`Document ${i}`, MARKDOWN_FILE_CHARS)),
    }));
    const bytes = files.reduce((sum, f) => sum + f.data.length, 0);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    const result = await ingest(backend, storeId, files);
    files.length = 0;
    gc();
    const memory = process.memoryUsage();

    const index = backend.documents.ingest.index(storeId);
    const queries = words.queries(600);
    for (const q of queries.slice(0, 50)) index.search(q, { maxResults: 10 });
    const direct: number[] = [];
    for (const q of queries.slice(100)) {
      const t = nowMs();
      index.search(q, { maxResults: 10 });
      direct.push(nowMs() - t);
    }

    const client = new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false });
    for (const q of queries.slice(0, 30)) await client.search(storeId, { query: q, max_num_results: 10 });
    const http: number[] = [];
    let hits = 0;
    for (const q of queries.slice(100, 400)) {
      const t = nowMs();
      const page = await client.search(storeId, { query: q, max_num_results: 10 });
      http.push(nowMs() - t);
      hits += page.data.length;
    }
    await client.close();
    return {
      chunks: index.chunkCount,
      files: fileCount,
      bytes,
      ingestSeconds: result.seconds,
      failed: result.failed,
      heapGrowth: memory.heapUsed - heapBefore,
      rssGrowth: memory.rss - rssBefore,
      rss: memory.rss,
      direct: { p50: percentile(direct, 50), p95: percentile(direct, 95), n: direct.length },
      http: { p50: percentile(http, 50), p95: percentile(http, 95), n: http.length, meanHits: hits / http.length },
    };
  });
}

async function pdfBenchmark() {
  return withBackend(async (backend, storeId) => {
    const words = new WordSource(40_000);
    const files = Array.from({ length: 12 }, (_, i) => {
      const pages = Array.from({ length: 40 }, () => Array.from({ length: 50 }, () => words.sentence(11)));
      return { name: `report-${i}.pdf`, data: textPdf(pages) };
    });
    const bytes = files.reduce((sum, f) => sum + f.data.length, 0);
    const result = await ingest(backend, storeId, files);
    return {
      files: files.length,
      pages: files.length * 40,
      bytes,
      ingestSeconds: result.seconds,
      chunks: result.chunks,
      failed: result.failed,
      rss: process.resourceUsage().maxRSS * 1024,
    };
  });
}

async function main(): Promise<void> {
  const [mode, arg] = process.argv.slice(2);
  const result = mode === 'pdf' ? await pdfBenchmark() : await searchBenchmark(Number(arg));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

void main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
