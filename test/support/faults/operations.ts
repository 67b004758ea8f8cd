/**
 * Every client operation of both services, described once for table-driven fault tests: how to
 * call it, where it lands on the server, whether a retry is safe, and a valid answer.
 */
import type { DocumentsClient } from '../../../src/api/documents/client';
import type { GatewayClient } from '../../../src/api/gateway/client';
import { chatChunk, sseBody } from '../servers/scriptServer';
import { SAMPLE_FILE, SAMPLE_STORE, SAMPLE_STORE_FILE } from '../wireSamples';

export interface Clients {
  documents: DocumentsClient;
  gateway: GatewayClient;
}

export interface OperationCase {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** A retry may repeat the request: reads, PUTs, DELETEs and read-only POSTs (search, embed, tools). */
  idempotent: boolean;
  /** Streamed answers: the call yields parts; `run` collects them into `parts`. */
  stream?: boolean;
  /** A valid success body for the operation (JSON, or text for streams and raw content). */
  ok: { status?: number; contentType?: string; body: string };
  run(clients: Clients, parts: unknown[]): Promise<unknown>;
}

const json = (value: unknown) => ({ body: JSON.stringify(value), contentType: 'application/json' });

const store = SAMPLE_STORE;
const file = SAMPLE_FILE;
const storeFile = SAMPLE_STORE_FILE;
const list = (data: unknown[]) => ({ object: 'list', data, first_id: null, last_id: null, has_more: false });
const deleted = (object: string) => ({ id: 'x', object, deleted: true });
const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
const chat = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'alpha-5-mini',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }],
  usage,
};
const chatRequest = { model: 'alpha-5-mini', messages: [{ role: 'user', content: 'Hi' }] };

/** The words of a streamed answer: each is one SSE event, so a cut keeps a known prefix. */
export const STREAM_WORDS = ['Grüße ', 'from ', 'the ', 'stream ', '😀 ', 'end.'];
export const STREAM_BODY = sseBody([
  chatChunk('', { role: 'assistant' }),
  ...STREAM_WORDS.map((w) => chatChunk(w)),
  chatChunk(undefined, { finish_reason: 'stop' }),
  chatChunk(undefined, { usage }),
]);

async function drain(iterable: AsyncIterable<unknown>, parts: unknown[]): Promise<unknown[]> {
  for await (const part of iterable) parts.push(part);
  return parts;
}

export const OPERATIONS: OperationCase[] = [
  // ------------------------------------------------------------ documents service
  {
    name: 'createVectorStore',
    method: 'POST',
    path: '/v1/vector_stores',
    idempotent: false,
    ok: json(store),
    run: (c) => c.documents.createVectorStore({ name: 'docs' }),
  },
  {
    name: 'listVectorStores',
    method: 'GET',
    path: '/v1/vector_stores',
    idempotent: true,
    ok: json(list([store])),
    run: (c) => c.documents.listVectorStores(),
  },
  {
    name: 'retrieveVectorStore',
    method: 'GET',
    path: '/v1/vector_stores/vs_1',
    idempotent: true,
    ok: json(store),
    run: (c) => c.documents.retrieveVectorStore('vs_1'),
  },
  {
    name: 'deleteVectorStore',
    method: 'DELETE',
    path: '/v1/vector_stores/vs_1',
    idempotent: true,
    ok: json(deleted('vector_store.deleted')),
    run: (c) => c.documents.deleteVectorStore('vs_1'),
  },
  { name: 'listFiles', method: 'GET', path: '/v1/files', idempotent: true, ok: json(list([file])), run: (c) => c.documents.listFiles() },
  {
    name: 'retrieveFile',
    method: 'GET',
    path: '/v1/files/file-1',
    idempotent: true,
    ok: json(file),
    run: (c) => c.documents.retrieveFile('file-1'),
  },
  {
    name: 'uploadFile',
    method: 'POST',
    path: '/v1/files',
    idempotent: false,
    ok: json(file),
    run: (c) => c.documents.uploadFile({ filename: 'a.md', data: new TextEncoder().encode('# a') }),
  },
  {
    name: 'updateFileMetadata',
    method: 'PUT',
    path: '/v1/files/file-1',
    idempotent: true,
    ok: json(file),
    run: (c) => c.documents.updateFileMetadata('file-1', { k: 'v' }),
  },
  {
    name: 'deleteFile',
    method: 'DELETE',
    path: '/v1/files/file-1',
    idempotent: true,
    ok: json(deleted('file.deleted')),
    run: (c) => c.documents.deleteFile('file-1'),
  },
  {
    name: 'retrieveFileContent',
    method: 'GET',
    path: '/v1/files/file-1/content',
    idempotent: true,
    ok: { body: '# a', contentType: 'text/markdown' },
    run: (c) => c.documents.retrieveFileContent('file-1'),
  },
  {
    name: 'attachFile',
    method: 'POST',
    path: '/v1/vector_stores/vs_1/files',
    idempotent: false,
    ok: json(storeFile),
    run: (c) => c.documents.attachFile('vs_1', { file_id: 'file-1' }),
  },
  {
    name: 'listVectorStoreFiles',
    method: 'GET',
    path: '/v1/vector_stores/vs_1/files',
    idempotent: true,
    ok: json({ ...list([storeFile]), vector_store_id: 'vs_1' }),
    run: (c) => c.documents.listVectorStoreFiles('vs_1'),
  },
  {
    name: 'retrieveVectorStoreFile',
    method: 'GET',
    path: '/v1/vector_stores/vs_1/files/file-1',
    idempotent: true,
    ok: json(storeFile),
    run: (c) => c.documents.retrieveVectorStoreFile('vs_1', 'file-1'),
  },
  {
    name: 'updateVectorStoreFileMetadata',
    method: 'PUT',
    path: '/v1/vector_stores/vs_1/files/file-1',
    idempotent: true,
    ok: json(storeFile),
    run: (c) => c.documents.updateVectorStoreFileMetadata('vs_1', 'file-1', { k: 'v' }),
  },
  {
    name: 'deleteVectorStoreFile',
    method: 'DELETE',
    path: '/v1/vector_stores/vs_1/files/file-1',
    idempotent: true,
    ok: json(deleted('vector_store.file.deleted')),
    run: (c) => c.documents.deleteVectorStoreFile('vs_1', 'file-1'),
  },
  {
    name: 'retrieveVectorStoreFileContent',
    method: 'GET',
    path: '/v1/vector_stores/vs_1/files/file-1/content',
    idempotent: true,
    ok: json({ object: 'vector_store.file_content.page', data: [{ type: 'text', text: '# a' }] }),
    run: (c) => c.documents.retrieveVectorStoreFileContent('vs_1', 'file-1'),
  },
  {
    name: 'search',
    method: 'POST',
    path: '/v1/vector_stores/vs_1/search',
    idempotent: true,
    ok: json({ object: 'vector_store.search_results.page', data: [{ score: 0.5, content: 'x', file_id: 'file-1' }] }),
    run: (c) => c.documents.search('vs_1', { query: 'q' }),
  },
  // ------------------------------------------------------------ gateway
  {
    name: 'chatCompletion',
    method: 'POST',
    path: '/v1/chat/completions',
    idempotent: false,
    ok: json(chat),
    run: (c) => c.gateway.chatCompletion(chatRequest),
  },
  {
    name: 'streamChatCompletion',
    method: 'POST',
    path: '/v1/chat/completions',
    idempotent: false,
    stream: true,
    ok: { body: STREAM_BODY, contentType: 'text/event-stream' },
    run: (c, parts) => drain(c.gateway.streamChatCompletion(chatRequest), parts),
  },
  {
    name: 'listCompletionModels',
    method: 'GET',
    path: '/v1/completions/models',
    idempotent: true,
    ok: json({ object: 'list', data: [{ id: 'alpha-5-mini', object: 'model' }] }),
    run: (c) => c.gateway.listCompletionModels(),
  },
  {
    name: 'listEmbeddingModels',
    method: 'GET',
    path: '/v1/embed/models',
    idempotent: true,
    ok: json({ object: 'list', data: [{ id: 'text-embed-3-small', object: 'model' }] }),
    run: (c) => c.gateway.listEmbeddingModels(),
  },
  {
    name: 'inference',
    method: 'POST',
    path: '/v1/inference/o3-mini',
    idempotent: false,
    ok: json({ model: 'o3-mini', response: 'hi', usage }),
    run: (c) => c.gateway.inference('o3-mini', { prompt: 'Hi' }),
  },
  {
    name: 'streamInference',
    method: 'POST',
    path: '/v1/inference/o3-mini',
    idempotent: false,
    stream: true,
    ok: { body: STREAM_BODY, contentType: 'text/event-stream' },
    run: (c, parts) => drain(c.gateway.streamInference('o3-mini', { prompt: 'Hi' }), parts),
  },
  {
    name: 'embed',
    method: 'POST',
    path: '/v1/embed',
    idempotent: true,
    ok: json({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embed-3-small', usage }),
    run: (c) => c.gateway.embed({ model: 'text-embed-3-small', input: 'hi' }),
  },
  {
    name: 'skillshare',
    method: 'POST',
    path: '/v1/tools/skillshare',
    idempotent: true,
    ok: json([{ name: 'Ada', information: ['x'], skillshare_link: 'https://x', top_match_terms: ['y'] }]),
    run: (c) => c.gateway.skillshare('rust'),
  },
  {
    name: 'webCrawl',
    method: 'POST',
    path: '/v1/tools/web/crawl',
    idempotent: true,
    ok: json({ results: [{ url: 'https://example.com', content: '# x' }] }),
    run: (c) => c.gateway.webCrawl(['https://example.com']),
  },
  {
    name: 'webSearch',
    method: 'POST',
    path: '/v1/tools/web/search',
    idempotent: true,
    ok: json({ results: [{ title: 't', url: 'https://example.com', content: 'c' }] }),
    run: (c) => c.gateway.webSearch({ query: 'q' }),
  },
  {
    name: 'startResearch',
    method: 'POST',
    path: '/v1/tools/web/research',
    idempotent: false,
    ok: json({ id: 'research_1', object: 'research', status: 'in_progress', created_at: 1 }),
    run: (c) => c.gateway.startResearch('q'),
  },
  {
    name: 'researchStatus',
    method: 'GET',
    path: '/v1/tools/web/research/research_1',
    idempotent: true,
    ok: json({ id: 'research_1', status: 'completed', result: { content: 'x', sources: [] } }),
    run: (c) => c.gateway.researchStatus('research_1'),
  },
];
