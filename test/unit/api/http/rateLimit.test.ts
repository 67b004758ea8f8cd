import * as assert from 'node:assert/strict';
import { DOCUMENTS_RATE_LIMITS } from '../../../../src/api/documents/schemas';
import { AbortedError } from '../../../../src/api/http/errors';
import { ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { documentsClient, FakeClock, gatewayClient, recorder, rejects } from '../helpers';

const store = { id: 'vs_1', object: 'vector_store', name: 'n', created_at: 1, metadata: {} };

describe('client-side rate limits', () => {
  let server: ScriptServer;

  before(async () => {
    server = await ScriptServer.start();
  });
  beforeEach(() => {
    server.reset();
    server.on('POST', '/v1/vector_stores', (_r, res) => sendJson(res, 200, store));
    server.on('GET', '/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));
  });
  after(() => server.close());

  it('lets a burst of the bucket size through, then waits for the refill', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { createVectorStore: 2 } });
    for (let i = 0; i < 3; i++) await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.equal(server.count('POST'), 3);
    assert.deepEqual(record.waits, [{ operation: 'createVectorStore', waitMs: 30_000 }]);
  });

  it('spaces concurrent callers one refill apart instead of failing', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { createVectorStore: 2 } });
    await Promise.all(Array.from({ length: 4 }, () => client.createVectorStore({ name: 'n' })));
    await client.close();
    assert.equal(server.count('POST'), 4);
    assert.deepEqual(
      record.waits.map((w) => w.waitMs).sort((a, b) => a - b),
      [30_000, 60_000],
    );
  });

  it('keeps one bucket per operation', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { createVectorStore: 1, retrieveVectorStore: 1 } });
    await client.createVectorStore({ name: 'n' });
    await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.deepEqual(record.waits, []);
  });

  it("uses the document's table by default (create vector store: 30 per minute)", async () => {
    assert.equal(DOCUMENTS_RATE_LIMITS.createVectorStore, 30);
    assert.equal(DOCUMENTS_RATE_LIMITS.search, 30);
    assert.equal(DOCUMENTS_RATE_LIMITS.listVectorStoreFiles, 120);
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: true });
    for (let i = 0; i < 31; i++) await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.deepEqual(record.waits, [{ operation: 'createVectorStore', waitMs: 2_000 }]);
  });

  it('waits as long as a 429 says before the retry', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { retrieveVectorStore: 100 } });
    server.once('GET', '/v1/vector_stores/vs_1', (_r, res) =>
      sendJson(res, 429, { error: { message: 'Slow down', type: 'rate_limit_error' } }, { 'retry-after-ms': '5000' }),
    );
    const result = await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.equal(result.id, 'vs_1');
    assert.equal(server.count('GET'), 2);
    assert.deepEqual(record.waits, [{ operation: 'retrieveVectorStore', waitMs: 5_000 }]);
  });

  it('drains the bucket on a 429, so the retry waits for a fresh token', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { retrieveVectorStore: 100 } });
    server.once('GET', '/v1/vector_stores/vs_1', (_r, res) =>
      sendJson(res, 429, { error: { message: 'Slow down' } }, { 'retry-after-ms': '100' }),
    );
    await client.retrieveVectorStore('vs_1');
    await client.close();
    // 99 tokens were left; after the 429 the retry waits one refill (60 s / 100), not 100 ms.
    assert.deepEqual(record.waits, [{ operation: 'retrieveVectorStore', waitMs: 600 }]);
  });

  it('can be switched off', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: false });
    for (let i = 0; i < 40; i++) await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.deepEqual(record.waits, []);
  });

  it('gives the turn back when a waiting call is cancelled, and sends nothing', async () => {
    const record = recorder();
    const clock = new FakeClock();
    const controller = new AbortController();
    clock.onSleep = () => controller.abort();
    const client = documentsClient(server.url, { record, clock, rateLimits: { createVectorStore: 1 } });
    await client.createVectorStore({ name: 'n' });
    await rejects(client.createVectorStore({ name: 'n' }, { signal: controller.signal }), AbortedError);
    assert.equal(server.count('POST'), 1);
    await client.close();
  });

  it('reports a 429 wait even for operations without a client-side bucket', async () => {
    server.once('GET', '/v1/completions/models', (_r, res) => sendJson(res, 429, { error: { message: 'busy' } }, { 'retry-after': '4' }));
    server.on('GET', '/v1/completions/models', (_r, res) => sendJson(res, 200, []));
    const record = recorder();
    const gateway = gatewayClient(server.url, { record });
    await gateway.listCompletionModels();
    await gateway.close();
    assert.deepEqual(record.waits, [{ operation: 'listCompletionModels', waitMs: 4_000 }]);
    assert.equal(server.count('GET', '/v1/completions/models'), 2);
  });

  it('applies gateway limits only when configured', async () => {
    server.on('GET', '/v1/completions/models', (_r, res) => sendJson(res, 200, ['alpha-5-1']));
    const unlimited = recorder();
    const a = gatewayClient(server.url, { record: unlimited });
    for (let i = 0; i < 5; i++) await a.listCompletionModels();
    await a.close();
    assert.deepEqual(unlimited.waits, []);
    const limited = recorder();
    const b = gatewayClient(server.url, { record: limited, rateLimits: { listCompletionModels: 2 } });
    for (let i = 0; i < 3; i++) await b.listCompletionModels();
    await b.close();
    assert.deepEqual(limited.waits, [{ operation: 'listCompletionModels', waitMs: 30_000 }]);
  });
});
