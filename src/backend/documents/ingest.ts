/**
 * Attaching a file converts it in the background: convert to markdown, chunk, (embed), write the
 * converted file, index it, then record `completed` — or `failed` with the reason. A store file
 * still `in_progress` when the backend stops is converted again at the next start.
 */
import type { Chunk } from '../chunking/chunker';
import { ConversionError } from '../convert';
import { ConversionCancelled } from '../convert/errors';
import { formatBytes } from '../http/body';
import type { ConversionPool } from '../convert/pool';
import type { Embedder } from '../search/embedder';
import { documentTitle, indexedText, normalize, StoreIndex } from '../search/storeIndex';
import { decodeVectors, encodeVectors, type ConvertedFile } from './disk';
import type { StoreFileRecord } from './model';
import type { DocumentsRepository } from './repository';

export type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

export interface IngestOptions {
  maxConvertBytes: number;
  /** More chunks than this and the file fails as too large. */
  maxChunksPerFile: number;
  embedder?: Embedder;
  concurrency: number;
  /** Converts and chunks off the serving thread, within the conversion bounds. */
  pool: ConversionPool;
  log: Log;
}

const EMBED_BATCH = 64;

function key(storeId: string, fileId: string): string {
  return `${storeId}/${fileId}`;
}

export class Ingestor {
  private readonly indexes = new Map<string, StoreIndex>();
  private readonly queue: { storeId: string; fileId: string; attempt: number }[] = [];
  private readonly attempts = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();
  private readonly active = new Set<Promise<void>>();
  /** Cancels the running conversion of a store file (its file was deleted or detached). */
  private readonly running = new Map<string, AbortController>();
  private closed = false;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly repository: DocumentsRepository,
    private readonly options: IngestOptions,
  ) {}

  get embedder(): Embedder | undefined {
    return this.options.embedder;
  }

  /** Index of a store, created on first use. */
  index(storeId: string): StoreIndex {
    let index = this.indexes.get(storeId);
    if (!index) {
      index = new StoreIndex();
      this.indexes.set(storeId, index);
    }
    return index;
  }

  dropStore(storeId: string): void {
    for (const [k, controller] of this.running) if (k.startsWith(`${storeId}/`)) controller.abort();
    this.indexes.delete(storeId);
    for (const k of [...this.attempts.keys()]) if (k.startsWith(`${storeId}/`)) this.attempts.delete(k);
  }

  dropFile(storeId: string, fileId: string): void {
    this.running.get(key(storeId, fileId))?.abort();
    this.indexes.get(storeId)?.removeFile(fileId);
    this.attempts.delete(key(storeId, fileId));
    this.notify(storeId, fileId);
  }

  /**
   * Queues what was still in progress and starts loading the converted files into the indexes in
   * the background, so the server can listen at once; searches wait for `whenLoaded()`.
   */
  restore(): void {
    const completed: { storeId: string; fileId: string }[] = [];
    for (const [storeId, files] of this.repository.state.storeFiles) {
      for (const { record } of files.values()) {
        if (record.status === 'in_progress') this.enqueue(storeId, record.id);
        else if (record.status === 'completed') completed.push({ storeId, fileId: record.id });
      }
    }
    this.loading = this.load(completed).catch((error) =>
      this.options.log('error', `Loading the search indexes failed: ${(error as Error)?.stack ?? error}`),
    );
  }

  /** Resolves once the converted files present at start are in the indexes. */
  whenLoaded(): Promise<void> {
    return this.loading;
  }

  private async load(list: { storeId: string; fileId: string }[]): Promise<void> {
    const started = Date.now();
    let chunks = 0;
    for (const { storeId, fileId } of list) {
      if (this.closed) return;
      const converted = await this.repository.chunks.read(storeId, fileId);
      // Checked after the read: the file may have been detached or re-attached meanwhile.
      const record = this.repository.state.storeFile(storeId, fileId);
      if (!record || record.status !== 'completed' || this.closed) continue;
      if (converted) {
        const vectors = converted.embeddings ? decodeVectors(converted.embeddings) : undefined;
        const stillCompleted = () => !this.closed && this.repository.state.storeFile(storeId, fileId)?.status === 'completed';
        const title = documentTitle(this.repository.state.files.get(fileId)?.record.filename ?? '');
        if (await this.index(storeId).addFileGradually(fileId, converted.chunks, vectors, stillCompleted, title)) {
          chunks += converted.chunks.length;
        }
      } else {
        this.options.log('warn', `The converted content of ${fileId} in ${storeId} is missing; converting it again.`);
        await this.repository.commit({ op: 'storefile.put', record: { ...record, status: 'in_progress', last_error: null } });
        this.enqueue(storeId, fileId);
      }
    }
    if (list.length) {
      this.options.log('info', `Loaded ${chunks} chunks of ${list.length} files into the search indexes in ${Date.now() - started} ms.`);
    }
  }

  /** Queues a conversion for a store file whose record is `in_progress`. */
  enqueue(storeId: string, fileId: string): void {
    const attempt = (this.attempts.get(key(storeId, fileId)) ?? 0) + 1;
    this.attempts.set(key(storeId, fileId), attempt);
    this.queue.push({ storeId, fileId, attempt });
    this.pump();
  }

  /** Resolves when the store file has left `in_progress` (or no longer exists). */
  whenSettled(storeId: string, fileId: string): Promise<void> {
    const record = this.repository.state.storeFile(storeId, fileId);
    if (!record || record.status !== 'in_progress') return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(key(storeId, fileId)) ?? [];
      list.push(resolve);
      this.waiters.set(key(storeId, fileId), list);
    });
  }

  /** Stops taking jobs and waits for the running ones. */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    await this.loading;
    await Promise.allSettled([...this.active]);
    await this.options.pool.close();
  }

  private notify(storeId: string, fileId: string): void {
    if (this.repository.state.storeFile(storeId, fileId)?.status === 'in_progress') return;
    const list = this.waiters.get(key(storeId, fileId));
    this.waiters.delete(key(storeId, fileId));
    for (const resolve of list ?? []) resolve();
  }

  private pump(): void {
    while (!this.closed && this.active.size < this.options.concurrency && this.queue.length) {
      const job = this.queue.shift()!;
      const run: Promise<void> = this.process(job.storeId, job.fileId, job.attempt)
        .catch((error) => this.options.log('error', `Conversion of ${job.fileId} crashed: ${(error as Error)?.stack ?? error}`))
        .finally(() => {
          this.active.delete(run);
          this.notify(job.storeId, job.fileId);
          this.pump();
        });
      this.active.add(run);
    }
  }

  /** The record if this attempt is still the one that counts (not deleted, not re-attached). */
  private current(storeId: string, fileId: string, attempt: number): StoreFileRecord | undefined {
    const record = this.repository.state.storeFile(storeId, fileId);
    if (!record || record.status !== 'in_progress' || this.attempts.get(key(storeId, fileId)) !== attempt) return undefined;
    return record;
  }

  private async process(storeId: string, fileId: string, attempt: number): Promise<void> {
    const record = this.current(storeId, fileId, attempt);
    const file = this.repository.state.files.get(fileId)?.record;
    if (!record || !file) return;
    let chunks: Chunk[];
    let usageBytes: number;
    let vectors: Float32Array[] | undefined;
    const controller = new AbortController();
    this.running.set(key(storeId, fileId), controller);
    try {
      const data = await this.repository.blobs.read(fileId);
      if (!this.current(storeId, fileId, attempt)) return;
      const result = await this.options.pool.convert(
        {
          filename: file.filename,
          data,
          options: { skipOcr: record.skip_ocr, maxBytes: this.options.maxConvertBytes },
        },
        controller.signal,
      );
      chunks = result.chunks;
      usageBytes = Buffer.byteLength(result.markdown);
      if (chunks.length > this.options.maxChunksPerFile) {
        throw new ConversionError(
          'file_too_large',
          `${file.filename} is too large to index: ${chunks.length} chunks (the limit is ${this.options.maxChunksPerFile} per file).`,
        );
      }
      vectors = await this.embed(chunks, file.filename);
      // Without embeddings, the file as the worker serialized it: no large JSON.stringify here.
      let stored: ConvertedFile | Uint8Array;
      if (result.stored && !vectors) stored = result.stored;
      else {
        stored = { format: 1, markdown: result.markdown, chunks };
        if (vectors) stored.embeddings = encodeVectors(this.options.embedder!.model, vectors);
      }
      if (!this.current(storeId, fileId, attempt)) return;
      await this.repository.chunks.write(storeId, fileId, stored);
    } catch (error) {
      // Deleted or detached: nothing failed, and the queue has already moved on.
      if (error instanceof ConversionCancelled) return;
      const message =
        error instanceof ConversionError ? error.message : `Conversion of ${file.filename} failed: ${(error as Error)?.message ?? error}`;
      const step = (error as ConversionError)?.step;
      // Every failed or stopped conversion is in the log: the file, its size, the step, the reason.
      this.options.log(
        error instanceof ConversionError ? 'warn' : 'error',
        `Conversion of ${file.filename} (${formatBytes(file.bytes)}, ${fileId} in ${storeId}) failed${step ? ` while ${step}` : ''}: ${message}` +
          (error instanceof ConversionError ? '' : `\n${(error as Error)?.stack ?? ''}`),
      );
      const latest = this.current(storeId, fileId, attempt);
      if (latest) await this.repository.commit({ op: 'storefile.put', record: { ...latest, status: 'failed', last_error: message } });
      return;
    } finally {
      if (this.running.get(key(storeId, fileId)) === controller) this.running.delete(key(storeId, fileId));
    }
    const wanted = () => this.current(storeId, fileId, attempt) !== undefined;
    const indexed = wanted() && (await this.index(storeId).addFileGradually(fileId, chunks, vectors, wanted, documentTitle(file.filename)));
    const latest = this.current(storeId, fileId, attempt);
    if (!indexed || !latest) {
      // Deleted while the converted file was being written or indexed.
      if (!this.repository.state.storeFile(storeId, fileId)) await this.repository.chunks.remove(storeId, fileId);
      return;
    }
    await this.repository.commit({
      op: 'storefile.put',
      record: {
        ...latest,
        status: 'completed',
        last_error: null,
        usage_bytes: usageBytes,
        chunk_count: chunks.length,
      },
    });
  }

  /** Chunk embeddings for hybrid search; a failing embedder only costs the vector side. */
  private async embed(chunks: Chunk[], filename: string): Promise<Float32Array[] | undefined> {
    const embedder = this.options.embedder;
    if (!embedder || !chunks.length) return undefined;
    try {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
        const batch = chunks.slice(i, i + EMBED_BATCH).map((c) => indexedText(c, documentTitle(filename)));
        vectors.push(...(await embedder.embed(batch)).map(normalize));
      }
      return vectors.length === chunks.length ? vectors : undefined;
    } catch (error) {
      this.options.log(
        'warn',
        `Embedding ${filename} with ${embedder.model} failed; it is searchable by keywords only: ${(error as Error)?.message ?? error}`,
      );
      return undefined;
    }
  }
}
