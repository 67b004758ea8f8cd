/**
 * The write-ahead journal of a sync: one JSON line per intent, appended and flushed to disk before
 * the request it announces, so a reload or a crash in the middle of a sync knows which requests the
 * server may have acted on. Plain Node (no `vscode`).
 *
 * Group commit: entries appended while a write is under way wait and go to disk together in the
 * next write (one flushed append per batch, not per entry). `append` still resolves only once its
 * own line is on disk, so a request is never sent before its intent is recorded; a crash between
 * two batches loses only entries whose requests were never sent.
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

export interface JournalOptions {
  /** Batch concurrent appends into one write (default true); false writes each entry on its own. */
  groupCommit?: boolean;
  /** Writes a batch of lines to the end of the file, flushed (tests inject crashes here). */
  write?: (file: string, text: string) => Promise<void>;
}

const flushedAppend = (file: string, text: string) => appendFile(file, text, { encoding: 'utf8', flush: true });

interface Waiting {
  line: string;
  resolve(): void;
  reject(error: unknown): void;
}

export class SyncJournal {
  private readonly groupCommit: boolean;
  private readonly write: (file: string, text: string) => Promise<void>;
  private queued: Waiting[] = [];
  private writing = false;
  /** A failed write stops the journal: nothing is announced (or sent) after a line may be torn. */
  private failed: unknown;
  private idle: (() => void)[] = [];
  /** Batches written so far (for the benchmark and tests). */
  writes = 0;

  constructor(
    readonly file: string,
    options: JournalOptions = {},
  ) {
    this.groupCommit = options.groupCommit !== false;
    this.write = options.write ?? flushedAppend;
  }

  /** Appends one entry; resolves once the line is written and flushed. */
  async append(entry: JournalEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    if (this.failed !== undefined) throw this.failed;
    if (!this.groupCommit) {
      this.writes++;
      return this.write(this.file, line);
    }
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ line, resolve, reject });
      this.writeQueued();
    });
  }

  /** Resolves when every appended entry has been written (or has failed). */
  settled(): Promise<void> {
    if (!this.writing && this.queued.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private writeQueued(): void {
    if (this.writing) return;
    if (this.failed !== undefined) {
      for (const w of this.queued.splice(0)) w.reject(this.failed);
    }
    if (this.queued.length === 0) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    const batch = this.queued;
    this.queued = [];
    this.writing = true;
    this.writes++;
    this.write(this.file, batch.map((w) => w.line).join('')).then(
      () => {
        this.writing = false;
        for (const w of batch) w.resolve();
        this.writeQueued();
      },
      (error: unknown) => {
        this.writing = false;
        this.failed = error;
        for (const w of batch) w.reject(error);
        this.writeQueued();
      },
    );
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
    await this.settled();
    await rm(this.file, { force: true });
  }

  /** The unfinished sync into `storeId` (a journal begun for another store is none of its business). */
  async readFor(storeId: string): Promise<Unfinished | undefined> {
    const unfinished = await this.read();
    return unfinished?.storeId === storeId ? unfinished : undefined;
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
