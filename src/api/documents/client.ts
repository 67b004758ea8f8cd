/** Typed client of the documents service: vector stores, files, vector store files, search. */
import { ProtocolError, TimeoutError, ValidationError } from '../http/errors';
import { encodeMultipart } from '../http/multipart';
import type { CallOptions, ClientOptions } from '../http/options';
import type { BodyLimit } from '../http/transport';
import { type ListPage, type ListParams, type Paginator, paginate, toListPage } from '../http/pagination';
import { ServiceClient } from '../http/serviceClient';
import { parseRequest, parseResponse } from '../http/validate';
import {
  attachFileRequestSchema,
  createVectorStoreRequestSchema,
  DEFAULT_FILE_IDS_FIELD,
  DEFAULT_SKIP_OCR_FIELD,
  DEFAULT_UPLOAD_PURPOSE,
  deletedSchema,
  DOCUMENTS_RATE_LIMITS,
  type DocumentsOperation,
  type FileObject,
  fileContentPageSchema,
  fileObjectSchema,
  isCanonicalFileObject,
  isCanonicalVectorStore,
  isCanonicalVectorStoreFile,
  type ListSchema,
  listSchema,
  parseListFast,
  listParamsSchema,
  type Metadata,
  searchRequestSchema,
  type SearchResult,
  searchResultSchema,
  TERMINAL_FILE_STATUSES,
  updateMetadataRequestSchema,
  uploadFileRequestSchema,
  VECTOR_STORE_FILE_STATUSES,
  type VectorStore,
  type VectorStoreFile,
  vectorStoreFileSchema,
  vectorStoreSchema,
} from './schemas';

export interface DocumentsClientOptions extends ClientOptions {
  /** Wire name of the skip-OCR/table-recognition option when attaching a file. Default `skip_ocr`. */
  skipOcrField?: string;
  /** Wire name of the file restriction of a search. Default `file_ids`. */
  fileIdsField?: string;
}

export interface WaitOptions extends CallOptions {
  onStatus?(file: VectorStoreFile): void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Give up (TimeoutError) after this long. Default 10 minutes. */
  timeoutMs?: number;
}

const vectorStoreList = listSchema(vectorStoreSchema, isCanonicalVectorStore);
const fileList = listSchema(fileObjectSchema, isCanonicalFileObject);
const vectorStoreFileList = listSchema(vectorStoreFileSchema, isCanonicalVectorStoreFile);
/** A configurable body field name: blank means the default; whitespace inside is a typo. */
function wireFieldName(value: string | undefined, fallback: string, option: string, what: string): string {
  const name = value?.trim();
  if (!name) return fallback;
  if (/\s/.test(name) || name === '__proto__') {
    throw new ValidationError(option, 'a field name without spaces', `The field name for the ${what} ("${name}") must not contain spaces.`);
  }
  return name;
}

const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  csv: 'text/csv',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

function contentTypeOf(filename: string): string {
  const ext = filename.split('.').pop()?.toLowerCase() ?? '';
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

function segment(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError(what, 'a non-empty id', `The ${what.replace(/_/g, ' ')} must not be empty.`);
  }
  // encodeURIComponent keeps "." and "..", which a URL resolves as dot segments: `files/..` would reach the store itself.
  if (value === '.' || value === '..') {
    throw new ValidationError(what, 'not "." or ".."', `The ${what.replace(/_/g, ' ')} "${value}" is not a valid id.`);
  }
  return encodeURIComponent(value);
}

/** A deletion the service answered with `deleted: false`: nothing was deleted, and the caller must not act as if it were. */
function refusedDeletion(result: { deleted?: boolean } | undefined, what: string): void {
  if (result?.deleted === false) {
    throw new ProtocolError(`The documents service did not delete the ${what}: it answered "deleted": false.`);
  }
}

export class DocumentsClient extends ServiceClient<DocumentsOperation> {
  private readonly skipOcrField: string;
  private readonly fileIdsField: string;

  constructor(options: DocumentsClientOptions) {
    // Checked before the transport exists, so a bad option leaves no connection pool behind.
    const skipOcrField = wireFieldName(options.skipOcrField, DEFAULT_SKIP_OCR_FIELD, 'skipOcrField', 'skip-OCR option');
    const fileIdsField = wireFieldName(options.fileIdsField, DEFAULT_FILE_IDS_FIELD, 'fileIdsField', 'search file restriction');
    super(options, {
      service: 'documents service',
      auth: { header: 'authorization', value: (token) => `Bearer ${token}`, name: 'token' },
      defaultRateLimits: DOCUMENTS_RATE_LIMITS,
    });
    this.skipOcrField = skipOcrField;
    this.fileIdsField = fileIdsField;
  }

  private async list<T extends { id: string }>(
    operation: DocumentsOperation,
    path: string,
    schema: ListSchema<T>,
    params: ListParams = {},
    o: CallOptions = {},
  ): Promise<ListPage<T>> {
    const query = parseRequest(listParamsSchema, params, 'params');
    const spec = this.spec(operation, 'GET', path, o, { query });
    const response = await this.http.open(spec);
    const value = await this.http.readJson(response, spec);
    const envelope =
      parseListFast(schema, value)?.data ??
      parseResponse(schema.full, value, 'list', { status: response.status, requestId: response.requestId });
    return toListPage(envelope);
  }

  private stuck = (cursor: string) =>
    this.log?.('warn', `The documents service returned the same page cursor "${cursor}" twice; stopped paging.`);

  // ------------------------------------------------------------ vector stores

  async createVectorStore(body: { name: string; metadata?: Metadata }, o?: CallOptions): Promise<VectorStore> {
    const json = parseRequest(createVectorStoreRequestSchema, body);
    return this.http.json(this.spec('createVectorStore', 'POST', '/v1/vector_stores', o, { json }), vectorStoreSchema, 'vector store');
  }

  async listVectorStores(p?: ListParams, o?: CallOptions): Promise<ListPage<VectorStore>> {
    return this.list('listVectorStores', '/v1/vector_stores', vectorStoreList, p, o);
  }

  vectorStores(p?: ListParams, o?: CallOptions): Paginator<VectorStore> {
    return paginate((params, opts) => this.listVectorStores(params, opts), p, o, this.stuck);
  }

  async retrieveVectorStore(id: string, o?: CallOptions): Promise<VectorStore> {
    const path = `/v1/vector_stores/${segment(id, 'vector_store_id')}`;
    return this.http.json(this.spec('retrieveVectorStore', 'GET', path, o), vectorStoreSchema, 'vector store');
  }

  async deleteVectorStore(id: string, o?: CallOptions): Promise<void> {
    const path = `/v1/vector_stores/${segment(id, 'vector_store_id')}`;
    refusedDeletion(
      await this.http.json(this.spec('deleteVectorStore', 'DELETE', path, o), deletedSchema.optional(), 'deletion result'),
      'vector store',
    );
  }

  // ------------------------------------------------------------ files

  async listFiles(p?: ListParams, o?: CallOptions): Promise<ListPage<FileObject>> {
    return this.list('listFiles', '/v1/files', fileList, p, o);
  }

  files(p?: ListParams, o?: CallOptions): Paginator<FileObject> {
    return paginate((params, opts) => this.listFiles(params, opts), p, o, this.stuck);
  }

  async retrieveFile(id: string, o?: CallOptions): Promise<FileObject> {
    const path = `/v1/files/${segment(id, 'file_id')}`;
    return this.http.json(this.spec('retrieveFile', 'GET', path, o), fileObjectSchema, 'file');
  }

  async uploadFile(file: { filename: string; data: Uint8Array; purpose?: string }, o?: CallOptions): Promise<FileObject> {
    const { filename, data, purpose } = parseRequest(uploadFileRequestSchema, file);
    const body = encodeMultipart([
      { name: 'purpose', value: purpose ?? DEFAULT_UPLOAD_PURPOSE },
      { name: 'file', filename, data, contentType: contentTypeOf(filename) },
    ]);
    return this.http.json(this.spec('uploadFile', 'POST', '/v1/files', o, { body, headersTimeoutMs: 300_000 }), fileObjectSchema, 'file');
  }

  async updateFileMetadata(id: string, metadata: Metadata, o?: CallOptions): Promise<FileObject> {
    const json = parseRequest(updateMetadataRequestSchema, { metadata });
    const path = `/v1/files/${segment(id, 'file_id')}`;
    return this.http.json(this.spec('updateFileMetadata', 'PUT', path, o, { json }), fileObjectSchema, 'file');
  }

  async deleteFile(id: string, o?: CallOptions): Promise<void> {
    const path = `/v1/files/${segment(id, 'file_id')}`;
    refusedDeletion(await this.http.json(this.spec('deleteFile', 'DELETE', path, o), deletedSchema.optional(), 'deletion result'), 'file');
  }

  async retrieveFileContent(id: string, o?: CallOptions): Promise<Uint8Array> {
    const path = `/v1/files/${segment(id, 'file_id')}/content`;
    const { data } = await this.http.bytes(this.spec('retrieveFileContent', 'GET', path, o, { accept: '*/*' }));
    return data;
  }

  // ------------------------------------------------------------ vector store files

  async attachFile(
    storeId: string,
    body: { file_id: string; metadata?: Metadata; skipOcr?: boolean },
    o?: CallOptions,
  ): Promise<VectorStoreFile> {
    const { file_id, metadata, skipOcr } = parseRequest(attachFileRequestSchema, body);
    const path = `/v1/vector_stores/${segment(storeId, 'vector_store_id')}/files`;
    const json: Record<string, unknown> = { file_id };
    if (metadata !== undefined) json.metadata = metadata;
    if (skipOcr !== undefined) json[this.skipOcrField] = skipOcr;
    return this.http.json(this.spec('attachFile', 'POST', path, o, { json }), vectorStoreFileSchema, 'vector store file');
  }

  async listVectorStoreFiles(storeId: string, p?: ListParams, o?: CallOptions): Promise<ListPage<VectorStoreFile>> {
    const path = `/v1/vector_stores/${segment(storeId, 'vector_store_id')}/files`;
    return this.list('listVectorStoreFiles', path, vectorStoreFileList, p, o);
  }

  vectorStoreFiles(storeId: string, p?: ListParams, o?: CallOptions): Paginator<VectorStoreFile> {
    return paginate((params, opts) => this.listVectorStoreFiles(storeId, params, opts), p, o, this.stuck);
  }

  private storeFilePath(storeId: string, fileId: string): string {
    return `/v1/vector_stores/${segment(storeId, 'vector_store_id')}/files/${segment(fileId, 'file_id')}`;
  }

  async retrieveVectorStoreFile(storeId: string, fileId: string, o?: CallOptions): Promise<VectorStoreFile> {
    const path = this.storeFilePath(storeId, fileId);
    return this.http.json(this.spec('retrieveVectorStoreFile', 'GET', path, o), vectorStoreFileSchema, 'vector store file');
  }

  async updateVectorStoreFileMetadata(storeId: string, fileId: string, metadata: Metadata, o?: CallOptions): Promise<VectorStoreFile> {
    const json = parseRequest(updateMetadataRequestSchema, { metadata });
    const path = this.storeFilePath(storeId, fileId);
    return this.http.json(this.spec('updateVectorStoreFileMetadata', 'PUT', path, o, { json }), vectorStoreFileSchema, 'vector store file');
  }

  async deleteVectorStoreFile(storeId: string, fileId: string, o?: CallOptions): Promise<void> {
    const path = this.storeFilePath(storeId, fileId);
    refusedDeletion(
      await this.http.json(this.spec('deleteVectorStoreFile', 'DELETE', path, o), deletedSchema.optional(), 'deletion result'),
      'file from the vector store',
    );
  }

  /**
   * The converted markdown of an attached file (its chunks joined by blank lines). `limit` bounds
   * the response read (a caller that keeps the text in memory), with the caller's error past it.
   */
  async retrieveVectorStoreFileContent(storeId: string, fileId: string, o?: CallOptions & { limit?: BodyLimit }): Promise<string> {
    const spec = this.spec('retrieveVectorStoreFileContent', 'GET', `${this.storeFilePath(storeId, fileId)}/content`, o, {
      accept: 'application/json, text/markdown;q=0.9, text/plain;q=0.8',
      ...(o?.limit ? { bodyLimit: o.limit } : {}),
    });
    const response = await this.http.open(spec);
    // A web page (a proxy's or a sign-in page) is refused by readJson, never shown as content.
    if (!/json|text\/html/i.test(response.contentType)) {
      return (await this.http.readBody(response, spec, (body) => this.http.readAllCapped(body, response, spec.bodyLimit))).toString('utf8');
    }
    const value = await this.http.readJson(response, spec);
    if (typeof value === 'string') return value;
    const page = parseResponse(fileContentPageSchema, value, 'file content', { status: response.status, requestId: response.requestId });
    return page.data.map((part) => part.text).join('\n\n');
  }

  /**
   * Polls a vector store file until it is `completed`, `failed` or `cancelled` and returns it
   * (a failed file carries `last_error`). Unknown statuses are reported through `onStatus` and
   * the log, and polling goes on until the timeout.
   */
  async waitUntilProcessed(storeId: string, fileId: string, o: WaitOptions = {}): Promise<VectorStoreFile> {
    const clock = this.http.clock;
    const maxDelay = o.maxDelayMs ?? 5_000;
    const timeoutMs = o.timeoutMs ?? 600_000;
    const deadline = clock.now() + timeoutMs;
    const known: readonly string[] = VECTOR_STORE_FILE_STATUSES;
    const warned = new Set<string>();
    let delay = o.initialDelayMs ?? 500;
    for (;;) {
      const file = await this.retrieveVectorStoreFile(storeId, fileId, o);
      o.onStatus?.(file);
      if (TERMINAL_FILE_STATUSES.includes(file.status)) return file;
      if (!known.includes(file.status) && !warned.has(file.status)) {
        warned.add(file.status);
        this.log?.('warn', `File ${fileId} in ${storeId} has the unknown status "${file.status}"; still waiting for it to finish.`);
      }
      if (clock.now() + delay > deadline) {
        throw new TimeoutError(`File ${fileId} was still "${file.status}" after ${Math.round(timeoutMs / 1000)} s of processing.`, {
          retryable: false,
        });
      }
      await clock.sleep(delay, o.signal);
      delay = Math.min(delay * 2, maxDelay);
    }
  }

  // ------------------------------------------------------------ search

  async search(
    storeId: string,
    body: { query: string; max_num_results?: number; file_ids?: string[] },
    o?: CallOptions,
  ): Promise<SearchResult> {
    const { query, max_num_results, file_ids } = parseRequest(searchRequestSchema, body);
    const json: Record<string, unknown> = { query };
    if (max_num_results !== undefined) json.max_num_results = max_num_results;
    if (file_ids !== undefined) json[this.fileIdsField] = file_ids;
    const path = `/v1/vector_stores/${segment(storeId, 'vector_store_id')}/search`;
    // Searching changes nothing on the server, so it is safe to retry despite being a POST.
    const result = await this.http.json(
      this.spec('search', 'POST', path, o, { json, idempotent: true }),
      searchResultSchema,
      'search result',
    );
    result.data.sort((a, b) => b.score - a.score);
    return result;
  }
}
