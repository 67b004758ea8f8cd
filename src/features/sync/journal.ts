/**
 * The write-ahead journal of a sync: one JSON line per intent, appended and flushed to disk before
 * the request it announces, so a reload or a crash in the middle of a sync knows which requests the
 * server may have acted on. Plain Node (no `vscode`).
 */
import { appendFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export type JournalEntry =
  | { t: 'begin'; storeId: string; at: number }
  | { t: 'upload'; path: string; hash: string; name: string; size: number; at: number }
  | { t: 'uploaded'; path: string; hash: string; fileId: string }
  | { t: 'attach'; path: string; hash: string; fileId: string }
  | { t: 'attached'; path: string; hash: string; fileId: string }
  | { t: 'remove'; fileId: string }
  | { t: 'removed'; fileId: string }
  | { t: 'end'; at: number };

/** What an unfinished sync left behind, by `path\0hash`. */
export interface Unfinished {
  storeId: string;
  /** Upload requests sent without a recorded answer: the server may have created the file. */
  uploadsInDoubt: Map<string, Extract<JournalEntry, { t: 'upload' }>>;
  /** Files uploaded (known id) whose attach may not have happened. */
  uploaded: Map<string, string>;
  /** Files whose attach was answered. */
  attached: Map<string, string>;
}

export const entryKey = (p: string, hash: string) => `${p}\0${hash}`;

export class SyncJournal {
  constructor(readonly file: string) {}

  /** Appends one entry; resolves once the line is written. */
  async append(entry: JournalEntry): Promise<void> {
    await appendFile(this.file, `${JSON.stringify(entry)}\n`, { encoding: 'utf8', flush: true });
  }

  async start(storeId: string, now: number): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const previous = await this.read();
    if (previous) return; // an unfinished sync: keep its entries, resume appends to them
    const temp = `${this.file}.tmp`;
    await writeFile(temp, `${JSON.stringify({ t: 'begin', storeId, at: now } satisfies JournalEntry)}\n`, { flush: true });
    await rename(temp, this.file);
  }

  /** A finished sync leaves no journal. */
  async finish(): Promise<void> {
    await rm(this.file, { force: true });
  }

  /** The unfinished sync, or undefined when there is none. A torn last line is ignored. */
  async read(): Promise<Unfinished | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    const state: Unfinished = { storeId: '', uploadsInDoubt: new Map(), uploaded: new Map(), attached: new Map() };
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        continue;
      }
      switch (entry.t) {
        case 'begin':
          state.storeId = entry.storeId;
          break;
        case 'upload':
          state.uploadsInDoubt.set(entryKey(entry.path, entry.hash), entry);
          break;
        case 'uploaded':
        case 'attach':
          state.uploadsInDoubt.delete(entryKey(entry.path, entry.hash));
          state.uploaded.set(entryKey(entry.path, entry.hash), entry.fileId);
          break;
        case 'attached':
          state.uploaded.delete(entryKey(entry.path, entry.hash));
          state.attached.set(entryKey(entry.path, entry.hash), entry.fileId);
          break;
        case 'end':
          return undefined;
        default:
          break;
      }
    }
    return state.storeId ? state : undefined;
  }
}
