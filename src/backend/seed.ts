/**
 * Demo seeding: a "demo" vector store with the given files (folders are searched for files the
 * backend can convert). Files already seeded from the same path are not added again, so
 * `npm start` can seed on every run.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isConvertibleName } from '../api/documents/fileTypes';
import type { DocumentsService } from './documents/service';

export const DEMO_STORE_NAME = 'demo';
const MAX_SEED_FILES = 200;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'out', 'coverage', 'test-results']);

export interface SeedResult {
  storeId: string;
  files: { path: string; fileId: string; status: string; last_error: string | null }[];
  skipped: string[];
}

async function expand(entries: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const visit = async (entry: string, explicit: boolean) => {
    if (out.length >= MAX_SEED_FILES) return;
    const stat = await fs.stat(entry);
    if (stat.isDirectory()) {
      for (const name of (await fs.readdir(entry)).sort()) {
        if (name.startsWith('.') || SKIPPED_FOLDERS.has(name)) continue;
        await visit(path.join(entry, name), false);
      }
    } else if (stat.isFile() && (explicit || isConvertibleName(entry))) {
      out.push(entry);
    }
  };
  for (const entry of entries) await visit(path.resolve(entry), true);
  return out;
}

export async function seedDemo(documents: DocumentsService, entries: readonly string[], storeName = DEMO_STORE_NAME): Promise<SeedResult> {
  const store = documents.findStoreByName(storeName) ?? (await documents.createStore(storeName, { purpose: 'DocChat demo' }));
  const seeded = new Set<string>();
  for (const record of documents.listStoreFiles(store.id, { limit: 10_000, order: 'asc' }).data) {
    if (record.metadata.source_path) seeded.add(record.metadata.source_path);
  }
  const result: SeedResult = { storeId: store.id, files: [], skipped: [] };
  const pending: Promise<void>[] = [];
  for (const file of await expand(entries)) {
    const sourcePath = file.length <= 512 ? file : file.slice(-512);
    if (seeded.has(sourcePath)) {
      result.skipped.push(file);
      continue;
    }
    const uploaded = await documents.uploadFile(path.basename(file), await fs.readFile(file), 'assistants', { source_path: sourcePath });
    await documents.attachFile(store.id, uploaded.id, { source_path: sourcePath }, false);
    const entry = { path: file, fileId: uploaded.id, status: 'in_progress', last_error: null as string | null };
    result.files.push(entry);
    pending.push(
      documents.whenProcessed(store.id, uploaded.id).then((record) => {
        entry.status = record?.status ?? 'deleted';
        entry.last_error = record?.last_error ?? null;
      }),
    );
  }
  await Promise.all(pending);
  return result;
}
