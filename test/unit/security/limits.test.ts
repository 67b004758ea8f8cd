/**
 * Every limit of the documents service (and the gateway's required fields and types), at its edge
 * and one past it, through both sides: the client refuses before sending (the server records no
 * request) with a message naming the limit, and the embedded backend, sent the same input as raw
 * HTTP, answers 400 naming the same limit. Edge values pass on both sides.
 */
import * as assert from 'node:assert/strict';
import { request } from 'undici';
import type { DocumentsClient } from '../../../src/api/documents/client';
import type { GatewayClient } from '../../../src/api/gateway/client';
import { ValidationError } from '../../../src/api/http/errors';
import { ScriptServer } from '../../support/servers/scriptServer';
import { API_KEY as CLIENT_KEY, documentsClient, gatewayClient, TOKEN as CLIENT_TOKEN } from '../api/helpers';
import { API_KEY, startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

type Raw = { method: 'GET' | 'POST' | 'PUT'; path: string; body?: unknown };
interface LimitCase {
  name: string;
  /** `edge`: allowed on both sides; `past`: refused on both sides, naming `limit`. */
  kind: 'edge' | 'past';
  limit?: RegExp;
  client(c: { documents: DocumentsClient; gateway: GatewayClient }): Promise<unknown>;
  raw: Raw;
}

const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const S = '/v1/vector_stores/STORE';
const F = '/v1/files/FILE';
const SF = '/v1/vector_stores/STORE/files/FILE';
const chat = (extra: Record<string, unknown>) => ({ model: 'local-extractive', messages: [{ role: 'user', content: 'hi' }], ...extra });

function edge(name: string, client: LimitCase['client'], raw: Raw): LimitCase {
  return { name, kind: 'edge', client, raw };
}
function past(name: string, limit: RegExp, client: LimitCase['client'], raw: Raw): LimitCase {
  return { name, kind: 'past', limit, client, raw };
}

/** Metadata cases, run through each operation that takes metadata. */
function metadataCases(where: string, send: (m: unknown) => LimitCase['client'], raw: (m: unknown) => Raw): LimitCase[] {
  const m = (value: unknown) => [send(value), raw(value)] as const;
  return [
    edge(`${where}: 16 metadata pairs`, ...m(pairs(16))),
    past(`${where}: 17 metadata pairs`, /at most 16 pairs \(it has 17\)/, ...m(pairs(17))),
    edge(`${where}: 64-character key`, ...m({ ['k'.repeat(64)]: 'v' })),
    past(`${where}: 65-character key`, /longer than 64 characters/, ...m({ ['k'.repeat(65)]: 'v' })),
    edge(`${where}: 512-character value`, ...m({ k: 'v'.repeat(512) })),
    past(`${where}: 513-character value`, /longer than 512 characters/, ...m({ k: 'v'.repeat(513) })),
    edge(`${where}: 512 emoji (code points, not UTF-16 units)`, ...m({ k: '😀'.repeat(512) })),
    past(`${where}: 513 emoji`, /longer than 512 characters/, ...m({ k: '😀'.repeat(513) })),
    edge(`${where}: control characters and unicode in a value`, ...m({ schlüssel: 'a\u0000b\u0007c\u202ed' })),
    past(`${where}: a number value`, /Metadata values must be strings/, ...m({ k: 5 })),
    past(`${where}: an array`, /Metadata must be an object of string keys and string values/, ...m(['a'])),
  ];
}

const CASES: LimitCase[] = [
  // ------------------------------------------------------------ vector store name
  edge('name of 1 character', (c) => c.documents.createVectorStore({ name: 'a' }), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: { name: 'a' },
  }),
  edge('name of 63 characters', (c) => c.documents.createVectorStore({ name: 'A-b_9'.padEnd(63, 'x') }), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: { name: 'A-b_9'.padEnd(63, 'x') },
  }),
  past('empty name', /1 to 63 characters long \(it has 0\)/, (c) => c.documents.createVectorStore({ name: '' }), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: { name: '' },
  }),
  past('name of 64 characters', /1 to 63 characters long \(it has 64\)/, (c) => c.documents.createVectorStore({ name: 'x'.repeat(64) }), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: { name: 'x'.repeat(64) },
  }),
  ...['has space', 'dots.no', 'ümlaut', 'emoji😀', 'nul\u0000byte', 'new\nline', 'rtl\u202eoverride', '../etc', '<script>'].map((name) =>
    past(
      `name ${JSON.stringify(name)}`,
      /only letters, digits, hyphens \(-\) and underscores \(_\)/,
      (c) => c.documents.createVectorStore({ name }),
      {
        method: 'POST',
        path: '/v1/vector_stores',
        body: { name },
      },
    ),
  ),
  past('missing name (required)', /name is required/, (c) => c.documents.createVectorStore({} as never), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: {},
  }),
  past('name of the wrong type', /name must be a string/, (c) => c.documents.createVectorStore({ name: 42 } as never), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: { name: 42 },
  }),
  past('an unknown field', /Unknown field "extra"/, (c) => c.documents.createVectorStore({ name: 'a', extra: 1 } as never), {
    method: 'POST',
    path: '/v1/vector_stores',
    body: { name: 'a', extra: 1 },
  }),
  // ------------------------------------------------------------ metadata, on every operation that takes it
  ...metadataCases(
    'create store',
    (m) => (c) => c.documents.createVectorStore({ name: 'a', metadata: m as never }),
    (m) => ({ method: 'POST', path: '/v1/vector_stores', body: { name: 'a', metadata: m } }),
  ),
  ...metadataCases(
    'file',
    (m) => (c) => c.documents.updateFileMetadata('FILE', m as never),
    (m) => ({ method: 'PUT', path: F, body: { metadata: m } }),
  ),
  ...metadataCases(
    'store file',
    (m) => (c) => c.documents.updateVectorStoreFileMetadata('STORE', 'FILE', m as never),
    (m) => ({ method: 'PUT', path: SF, body: { metadata: m } }),
  ),
  ...metadataCases(
    'attach',
    (m) => (c) => c.documents.attachFile('STORE', { file_id: 'FILE', metadata: m as never }),
    (m) => ({ method: 'POST', path: `${S}/files`, body: { file_id: 'FILE', metadata: m } }),
  ),
  past('attach without file_id (required)', /file_id is required/, (c) => c.documents.attachFile('STORE', {} as never), {
    method: 'POST',
    path: `${S}/files`,
    body: {},
  }),
  past(
    'attach with skip_ocr of the wrong type',
    /true or false/,
    (c) => c.documents.attachFile('STORE', { file_id: 'FILE', skipOcr: 'yes' as never }),
    { method: 'POST', path: `${S}/files`, body: { file_id: 'FILE', skip_ocr: 'yes' } },
  ),
  // ------------------------------------------------------------ search
  edge('query of 10,000 characters', (c) => c.documents.search('STORE', { query: 'q'.repeat(10_000) }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'q'.repeat(10_000) },
  }),
  past(
    'query of 10,001 characters',
    /at most 10,000 characters long \(it has 10,001\)/,
    (c) => c.documents.search('STORE', { query: 'q'.repeat(10_001) }),
    { method: 'POST', path: `${S}/search`, body: { query: 'q'.repeat(10_001) } },
  ),
  edge('query of 10,000 emoji', (c) => c.documents.search('STORE', { query: '😀'.repeat(10_000) }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: '😀'.repeat(10_000) },
  }),
  past('query of 10,001 emoji', /at most 10,000 characters/, (c) => c.documents.search('STORE', { query: '😀'.repeat(10_001) }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: '😀'.repeat(10_001) },
  }),
  past('empty query', /query must not be empty/, (c) => c.documents.search('STORE', { query: '' }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: '' },
  }),
  past('query of spaces only', /query must not be empty/, (c) => c.documents.search('STORE', { query: ' \t ' }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: ' \t ' },
  }),
  edge('query with control characters', (c) => c.documents.search('STORE', { query: 'a\u0000\u001b[31mb' }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'a\u0000\u001b[31mb' },
  }),
  past('missing query (required)', /query is required/, (c) => c.documents.search('STORE', {} as never), {
    method: 'POST',
    path: `${S}/search`,
    body: {},
  }),
  past('query of the wrong type', /query must be a string/, (c) => c.documents.search('STORE', { query: ['q'] } as never), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: ['q'] },
  }),
  edge('max_num_results 1', (c) => c.documents.search('STORE', { query: 'q', max_num_results: 1 }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'q', max_num_results: 1 },
  }),
  edge('max_num_results 50', (c) => c.documents.search('STORE', { query: 'q', max_num_results: 50 }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'q', max_num_results: 50 },
  }),
  past('max_num_results 0', /between 1 and 50/, (c) => c.documents.search('STORE', { query: 'q', max_num_results: 0 }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'q', max_num_results: 0 },
  }),
  past('max_num_results 51', /between 1 and 50/, (c) => c.documents.search('STORE', { query: 'q', max_num_results: 51 }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'q', max_num_results: 51 },
  }),
  past('max_num_results 2.5', /whole number/, (c) => c.documents.search('STORE', { query: 'q', max_num_results: 2.5 }), {
    method: 'POST',
    path: `${S}/search`,
    body: { query: 'q', max_num_results: 2.5 },
  }),
  past(
    'file_ids of the wrong type',
    /file_ids must be a list of file ids/,
    (c) => c.documents.search('STORE', { query: 'q', file_ids: 'FILE' as never }),
    { method: 'POST', path: `${S}/search`, body: { query: 'q', file_ids: 'FILE' } },
  ),
  // ------------------------------------------------------------ list parameters, on every list
  ...(
    [
      ['stores', (c: { documents: DocumentsClient }, p: object) => c.documents.listVectorStores(p as never), '/v1/vector_stores'],
      ['files', (c: { documents: DocumentsClient }, p: object) => c.documents.listFiles(p as never), '/v1/files'],
      [
        'store files',
        (c: { documents: DocumentsClient }, p: object) => c.documents.listVectorStoreFiles('STORE', p as never),
        `${S}/files`,
      ],
    ] as const
  ).flatMap(([what, list, path]) => [
    edge(`${what}: limit 1, order asc`, (c) => list(c, { limit: 1, order: 'asc' }), { method: 'GET', path: `${path}?limit=1&order=asc` }),
    edge(`${what}: limit 10,000, order desc`, (c) => list(c, { limit: 10_000, order: 'desc' }), {
      method: 'GET',
      path: `${path}?limit=10000&order=desc`,
    }),
    past(`${what}: limit 0`, /limit must be .*1 (and|to) 10,?000/, (c) => list(c, { limit: 0 }), {
      method: 'GET',
      path: `${path}?limit=0`,
    }),
    past(`${what}: limit 10,001`, /limit must be .*1 (and|to) 10,?000/, (c) => list(c, { limit: 10_001 }), {
      method: 'GET',
      path: `${path}?limit=10001`,
    }),
    past(`${what}: limit "ten"`, /limit must be a (whole )?number/, (c) => list(c, { limit: 'ten' }), {
      method: 'GET',
      path: `${path}?limit=ten`,
    }),
    past(`${what}: order "up"`, /order must be "asc" or "desc"/, (c) => list(c, { order: 'up' }), {
      method: 'GET',
      path: `${path}?order=up`,
    }),
    past(`${what}: order "ASC"`, /order must be "asc" or "desc"/, (c) => list(c, { order: 'ASC' }), {
      method: 'GET',
      path: `${path}?order=ASC`,
    }),
  ]),
  // ------------------------------------------------------------ gateway: required fields and types
  edge('chat with model and one message', (c) => c.gateway.chatCompletion(chat({})), {
    method: 'POST',
    path: '/v1/chat/completions',
    body: chat({}),
  }),
  past(
    'chat without model (required)',
    /model (is required|must be a string)/,
    (c) => c.gateway.chatCompletion({ messages: chat({}).messages } as never),
    { method: 'POST', path: '/v1/chat/completions', body: { messages: chat({}).messages } },
  ),
  past(
    'chat without messages',
    /messages must contain at least one message/,
    (c) => c.gateway.chatCompletion(chat({ messages: [] }) as never),
    { method: 'POST', path: '/v1/chat/completions', body: chat({ messages: [] }) },
  ),
  past(
    'chat with max_completion_tokens 0',
    /max_completion_tokens must be .*at least 1/,
    (c) => c.gateway.chatCompletion(chat({ max_completion_tokens: 0 }) as never),
    { method: 'POST', path: '/v1/chat/completions', body: chat({ max_completion_tokens: 0 }) },
  ),
  past(
    'chat with temperature of the wrong type',
    /temperature must be a number/,
    (c) => c.gateway.chatCompletion(chat({ temperature: 'hot' }) as never),
    { method: 'POST', path: '/v1/chat/completions', body: chat({ temperature: 'hot' }) },
  ),
  past(
    'embed without input',
    /input must be a string or a list of strings/,
    (c) => c.gateway.embed({ model: 'local-embedding' } as never),
    { method: 'POST', path: '/v1/embed', body: { model: 'local-embedding' } },
  ),
  past('skill search with an empty query', /query (is required|must not be empty)/, (c) => c.gateway.skillshare(''), {
    method: 'POST',
    path: '/v1/tools/skillshare',
    body: { query: '' },
  }),
  past('inference without prompt', /prompt (is required|must be a string)/, (c) => c.gateway.inference('o3-mini', {} as never), {
    method: 'POST',
    path: '/v1/inference/o3-mini',
    body: { project_code: 'NA' },
  }),
];

describe('limits at the edge and one past it: client and backend agree', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let counter: ScriptServer;
  let ids: { STORE: string; FILE: string };

  before(async () => {
    backend = await startTestBackend({ rateLimits: false });
    const storeId = await backend.createStore('limits');
    const file = await backend.upload('a.md', '# A\n\nalpha beta');
    ids = { STORE: storeId, FILE: file.json.id };
    await backend.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: ids.FILE });
    // The client talks to a recording server that forwards to the backend, so a refused call
    // shows as zero requests and an allowed one really reaches the backend.
    counter = await ScriptServer.start();
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      counter.on(method, /.*/, async (r, res) => {
        const headers: Record<string, string> = { 'content-type': String(r.headers['content-type'] ?? 'application/json') };
        if (r.headers.authorization) headers.authorization = `Bearer ${TOKEN}`;
        if (r.headers['api-key']) headers['api-key'] = API_KEY;
        const query = r.query.toString();
        const body = r.body.length ? resolveText(r.body.toString('utf8')) : undefined;
        const reply = await request(`${backend.url}${resolveText(r.path)}${query ? `?${query}` : ''}`, {
          method: method as 'GET',
          headers,
          body,
        });
        const text = await reply.body.text();
        res.writeHead(reply.statusCode, { 'content-type': String(reply.headers['content-type'] ?? 'application/json') });
        res.end(text);
      });
    }
  });
  after(async () => {
    await counter.close();
    await backend.close();
  });

  /** The cases name the store and file as STORE and FILE; the backend made the real ids. */
  const resolveText = (text: string) => text.replaceAll('STORE', ids.STORE).replaceAll('FILE', ids.FILE);

  for (const c of CASES) {
    it(`${c.kind === 'edge' ? 'allows' : 'refuses'} ${c.name}`, async () => {
      // Client side.
      counter.requests.length = 0;
      const documents = documentsClient(counter.url, { token: CLIENT_TOKEN });
      const gateway = gatewayClient(counter.url, { token: CLIENT_KEY, rateLimits: false });
      const clients = { documents, gateway };
      let clientError: unknown;
      try {
        await c.client(clients);
      } catch (error) {
        clientError = error;
      } finally {
        await documents.close();
        await gateway.close();
      }
      // Backend side, raw HTTP.
      const isGateway = !c.raw.path.startsWith('/v1/vector_stores') && !c.raw.path.startsWith('/v1/files');
      const body = c.raw.body === undefined ? undefined : JSON.parse(resolveText(JSON.stringify(c.raw.body)));
      const reply = await backend[isGateway ? 'gw' : 'docs'](c.raw.method, resolveText(c.raw.path), body);

      if (c.kind === 'edge') {
        assert.equal(clientError, undefined, `client refused an allowed value: ${(clientError as Error)?.message}`);
        assert.ok(counter.requests.length >= 1, 'the client sent it');
        assert.equal(reply.status, 200, `backend: ${reply.text.slice(0, 300)}`);
        return;
      }
      assert.ok(
        clientError instanceof ValidationError,
        `client: expected ValidationError, got ${(clientError as Error)?.constructor?.name}: ${(clientError as Error)?.message}`,
      );
      assert.match(clientError.message, c.limit!, 'client message names the limit');
      assert.equal(counter.requests.length, 0, 'the client sent nothing');
      assert.equal(reply.status, 400, `backend: ${reply.text.slice(0, 300)}`);
      assert.equal(reply.json?.error?.type, 'invalid_request_error');
      assert.match(reply.json.error.message, c.limit!, 'backend message names the same limit');
    });
  }
});
