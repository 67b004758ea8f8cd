/**
 * Benchmark 2, listing: 10,000 files in one vector store, listed to the end with page sizes 100
 * and 10,000 by DocChat's paginators and by the openai SDK's auto-pagination, both against the
 * embedded backend running in its own process with rate limits off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { DocumentsClient } from '../../src/api/documents/client';
import { startBackend } from '../../src/backend';
import { startBackendProcess } from './lib/backendProcess';
import { main, progress, type BenchResult } from './lib/report';
import { goal, ms, nowMs, ratio, summarize } from './lib/stats';

const FILES = 10_000;
const PAGE_SIZES = [100, 10_000];
const ROUNDS = 15;
const TOKEN = 'bench-token';

/** Seeds through the backend's own service API (no HTTP), then closes it so the CLI can take the data dir. */
async function seed(dataDir: string): Promise<{ storeId: string; seconds: number }> {
  const started = nowMs();
  const backend = await startBackend({ dataDir, token: TOKEN, apiKey: TOKEN, rateLimits: false });
  const docs = backend.documents;
  const store = await docs.createStore('bench-listing', {});
  const PARALLEL = 200;
  for (let i = 0; i < FILES; i += PARALLEL) {
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL, FILES - i) }, async (_, j) => {
        const n = i + j;
        const file = await docs.uploadFile(`note-${n}.md`, Buffer.from(`# Note ${n}\n\nBenchmark file number ${n}.\n`), 'assistants', {
          n: String(n),
        });
        await docs.attachFile(store.id, file.id, { n: String(n) }, false);
      }),
    );
    if ((i + PARALLEL) % 2000 === 0) progress(`seeded ${i + PARALLEL} files`);
  }
  for (const record of docs.listStoreFiles(store.id, { limit: 10_000, order: 'asc' }).data) await docs.whenProcessed(store.id, record.id);
  await backend.close();
  return { storeId: store.id, seconds: (nowMs() - started) / 1000 };
}

type Lister = (pageSize: number) => Promise<number>;

main(async (): Promise<BenchResult> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-listing-'));
  try {
    progress(`seeding ${FILES} files`);
    const { storeId, seconds: seedSeconds } = await seed(dataDir);
    const backend = await startBackendProcess(dataDir, TOKEN);
    try {
      const docchat = new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false });
      const sdk = new OpenAI({ baseURL: `${backend.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
      const count = async (items: AsyncIterable<unknown>) => {
        let n = 0;
        for await (const _ of items) n++;
        return n;
      };
      const scenarios: { list: string; contenders: { id: string; label: string; run: Lister }[] }[] = [
        {
          list: 'vector store files',
          contenders: [
            {
              id: 'docchat',
              label: 'DocChat vectorStoreFiles() paginator',
              run: (limit) => count(docchat.vectorStoreFiles(storeId, { limit })),
            },
            {
              id: 'openai',
              label: 'openai SDK vectorStores.files.list() auto-pagination',
              run: (limit) => count(sdk.vectorStores.files.list(storeId, { limit })),
            },
          ],
        },
        {
          list: 'files',
          contenders: [
            { id: 'docchat', label: 'DocChat files() paginator', run: (limit) => count(docchat.files({ limit })) },
            { id: 'openai', label: 'openai SDK files.list() auto-pagination', run: (limit) => count(sdk.files.list({ limit })) },
          ],
        },
      ];
      const tables: BenchResult['tables'] = [];
      const goalRows: (string | number)[][] = [];
      const notes: string[] = [];
      for (const scenario of scenarios) {
        const rows: (string | number)[][] = [];
        for (const pageSize of PAGE_SIZES) {
          const samples = new Map<string, number[]>(scenario.contenders.map((c) => [c.id, []]));
          for (let round = 0; round <= ROUNDS; round++) {
            const order = round % 2 ? [...scenario.contenders].reverse() : scenario.contenders;
            for (const c of order) {
              const started = nowMs();
              const n = await c.run(pageSize);
              const elapsed = nowMs() - started;
              if (n !== FILES) throw new Error(`${c.label} listed ${n} ${scenario.list}, expected ${FILES}`);
              if (round > 0) samples.get(c.id)!.push(elapsed); // round 0 warms up both
            }
          }
          progress(`${scenario.list}, page size ${pageSize}: done`);
          const sdkMedian = summarize(samples.get('openai')!).median;
          for (const c of scenario.contenders) {
            const s = summarize(samples.get(c.id)!);
            rows.push([
              c.label,
              pageSize,
              Math.ceil(FILES / pageSize),
              ms(s.median),
              ms(s.min),
              ms(s.max),
              ratio(s.median, sdkMedian),
              s.n,
            ]);
          }
          const docchatMedian = summarize(samples.get('docchat')!).median;
          const met = docchatMedian <= sdkMedian;
          goalRows.push([`${scenario.list}, page size ${pageSize}`, ratio(docchatMedian, sdkMedian), '≤ 1.0×', goal(met)]);
          if (!met) {
            notes.push(
              `Listing ${scenario.list} with page size ${pageSize}: DocChat takes ${ratio(docchatMedian, sdkMedian)} the SDK's time (goal ≤ 1.0×).`,
            );
          }
        }
        tables.push({
          caption: `Listing all ${FILES.toLocaleString('en')} ${scenario.list} (ms)`,
          columns: ['contender', 'page size', 'requests', 'median', 'min', 'max', '× SDK', 'n'],
          rows,
        });
      }
      tables.push({ caption: 'Goals (medians)', columns: ['list', 'DocChat × SDK', 'target', 'goal met'], rows: goalRows });
      await docchat.close?.();
      return {
        id: 'listing',
        title: 'Listing 10,000 files',
        goal: 'DocChat’s paginator ≤ 1.0× the openai SDK’s auto-pagination.',
        method: `${FILES.toLocaleString('en')} small markdown files in one vector store, seeded through the backend's service API in ${seedSeconds.toFixed(0)} s; the backend then runs as \`docchat-backend --no-rate-limits\` in its own process. Both clients iterate every item to the end; one warm-up round, then ${ROUNDS} interleaved rounds.`,
        tables,
        notes,
      };
    } finally {
      await backend.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
