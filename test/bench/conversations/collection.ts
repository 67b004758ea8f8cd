/**
 * A conversation set in MT-RAG's layout (`corpus.jsonl`: `{id, domain, text}`; `tasks.jsonl`:
 * `{task_id, conversation_id, turn, domain, turns, rewrite, qrels, enrichments}`), and its
 * indexing: each domain one vector store of the backend, one file per passage, uploaded and
 * attached through the documents API. The backend's data folder lives in a cache outside the
 * repository, so the index is built once and kept between runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DocumentsClient } from '../../../src/api/documents/client';
import { pollUntil } from '../../support/harness/poll';

export interface Passage {
  id: string;
  domain: string;
  text: string;
}

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

export interface Task {
  taskId: string;
  conversationId: string;
  turn: number;
  domain: string;
  turns: Turn[];
  rewrite: string;
  qrels: Map<string, number>;
  answerable: boolean;
}

export interface Collection {
  folder: string;
  passages: Passage[];
  tasks: Task[];
}

function readJsonLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`${file}, line ${i + 1}: not JSON`);
      }
    });
}

export function readCollection(folder: string): Collection {
  for (const name of ['corpus.jsonl', 'tasks.jsonl']) {
    if (!existsSync(path.join(folder, name))) throw new Error(`${folder} holds no ${name} (see the layout in test/bench/conversations.ts)`);
  }
  const passages = readJsonLines(path.join(folder, 'corpus.jsonl')).map((p) => ({
    id: String(p.id),
    domain: String(p.domain),
    text: String(p.text ?? ''),
  }));
  const tasks = readJsonLines(path.join(folder, 'tasks.jsonl')).map((t): Task => {
    const answerability = (t.enrichments as { Answerability?: string[] } | undefined)?.Answerability ?? [];
    return {
      taskId: String(t.task_id),
      conversationId: String(t.conversation_id),
      turn: Number(t.turn),
      domain: String(t.domain),
      turns: (t.turns as Turn[]).map((m) => ({ role: m.role, content: String(m.content ?? '') })),
      rewrite: String(t.rewrite ?? ''),
      qrels: new Map(Object.entries((t.qrels as Record<string, number>) ?? {}).map(([id, gain]) => [id, Number(gain)])),
      answerable: answerability.length === 0 || answerability.includes('ANSWERABLE') || answerability.includes('PARTIAL'),
    };
  });
  return { folder, passages, tasks };
}

/**
 * The data set to measure: `--data DIR` (or DOCCHAT_CONVERSATIONS), else the first
 * `shared/benchmarks/conversations` found in a folder above the repository.
 */
export function dataFolder(repoRoot: string): string | undefined {
  const given = process.env.DOCCHAT_CONVERSATIONS;
  if (given) return path.resolve(given);
  for (let dir = path.dirname(repoRoot); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared/benchmarks/conversations');
    if (existsSync(path.join(candidate, 'corpus.jsonl'))) return candidate;
  }
  return undefined;
}

/** The backend's data folder for this data set: in the user's cache, keyed by the set's path and corpus. */
export function cacheFolder(collection: Collection): string {
  const corpus = statSync(path.join(collection.folder, 'corpus.jsonl'));
  const key = createHash('sha256')
    .update(`${path.resolve(collection.folder)}\u0000${corpus.size}\u0000${corpus.mtimeMs}`)
    .digest('hex')
    .slice(0, 16);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const dir = path.join(base, 'docchat-bench', 'conversations', key);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** One domain's store: its id and the passage each of its files holds. */
export interface DomainStore {
  domain: string;
  storeId: string;
  passageOf: Map<string, string>;
}

const PARALLEL_UPLOADS = 8;

/** A progress bar on stderr (one line per tenth when stderr is not a terminal). */
export function progressBar(label: string, total: number): (done: number) => void {
  let lastTenth = -1;
  return (done) => {
    const share = total ? done / total : 1;
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round(share * width);
      process.stderr.write(
        `\r  · ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')}`,
      );
      if (done >= total) process.stderr.write('\n');
    } else {
      const tenth = Math.floor(share * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        process.stderr.write(`  · ${label}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')}\n`);
      }
    }
  };
}

/**
 * Each domain's store, built through the documents API unless the cache already holds it
 * complete (its file list saved after every file was indexed).
 */
export async function indexDomains(client: DocumentsClient, collection: Collection, cache: string): Promise<Map<string, DomainStore>> {
  const stores = new Map<string, DomainStore>();
  const existing = new Map<string, string>();
  for await (const store of client.vectorStores()) existing.set(store.name ?? '', store.id);
  const domains = [...new Set(collection.passages.map((p) => p.domain))].sort();
  for (const domain of domains) {
    const passages = collection.passages.filter((p) => p.domain === domain);
    const listFile = path.join(cache, `${domain}.files.json`);
    const name = `conversations-${domain}`;
    const storeId = existing.get(name);
    if (storeId && existsSync(listFile)) {
      const saved = JSON.parse(readFileSync(listFile, 'utf8')) as { storeId: string; files: Record<string, string> };
      if (saved.storeId === storeId && Object.keys(saved.files).length === passages.length) {
        stores.set(domain, { domain, storeId, passageOf: new Map(Object.entries(saved.files)) });
        continue;
      }
    }
    if (storeId) await client.deleteVectorStore(storeId);
    stores.set(domain, await indexDomain(client, name, domain, passages, listFile));
  }
  return stores;
}

async function indexDomain(
  client: DocumentsClient,
  name: string,
  domain: string,
  passages: readonly Passage[],
  listFile: string,
): Promise<DomainStore> {
  const store = await client.createVectorStore({ name });
  const passageOf = new Map<string, string>();
  const attached = progressBar(`${domain}: passages attached`, passages.length);
  for (let i = 0; i < passages.length; i += PARALLEL_UPLOADS) {
    await Promise.all(
      passages.slice(i, i + PARALLEL_UPLOADS).map(async (passage) => {
        const file = await client.uploadFile({ filename: `${passage.id}.txt`, data: Buffer.from(`${passage.text}\n`) });
        await client.attachFile(store.id, { file_id: file.id });
        passageOf.set(file.id, passage.id);
      }),
    );
    attached(Math.min(i + PARALLEL_UPLOADS, passages.length));
  }
  const indexed = progressBar(`${domain}: passages indexed`, passages.length);
  const done = (counts: { completed?: number; failed?: number; cancelled?: number } | undefined) =>
    (counts?.completed ?? 0) + (counts?.failed ?? 0) + (counts?.cancelled ?? 0);
  const counts = await pollUntil(
    async () => {
      const now = (await client.retrieveVectorStore(store.id)).file_counts;
      indexed(done(now));
      return now;
    },
    (now) => done(now) >= passages.length,
    { what: `${domain}: every passage indexed`, timeoutMs: 3 * 60 * 60_000, intervalMs: 1000 },
  );
  if (counts?.failed) throw new Error(`${domain}: ${counts.failed} passages failed to index`);
  writeFileSync(listFile, JSON.stringify({ storeId: store.id, files: Object.fromEntries(passageOf) }));
  return { domain, storeId: store.id, passageOf };
}
