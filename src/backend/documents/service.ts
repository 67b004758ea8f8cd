/**
 * The documents service's operations, independent of HTTP: used by the routes, by the CLI's
 * demo seeding and by tests. Each mutating call resolves only after its change is on disk.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ApiError, invalid, notFound } from '../http/errors';
import type { Embedder } from '../search/embedder';
import { normalize } from '../search/storeIndex';
import type { ConversionLimits } from '../convert/limits';
import { ConversionPool } from '../convert/pool';
import { matchesFilter } from './filters';
import { Ingestor, type Log } from './ingest';
import {
  expiresAt,
  nowSeconds,
  storeFileObject,
  storeObject,
  type ExpiresAfter,
  type FileRecord,
  type Metadata,
  type StoreFileRecord,
  type StoreRecord,
} from './model';
import { paginate, type ListQuery } from './pagination';
import { DocumentsRepository } from './repository';
import type { SearchParams } from './validation';

export interface DocumentsServiceOptions {
  dataDir: string;
  maxConvertBytes?: number;
  maxChunksPerFile?: number;
  embedder?: Embedder;
  /** Bounds and workers of conversion (defaults: DEFAULT_CONVERSION_LIMITS). */
  conversion?: Partial<ConversionLimits>;
  /** A pool shared with other users (web crawl); by default one is made from `conversion`. It is closed with the service. */
  pool?: ConversionPool;
  log: Log;
  /** Journal entries between snapshots. */
  compactEvery?: number;
}

export const PURPOSES = ['assistants', 'user_data', 'batch', 'fine-tune', 'vision', 'evals'];
const MAX_FILENAME_LENGTH = 255;

function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

/** The same pairs, in any order. */
function sameMetadata(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

export class DocumentsService {
  private constructor(
    private readonly repository: DocumentsRepository,
    readonly ingest: Ingestor,
    private readonly log: Log,
  ) {}

  static async open(options: DocumentsServiceOptions): Promise<DocumentsService> {
    const repository = await DocumentsRepository.open(options.dataDir, options.log, options.compactEvery);
    const pool = options.pool ?? new ConversionPool(options.conversion);
    const ingest = new Ingestor(repository, {
      maxConvertBytes: options.maxConvertBytes ?? 32 * 1024 * 1024,
      maxChunksPerFile: options.maxChunksPerFile ?? 20_000,
      embedder: options.embedder,
      concurrency: Math.max(2, pool.size),
      pool,
      log: options.log,
    });
    ingest.restore();
    return new DocumentsService(repository, ingest, options.log);
  }

  async close(): Promise<void> {
    await this.ingest.close();
    await this.repository.close();
  }

  private get state() {
    return this.repository.state;
  }

  // ------------------------------------------------------------------ vector stores

  async createStore(name: string, metadata: Metadata, expiresAfter: ExpiresAfter | null = null): Promise<StoreRecord> {
    const now = nowSeconds();
    const store: StoreRecord = { id: newId('vs_'), name, created_at: now, last_active_at: now, metadata, expires_after: expiresAfter };
    await this.repository.commit({ op: 'store.put', store });
    return store;
  }

  getStore(id: string): StoreRecord {
    const store = this.state.stores.get(id)?.record;
    if (!store) throw notFound('vector store', id, 'vector_store_id');
    return store;
  }

  findStoreByName(name: string): StoreRecord | undefined {
    for (const { record } of this.state.stores.values()) if (record.name === name) return record;
    return undefined;
  }

  storeObject(store: StoreRecord) {
    return storeObject(store, this.storeFileRecords(store.id));
  }

  listStores(query: ListQuery) {
    return paginate(
      [...this.state.stores.values()],
      query,
      (id) => this.ordinal(this.state.stores, id),
      (s) => this.storeObject(s),
    );
  }

  async deleteStore(id: string): Promise<void> {
    this.getStore(id);
    await this.repository.commit({ op: 'store.delete', id });
    this.ingest.dropStore(id);
    await this.repository.chunks.removeStore(id);
  }

  // ------------------------------------------------------------------ files

  async uploadFile(filename: string, data: Uint8Array, purpose = 'assistants', metadata: Metadata = {}): Promise<FileRecord> {
    // Browsers and some clients send a path; only the name is kept.
    const name = path.basename(filename.replace(/\\/g, '/')).trim();
    if (!name) throw invalid('file', 'The uploaded file needs a file name.', 'missing_filename');
    if (name.length > MAX_FILENAME_LENGTH) {
      throw invalid('file', `The file name may be at most ${MAX_FILENAME_LENGTH} characters long.`, 'string_too_long');
    }
    if (!PURPOSES.includes(purpose)) {
      throw invalid('purpose', `purpose must be one of ${PURPOSES.map((p) => `"${p}"`).join(', ')} (got "${purpose}").`, 'invalid_value');
    }
    const file: FileRecord = { id: newId('file-'), filename: name, bytes: data.byteLength, created_at: nowSeconds(), purpose, metadata };
    await this.repository.blobs.write(file.id, data);
    await this.repository.commit({ op: 'file.put', file });
    return file;
  }

  getFile(id: string): FileRecord {
    const file = this.state.files.get(id)?.record;
    if (!file) throw notFound('file', id, 'file_id');
    return file;
  }

  listFiles(query: ListQuery, toObject: (file: FileRecord) => unknown) {
    return paginate([...this.state.files.values()], query, (id) => this.ordinal(this.state.files, id), toObject);
  }

  async updateFileMetadata(id: string, metadata: Metadata): Promise<FileRecord> {
    const file = { ...this.getFile(id), metadata };
    await this.repository.commit({ op: 'file.put', file });
    return file;
  }

  async fileContent(id: string): Promise<Buffer> {
    this.getFile(id);
    return this.repository.blobs.read(id);
  }

  /** Deletes the file and detaches it from every store it is attached to. */
  async deleteFile(id: string): Promise<void> {
    this.getFile(id);
    const stores = this.state.storesOfFile(id);
    await this.repository.commit({ op: 'file.delete', id });
    for (const storeId of stores) {
      this.ingest.dropFile(storeId, id);
      await this.repository.chunks.remove(storeId, id);
    }
    await this.repository.blobs.remove(id);
  }

  // ------------------------------------------------------------------ vector store files

  /**
   * Attaches a file and starts converting it. Attaching an attached file again returns it (safe to
   * retry), with the metadata the request gives when it gives other metadata (a retry that
   * carries metadata means it); a failed one is converted again.
   */
  async attachFile(storeId: string, fileId: string, metadata: Metadata | undefined, skipOcr: boolean): Promise<StoreFileRecord> {
    const store = this.getStore(storeId);
    this.checkNotExpired(store);
    this.getFile(fileId);
    const existing = this.state.storeFile(storeId, fileId);
    if (existing && existing.status !== 'failed' && existing.status !== 'cancelled') {
      return metadata === undefined || sameMetadata(metadata, existing.metadata)
        ? existing
        : this.updateStoreFileMetadata(storeId, fileId, metadata);
    }
    const record: StoreFileRecord = {
      id: fileId,
      vector_store_id: storeId,
      created_at: existing?.created_at ?? nowSeconds(),
      status: 'in_progress',
      last_error: null,
      metadata: metadata ?? existing?.metadata ?? {},
      skip_ocr: skipOcr,
      usage_bytes: 0,
      chunk_count: 0,
    };
    await this.repository.commit({ op: 'storefile.put', record });
    this.touch(store);
    this.ingest.enqueue(storeId, fileId);
    return record;
  }

  getStoreFile(storeId: string, fileId: string): StoreFileRecord {
    this.getStore(storeId);
    const record = this.state.storeFile(storeId, fileId);
    if (!record) {
      throw new ApiError({
        type: 'not_found_error',
        message: `No file with id '${fileId}' in vector store '${storeId}'.`,
        param: 'file_id',
        code: 'not_found',
      });
    }
    return record;
  }

  listStoreFiles(storeId: string, query: ListQuery, status?: string) {
    this.getStore(storeId);
    const files = this.state.storeFiles.get(storeId)!;
    const page = paginate(
      [...files.values()].filter((f) => status === undefined || f.record.status === status),
      query,
      (id) => files.get(id)?.ordinal ?? this.state.tombstones.get(`${storeId}/${id}`),
      storeFileObject,
    );
    return { ...page, vector_store_id: storeId };
  }

  async updateStoreFileMetadata(storeId: string, fileId: string, metadata: Metadata): Promise<StoreFileRecord> {
    const record = { ...this.getStoreFile(storeId, fileId), metadata };
    await this.repository.commit({ op: 'storefile.put', record });
    return record;
  }

  async deleteStoreFile(storeId: string, fileId: string): Promise<void> {
    this.getStoreFile(storeId, fileId);
    await this.repository.commit({ op: 'storefile.delete', storeId, fileId });
    this.ingest.dropFile(storeId, fileId);
    await this.repository.chunks.remove(storeId, fileId);
  }

  /** The converted markdown of a completed store file. */
  async storeFileContent(storeId: string, fileId: string): Promise<string> {
    const record = this.getStoreFile(storeId, fileId);
    if (record.status === 'failed') {
      // A failed conversion stays failed: waiting will not help, attaching again might.
      throw invalid(
        'file_id',
        `The file could not be converted, so it has no text${record.last_error ? `: ${record.last_error}` : '.'}`,
        'file_not_converted',
      );
    }
    if (record.status !== 'completed') {
      throw invalid('file_id', `The file is not converted yet (status ${record.status}).`, 'file_not_ready');
    }
    const converted = await this.repository.chunks.read(storeId, fileId);
    if (!converted) {
      throw new ApiError({ type: 'server_error', message: 'The converted content of this file is missing.', code: 'content_missing' });
    }
    return converted.markdown;
  }

  /** Resolves once the store file has finished converting (or was deleted). */
  async whenProcessed(storeId: string, fileId: string): Promise<StoreFileRecord | undefined> {
    await this.ingest.whenSettled(storeId, fileId);
    return this.state.storeFile(storeId, fileId);
  }

  // ------------------------------------------------------------------ search

  async search(storeId: string, params: SearchParams) {
    const store = this.getStore(storeId);
    this.checkNotExpired(store);
    await this.ingest.whenLoaded();
    const index = this.ingest.index(storeId);
    const queryVector = index.hasVectors ? await this.embedQuery(params.query) : undefined;
    const filter = params.filter;
    const fileIds = filter
      ? this.storeFileRecords(storeId)
          .filter((f) => (params.fileIds?.includes(f.id) ?? true) && matchesFilter(filter, f.metadata))
          .map((f) => f.id)
      : params.fileIds;
    const threshold = params.scoreThreshold ?? 0;
    const hits = index
      .search(params.query, { maxResults: params.maxNumResults, fileIds, queryVector })
      .filter((hit) => hit.score >= threshold);
    this.touch(store);
    return {
      object: 'vector_store.search_results.page',
      search_query: params.query,
      query: params.query,
      max_num_results: params.maxNumResults,
      vector_store_id: storeId,
      files: params.fileIds ?? [],
      ranking: queryVector ? 'hybrid' : 'bm25',
      data: hits.map((hit) => ({
        id: `${hit.fileId}:${hit.chunkIndex}`,
        object: 'vector_store.search_result',
        score: hit.score,
        content: hit.text,
        file_id: hit.fileId,
        filename: this.state.files.get(hit.fileId)?.record.filename ?? null,
        chunk_index: hit.chunkIndex,
        heading: hit.heading,
        attributes: this.state.storeFile(storeId, hit.fileId)?.metadata ?? {},
      })),
      has_more: false,
      next_page: null,
    };
  }

  private async embedQuery(query: string): Promise<Float32Array | undefined> {
    const embedder = this.ingest.embedder;
    if (!embedder) return undefined;
    try {
      const [vector] = await embedder.embed([query]);
      return vector ? normalize(vector) : undefined;
    } catch (error) {
      this.log('warn', `Embedding the query failed; searching by keywords only: ${(error as Error)?.message ?? error}`);
      return undefined;
    }
  }

  // ------------------------------------------------------------------ helpers

  private storeFileRecords(storeId: string): StoreFileRecord[] {
    return [...(this.state.storeFiles.get(storeId)?.values() ?? [])].map((f) => f.record);
  }

  private ordinal<T>(map: Map<string, { ordinal: number; record: T }>, id: string): number | undefined {
    return map.get(id)?.ordinal ?? this.state.tombstones.get(id);
  }

  private checkNotExpired(store: StoreRecord): void {
    const expires = expiresAt(store);
    if (expires !== null && expires <= nowSeconds()) {
      throw invalid(
        'vector_store_id',
        `The vector store ${store.id} expired at ${new Date(expires * 1000).toISOString()}.`,
        'vector_store_expired',
      );
    }
  }

  /**
   * Activity moves the expiry of stores that have one. Recorded at most once a minute and not
   * awaited: losing the last minute of activity in a crash only makes a store expire sooner.
   */
  private touch(store: StoreRecord): void {
    const now = nowSeconds();
    if (!store.expires_after || now - store.last_active_at < 60) return;
    const latest = this.state.stores.get(store.id)?.record;
    if (!latest) return;
    this.repository.commit({ op: 'store.put', store: { ...latest, last_active_at: now } }).catch((error) => {
      this.log('warn', `Could not record activity of ${store.id}: ${(error as Error)?.message ?? error}`);
    });
  }
}
