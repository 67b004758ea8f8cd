import * as assert from 'node:assert/strict';
import type { DocumentsClient } from '../../../src/api/documents/client';
import { LIMITS, validateMetadata, validateStoreName } from '../../../src/api/documents/schemas';
import { ValidationError } from '../../../src/api/http/errors';
import { listPage, ScriptServer, sendJson } from '../../support/servers/scriptServer';
import { SAMPLE_STORE, SAMPLE_STORE_FILE } from '../../support/wireSamples';
import { documentsClient, rejects } from './helpers';

const store = SAMPLE_STORE;
const storeFile = SAMPLE_STORE_FILE;

function pairs(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
}

describe('api limits', () => {
  let server: ScriptServer;
  let client: DocumentsClient;

  before(async () => {
    server = await ScriptServer.start();
    server.on('POST', '/v1/vector_stores', (_r, res) => sendJson(res, 200, store));
    server.on('GET', '/v1/vector_stores', (r, res) => sendJson(res, 200, listPage([store], r.query)));
    server.on('PUT', '/v1/files/file-1', (r, res) => sendJson(res, 200, { id: 'file-1', filename: 'a.md', metadata: r.json.metadata }));
    server.on('PUT', '/v1/vector_stores/vs_1/files/file-1', (r, res) => sendJson(res, 200, { ...storeFile, metadata: r.json.metadata }));
    server.on('POST', '/v1/vector_stores/vs_1/files', (_r, res) => sendJson(res, 200, storeFile));
    server.on('POST', '/v1/vector_stores/vs_1/search', (r, res) =>
      sendJson(res, 200, { object: 'vector_store.search_results.page', data: [], query: r.json.query, vector_store_id: 'vs_1' }),
    );
    client = documentsClient(server.url);
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  /** The call is rejected with a ValidationError on `field` and nothing reaches the server. */
  async function refused(call: Promise<unknown>, field: string | RegExp, limit?: RegExp): Promise<ValidationError> {
    const error = await rejects(call, ValidationError);
    if (typeof field === 'string') assert.equal(error.field, field);
    else assert.match(error.field, field);
    if (limit) assert.match(`${error.limit} ${error.message}`, limit);
    assert.equal(server.requests.length, 0, 'nothing may be sent');
    assert.equal(error.status, undefined);
    return error;
  }

  async function sent(call: Promise<unknown>): Promise<void> {
    await call;
    assert.equal(server.requests.length, 1);
  }

  describe('vector store name', () => {
    it('accepts 1 and 63 characters of letters, digits, - and _', async () => {
      await sent(client.createVectorStore({ name: 'a' }));
      server.requests.length = 0;
      const name = 'A-b_9'.padEnd(LIMITS.storeName.max, 'x');
      await sent(client.createVectorStore({ name }));
      assert.equal(server.requests[0]!.json.name, name);
    });

    it('refuses 0 and 64 characters and other characters', async () => {
      const empty = await refused(client.createVectorStore({ name: '' }), 'name', /1 to 63/);
      assert.match(empty.message, /1 to 63 characters/);
      await refused(client.createVectorStore({ name: 'x'.repeat(64) }), 'name', /63/);
      await refused(client.createVectorStore({ name: 'has space' }), 'name', /letters, digits/);
      await refused(client.createVectorStore({ name: 'dots.not.ok' }), 'name');
      await refused(client.createVectorStore({ name: 'x', extra: 1 } as never), 'extra');
    });

    it('validateStoreName reports the limit for the UI', () => {
      assert.equal(validateStoreName('ok-name_1'), undefined);
      assert.equal(validateStoreName('x'.repeat(63)), undefined);
      assert.match(validateStoreName('x'.repeat(64))!, /1 to 63 characters long \(it has 64\)/);
      assert.match(validateStoreName('')!, /1 to 63/);
      assert.match(validateStoreName('a/b')!, /letters, digits/);
    });
  });

  describe('metadata', () => {
    it('accepts 16 pairs, 64-character keys and 512-character values', async () => {
      await sent(client.createVectorStore({ name: 'n', metadata: pairs(16) }));
      server.requests.length = 0;
      await sent(client.updateFileMetadata('file-1', { ['k'.repeat(64)]: 'v'.repeat(512) }));
      server.requests.length = 0;
      await sent(client.updateVectorStoreFileMetadata('vs_1', 'file-1', { owner: 'me' }));
      server.requests.length = 0;
      await sent(client.attachFile('vs_1', { file_id: 'file-1', metadata: pairs(16) }));
    });

    it('refuses 17 pairs, 65-character keys, 513-character values and non-strings', async () => {
      await refused(client.createVectorStore({ name: 'n', metadata: pairs(17) }), 'metadata', /16 pairs/);
      await refused(client.updateFileMetadata('file-1', { ['k'.repeat(65)]: 'v' }), /^metadata\.k+$/, /64 characters/);
      await refused(client.updateFileMetadata('file-1', { key: 'v'.repeat(513) }), 'metadata.key', /512 characters/);
      await refused(client.updateVectorStoreFileMetadata('vs_1', 'file-1', { n: 5 as never }), 'metadata.n', /string/);
      await refused(client.attachFile('vs_1', { file_id: 'file-1', metadata: pairs(17) }), 'metadata', /16/);
    });

    it('counts characters, not UTF-16 units', async () => {
      await sent(client.updateFileMetadata('file-1', { k: '😀'.repeat(512) }));
      server.requests.length = 0;
      await refused(client.updateFileMetadata('file-1', { k: '😀'.repeat(513) }), 'metadata.k');
    });

    it('validateMetadata reports the limit for the UI', () => {
      assert.equal(validateMetadata(pairs(16)), undefined);
      assert.match(validateMetadata(pairs(17))!, /at most 16 pairs \(it has 17\)/);
      assert.match(validateMetadata({ ['k'.repeat(65)]: 'v' })!, /longer than 64/);
      assert.match(validateMetadata({ a: 'v'.repeat(513) })!, /longer than 512/);
      assert.match(validateMetadata({ a: 1 })!, /strings/);
      assert.match(validateMetadata('nope')!, /object/);
    });
  });

  describe('search', () => {
    it('accepts a 10,000-character query and max_num_results 1 and 50', async () => {
      await sent(client.search('vs_1', { query: 'q'.repeat(10_000) }));
      server.requests.length = 0;
      await sent(client.search('vs_1', { query: 'q', max_num_results: 1 }));
      server.requests.length = 0;
      await sent(client.search('vs_1', { query: 'q', max_num_results: 50 }));
      assert.equal(server.requests[0]!.json.max_num_results, 50);
    });

    it('refuses 10,001 characters, an empty query, and max_num_results 0, 51 or 1.5', async () => {
      await refused(client.search('vs_1', { query: 'q'.repeat(10_001) }), 'query', /10,000|10000/);
      await refused(client.search('vs_1', { query: '' }), 'query');
      await refused(client.search('vs_1', { query: 'q', max_num_results: 0 }), 'max_num_results', /1 and 50/);
      await refused(client.search('vs_1', { query: 'q', max_num_results: 51 }), 'max_num_results', /1 and 50/);
      await refused(client.search('vs_1', { query: 'q', max_num_results: 1.5 }), 'max_num_results', /whole/);
      await refused(client.search('vs_1', { query: 'q', file_ids: [''] }), 'file_ids.0');
    });
  });

  describe('list parameters', () => {
    it('accept limit 1 and 10,000 and both orders', async () => {
      await sent(client.listVectorStores({ limit: 1, order: 'asc' }));
      assert.equal(server.requests[0]!.query.get('limit'), '1');
      server.requests.length = 0;
      await sent(client.listVectorStores({ limit: 10_000, order: 'desc' }));
      assert.equal(server.requests[0]!.query.get('limit'), '10000');
    });

    it('refuse limit 0 and 10,001, fractions and unknown orders', async () => {
      await refused(client.listVectorStores({ limit: 0 }), 'params.limit', /1 and 10000/);
      await refused(client.listVectorStores({ limit: 10_001 }), 'params.limit', /1 and 10000/);
      await refused(client.listFiles({ limit: 2.5 }), 'params.limit');
      await refused(client.listVectorStoreFiles('vs_1', { order: 'up' as never }), 'params.order', /asc/);
    });
  });

  it('refuses empty ids in paths before sending', async () => {
    await refused(client.retrieveVectorStore(''), 'vector_store_id');
    await refused(client.retrieveVectorStoreFile('vs_1', ' '), 'file_id');
    await refused(client.attachFile('vs_1', { file_id: '' }), 'file_id');
    await refused(client.uploadFile({ filename: '', data: new Uint8Array(1) }), 'filename');
  });
});
