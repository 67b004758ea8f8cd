/**
 * Lists the files of a folder that DocChat syncs and hashes them without blocking the event loop:
 * the listing is asynchronous, files whose size and modification time are unchanged keep their
 * recorded hash, and the rest are hashed in a worker thread (a few files: asynchronous reads in
 * 1 MiB slices on this thread). Plain Node (no `vscode`): the extension, the benchmarks and the
 * tests use it alike.
 */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { access, open, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import ignore, { type Ignore } from 'ignore';
import { isConvertibleName } from '../../api/documents/fileTypes';
import type { HashWorkerChunk, HashWorkerInput } from '../../workers/hashFiles';
import { normalizePath } from './syncMetadata';

export interface ScanOptions {
  /** The workspace folder the recorded paths are relative to. */
  root: string;
  /** The synced folder (inside `root`). */
  folder: string;
  /** Glob patterns relative to `root` (`files.exclude` and `docchat.sync.exclude`). */
  exclude?: readonly string[];
  /** Read `.gitignore` files (default true). */
  gitignore?: boolean;
  signal?: AbortSignal;
}

export interface ScannedFile {
  /** Relative to the root, `/`-separated, NFC. */
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

export interface ScanResult {
  files: ScannedFile[];
  /** Files left out because DocChat cannot convert them (relative paths). */
  unsupported: string[];
}

interface IgnoreLayer {
  base: string;
  rules: Ignore;
}

function relativeTo(base: string, absolute: string): string {
  return path.relative(base, absolute).split(path.sep).join('/');
}

function ignored(layers: readonly IgnoreLayer[], absolute: string, isDir: boolean): boolean {
  for (const layer of layers) {
    const rel = relativeTo(layer.base, absolute);
    if (!rel || rel.startsWith('..')) continue;
    if (layer.rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

async function gitignoreLayer(dir: string): Promise<IgnoreLayer | undefined> {
  try {
    const text = await readFile(path.join(dir, '.gitignore'), 'utf8');
    return { base: dir, rules: ignore().add(text) };
  } catch {
    return undefined;
  }
}

/** Walks the folder: regular files only (no symbolic links), `.git` always skipped. */
export async function scanFolder(options: ScanOptions): Promise<ScanResult> {
  const root = path.resolve(options.root);
  const folder = path.resolve(options.folder);
  const layers: IgnoreLayer[] = [];
  if (options.exclude?.length) layers.push({ base: root, rules: ignore().add([...options.exclude]) });
  const useGitignore = options.gitignore !== false;
  // .gitignore files between the root and the folder apply too.
  if (useGitignore) {
    const chain: string[] = [];
    for (let dir = folder; ; dir = path.dirname(dir)) {
      chain.unshift(dir);
      if (dir === root || path.dirname(dir) === dir || !dir.startsWith(root)) break;
    }
    for (const dir of chain.slice(0, -1)) {
      const layer = await gitignoreLayer(dir);
      if (layer) layers.push(layer);
    }
  }
  const files: ScannedFile[] = [];
  const unsupported: string[] = [];

  const walk = async (dir: string, inherited: IgnoreLayer[]): Promise<void> => {
    options.signal?.throwIfAborted();
    const own = useGitignore ? await gitignoreLayer(dir) : undefined;
    const active = own ? [...inherited, own] : inherited;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // unreadable folder: nothing to sync from it
    }
    const subdirs: string[] = [];
    const candidates: string[] = [];
    for (const entry of entries) {
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === '.git' || ignored(active, absolute, true)) continue;
        subdirs.push(absolute);
      } else if (entry.isFile()) {
        if (entry.name === '.gitignore' || ignored(active, absolute, false)) continue;
        if (!isConvertibleName(entry.name)) {
          unsupported.push(normalizePath(relativeTo(root, absolute)));
          continue;
        }
        candidates.push(absolute);
      }
    }
    await mapLimit(candidates, 16, async (absolute) => {
      try {
        const info = await stat(absolute);
        files.push({ path: normalizePath(relativeTo(root, absolute)), absolute, size: info.size, mtimeMs: info.mtimeMs });
      } catch {
        // Deleted while scanning: the next sync sees it.
      }
    });
    for (const sub of subdirs) await walk(sub, active);
  };
  await walk(folder, layers);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, unsupported };
}

/** Runs `fn` over items with at most `limit` at a time. */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const SLICE = 1024 * 1024;
/** Files up to this size are read in one call; larger ones in slices. */
const WHOLE_READ_MAX = 4 * SLICE;

/** Lets other callbacks run: the event loop is never held by hashing for long. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function hashFile(absolute: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  if (size <= WHOLE_READ_MAX) {
    const data = await readFile(absolute);
    for (let offset = 0; offset < data.length; offset += SLICE) {
      if (offset > 0) await yieldToLoop();
      hash.update(data.subarray(offset, offset + SLICE));
    }
    return hash.digest('hex');
  }
  const handle = await open(absolute, 'r');
  try {
    const buffer = Buffer.allocUnsafe(SLICE);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, SLICE, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

export interface HashCacheEntry {
  size: number;
  mtimeMs: number;
  hash: string;
}

export interface HashedFile extends ScannedFile {
  hash: string;
}

/** Below this many files to hash, starting a worker thread costs more than it saves. */
const WORKER_MIN_FILES = 16;

/**
 * The hashing worker: dist/hash-worker.js next to the bundle (the extension, the benchmarks); from
 * the TypeScript sources (tests), src/workers/hashFiles.ts through tsx. Undefined when neither is
 * there.
 */
async function hashWorkerEntry(): Promise<{ file: string; eval?: boolean } | undefined> {
  const bundled = path.join(__dirname, 'hash-worker.js');
  const exists = (file: string) =>
    access(file).then(
      () => true,
      () => false,
    );
  if (await exists(bundled)) return { file: bundled };
  const source = path.resolve(__dirname, '../../workers/hashFiles.ts');
  if (await exists(source)) return { file: `require('tsx/cjs'); require(${JSON.stringify(source)});`, eval: true };
  return undefined;
}

/** Hashes `files` in a worker thread; `onResult` hears each digest (or read error) by index. */
function hashInWorker(
  entry: { file: string; eval?: boolean },
  files: readonly string[],
  onResult: (index: number, result: string | { error: string }) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry.file, { eval: entry.eval, workerData: { files: [...files] } satisfies HashWorkerInput });
    let received = 0;
    const abort = () => void worker.terminate();
    signal?.addEventListener('abort', abort, { once: true });
    const done = (error?: unknown) => {
      signal?.removeEventListener('abort', abort);
      if (signal?.aborted) reject(signal.reason);
      else if (error) reject(error);
      else if (received < files.length) reject(new Error(`The hashing worker stopped after ${received} of ${files.length} files.`));
      else resolve();
    };
    worker.on('message', (chunk: HashWorkerChunk) => {
      chunk.results.forEach((result, i) => onResult(chunk.from + i, result));
      received += chunk.results.length;
    });
    worker.once('error', (error) => done(error));
    worker.once('exit', () => done());
  });
}

/**
 * Hashes the scanned files. A file whose size and modification time match `cache` keeps its
 * recorded hash without being read (as `git status` does); the others are hashed in a worker
 * thread (or, for a few files or without the worker script, `concurrency` reads at a time on this
 * thread in slices). `unreadable` collects the files that could not be read.
 */
export async function hashFiles(
  files: readonly ScannedFile[],
  options: {
    cache?: (path: string) => HashCacheEntry | undefined;
    concurrency?: number;
    signal?: AbortSignal;
    onProgress?: (done: number) => void;
    /** Hash in a worker thread when there are enough files (default true). */
    worker?: boolean;
  } = {},
): Promise<{ hashed: HashedFile[]; unreadable: { path: string; error: string }[] }> {
  const hashed: (HashedFile | undefined)[] = new Array(files.length);
  const unreadable: { path: string; error: string }[] = [];
  let done = 0;
  let sliceStart = performance.now();
  const toHash: number[] = [];
  for (let index = 0; index < files.length; index++) {
    const file = files[index]!;
    const cached = options.cache?.(file.path);
    if (cached && cached.size === file.size && cached.mtimeMs === file.mtimeMs) {
      hashed[index] = { ...file, hash: cached.hash };
      options.onProgress?.(++done);
      // Give the loop a turn every few milliseconds.
      if (performance.now() - sliceStart > 8) {
        await yieldToLoop();
        options.signal?.throwIfAborted();
        sliceStart = performance.now();
      }
    } else {
      toHash.push(index);
    }
  }
  const record = (index: number, result: string | { error: string }) => {
    const file = files[index]!;
    if (typeof result === 'string') hashed[index] = { ...file, hash: result };
    else unreadable.push({ path: file.path, error: result.error });
    options.onProgress?.(++done);
  };
  const entry = options.worker !== false && toHash.length >= WORKER_MIN_FILES ? await hashWorkerEntry() : undefined;
  if (entry) {
    await hashInWorker(
      entry,
      toHash.map((i) => files[i]!.absolute),
      (i, result) => record(toHash[i]!, result),
      options.signal,
    );
  } else {
    await mapLimit(toHash, options.concurrency ?? 8, async (index) => {
      options.signal?.throwIfAborted();
      const file = files[index]!;
      try {
        record(index, await hashFile(file.absolute, file.size));
      } catch (error) {
        record(index, { error: error instanceof Error ? error.message : String(error) });
      }
    });
  }
  return { hashed: hashed.filter((f): f is HashedFile => !!f), unreadable };
}
