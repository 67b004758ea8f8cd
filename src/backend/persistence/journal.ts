/**
 * Append-only journal plus snapshot: the durable state of the documents service.
 *
 * - Every mutation is one line `crc32 json\n`; `append` resolves only after the line is written
 *   and fdatasync'ed (group commit: concurrent appends share one fsync), so a response is sent only
 *   for writes that are on disk.
 * - A crash can leave at most a torn last line; loading truncates the journal at the first line
 *   whose checksum or JSON is broken (nothing after it was ever acknowledged).
 * - Every `compactEvery` entries the whole state is written to `snapshot.json` atomically
 *   (temp + fsync + rename) and the journal is emptied. Entries carry a sequence number and
 *   replay skips those the snapshot already holds, so a crash between the two steps is harmless.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { writeFileAtomic } from './atomicFile';

export interface JournalEntry {
  seq: number;
  [key: string]: unknown;
}

interface Snapshot<S> {
  format: 1;
  seq: number;
  state: S;
}

export interface JournalLoadResult<S, E> {
  snapshot: S | undefined;
  entries: E[];
  /** Bytes cut from a torn or corrupt journal tail, 0 when the journal was clean. */
  truncatedBytes: number;
}

const JOURNAL = 'journal.log';
const SNAPSHOT = 'snapshot.json';

function encode(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

function decode(line: string): JournalEntry | undefined {
  const space = line.indexOf(' ');
  if (space !== 8) return undefined;
  const json = line.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return undefined;
  try {
    const entry = JSON.parse(json) as JournalEntry;
    return typeof entry?.seq === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

export class Journal<S, E extends object> {
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | undefined;
  private sinceSnapshot = 0;
  private writtenSeq: number;
  private broken: Error | undefined;

  private constructor(
    private readonly dir: string,
    private handle: fs.FileHandle,
    private seq: number,
    private readonly snapshotState: () => S,
    private readonly compactEvery: number,
  ) {
    this.writtenSeq = seq;
  }

  /** Reads snapshot and journal (repairing a torn tail) and opens the journal for appending. */
  static async open<S, E extends object>(
    dir: string,
    snapshotState: () => S,
    compactEvery = 5000,
  ): Promise<{ journal: Journal<S, E>; loaded: JournalLoadResult<S, E> }> {
    await fs.mkdir(dir, { recursive: true });
    let snapshot: Snapshot<S> | undefined;
    try {
      snapshot = JSON.parse(await fs.readFile(path.join(dir, SNAPSHOT), 'utf8')) as Snapshot<S>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new Error(`The data folder's snapshot ${path.join(dir, SNAPSHOT)} cannot be read: ${(error as Error).message}`);
      }
    }
    const snapshotSeq = snapshot?.seq ?? 0;
    const file = path.join(dir, JOURNAL);
    let raw: Buffer;
    try {
      raw = await fs.readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      raw = Buffer.alloc(0);
    }
    const entries: E[] = [];
    let offset = 0;
    let seq = snapshotSeq;
    while (offset < raw.length) {
      const end = raw.indexOf(0x0a, offset);
      if (end < 0) break;
      const entry = decode(raw.subarray(offset, end).toString('utf8'));
      if (!entry) break;
      if (entry.seq > snapshotSeq) {
        entries.push(entry as unknown as E);
        seq = Math.max(seq, entry.seq);
      }
      offset = end + 1;
    }
    const truncatedBytes = raw.length - offset;
    if (truncatedBytes > 0) await fs.truncate(file, offset);
    const handle = await fs.open(file, 'a');
    if (truncatedBytes > 0) await handle.sync();
    const journal = new Journal<S, E>(dir, handle, seq, snapshotState, compactEvery);
    journal.sinceSnapshot = entries.length;
    return { journal, loaded: { snapshot: snapshot?.state, entries, truncatedBytes } };
  }

  /** Appends one entry; resolves once it is on disk. The entry's `seq` is assigned here. */
  append(entry: E): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    const line = encode({ ...entry, seq: ++this.seq });
    return new Promise<void>((resolve, reject) => {
      this.pending.push(line);
      this.waiters.push({ resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Waits for every appended entry to be on disk. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.handle.close();
  }

  private async flushLoop(): Promise<void> {
    // Let the other requests of this event-loop turn join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      if (!this.pending.length) {
        // Cleared in the same turn as the check, so an append arriving later starts a new loop.
        this.flushing = undefined;
        return;
      }
      const lines = this.pending;
      const waiters = this.waiters;
      const lastSeq = this.seq;
      this.pending = [];
      this.waiters = [];
      try {
        await this.handle.write(lines.join(''));
        await this.handle.datasync();
        this.writtenSeq = lastSeq;
        this.sinceSnapshot += lines.length;
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        this.broken = new Error(`The data folder can no longer be written: ${(error as Error).message}`);
        for (const waiter of [...waiters, ...this.waiters]) waiter.reject(this.broken);
        this.pending = [];
        this.waiters = [];
        this.flushing = undefined;
        return;
      }
      if (this.sinceSnapshot >= this.compactEvery) await this.compact();
    }
  }

  /** Snapshot of the in-memory state, then an empty journal. */
  private async compact(): Promise<void> {
    // The in-memory state may already contain entries still waiting in `pending` (seq above
    // writtenSeq); they are written after the truncation and replay is idempotent.
    this.sinceSnapshot = 0;
    try {
      const snapshot: Snapshot<S> = { format: 1, seq: this.writtenSeq, state: this.snapshotState() };
      await writeFileAtomic(path.join(this.dir, SNAPSHOT), JSON.stringify(snapshot));
      await this.handle.truncate(0);
      await this.handle.sync();
    } catch {
      // The journal alone is still complete (replay skips what a newer snapshot holds); a
      // failed compaction only means a longer journal until the next attempt.
    }
  }
}
