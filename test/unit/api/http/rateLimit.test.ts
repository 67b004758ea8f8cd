import * as assert from 'node:assert/strict';
import { DOCUMENTS_RATE_LIMITS } from '../../../../src/api/documents/schemas';
import { AbortedError, RateLimitError } from '../../../../src/api/http/errors';
import { SlidingWindow } from '../../../../src/api/http/rateLimit';
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

  // A minute plus the second the limiter keeps for the time a request takes to reach the service.
  const MINUTE = 61_000;

  it("lets a minute's limit through at once, then waits until the first of them is a minute old", async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { createVectorStore: 2 } });
    for (let i = 0; i < 3; i++) await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.equal(server.count('POST'), 3);
    assert.deepEqual(record.waits, [{ operation: 'createVectorStore', waitMs: MINUTE }]);
  });

  it('queues concurrent callers for the next minute instead of failing', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { createVectorStore: 2 } });
    await Promise.all(Array.from({ length: 5 }, () => client.createVectorStore({ name: 'n' })));
    await client.close();
    assert.equal(server.count('POST'), 5);
    // Two at once, two when those are a minute old, the fifth a minute after those.
    assert.deepEqual(
      record.waits.map((w) => w.waitMs).sort((a, b) => a - b),
      [MINUTE, MINUTE, 2 * MINUTE],
    );
  });

  it('never sends more than the limit within a minute, so a service counting a sliding minute refuses none', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    // The service as the documents service counts: a request over the limit within any 60 s is refused.
    const arrivals: number[] = [];
    let refused = 0;
    server.reset();
    server.on('POST', '/v1/vector_stores', (_r, res) => {
      const now = clock.now();
      if (arrivals.filter((t) => t > now - 60_000).length >= 3) {
        refused++;
        return sendJson(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after-ms': '1000' });
      }
      arrivals.push(now);
      sendJson(res, 200, store);
    });
    const client = documentsClient(server.url, { clock, rateLimits: { createVectorStore: 3 } });
    // Some at once, some spread out: a refilling bucket would send a fourth within the first minute.
    await Promise.all(Array.from({ length: 3 }, () => client.createVectorStore({ name: 'n' })));
    for (let i = 0; i < 4; i++) {
      await clock.sleep(20_000);
      await client.createVectorStore({ name: 'n' });
    }
    await client.close();
    assert.equal(refused, 0);
    assert.equal(arrivals.length, 7);
    for (const t of arrivals) {
      const inMinute = arrivals.filter((u) => u >= t && u < t + 60_000).length;
      assert.ok(inMinute <= 3, `${inMinute} requests in the minute from ${(t - start) / 1000} s`);
    }
  });

  it('after a 429 (another client used the limit), the callers queued behind it still keep to the limit', async () => {
    const clock = new FakeClock();
    const window = new SlidingWindow(3, clock);
    const start = clock.now();
    const sent: number[] = [];
    const send = async () => {
      await window.take(undefined, () => undefined);
      sent.push(clock.now() - start);
    };
    await send(); // refused: the service holds the operation for 30 s
    window.drain(30_000);
    // Its retry and four more callers.
    await Promise.all(Array.from({ length: 5 }, send));
    assert.equal(sent.length, 6);
    assert.ok(
      sent.slice(1).every((t) => t >= 30_000),
      `nothing before the 429's wait is over: ${sent.join(', ')}`,
    );
    for (const t of sent) {
      const inMinute = sent.filter((u) => u >= t && u < t + 60_000).length;
      assert.ok(inMinute <= 3, `${inMinute} requests in the minute from ${t / 1000} s: ${sent.join(', ')}`);
    }
  });

  it('wakes the callers behind a cancelled one to take its turn', async () => {
    const clock = new FakeClock();
    const window = new SlidingWindow(2, clock);
    const start = clock.now();
    const sentAt = new Map<string, number>();
    const send = async (name: string, signal?: AbortSignal) => {
      await window.take(signal, () => undefined);
      sentAt.set(name, clock.now() - start);
    };
    await Promise.all([send('p'), send('q')]); // the window's two, at 0 s
    const leaving = new AbortController();
    // x and y queue for the next minute; a queues behind them, for the minute after.
    const x = send('x', leaving.signal).catch((error: unknown) => error);
    const y = send('y', leaving.signal).catch((error: unknown) => error);
    const a = send('a');
    await clock.sleep(10_000);
    leaving.abort(); // x and y give up at 10 s
    assert.ok((await x) instanceof AbortedError);
    assert.ok((await y) instanceof AbortedError);
    await a;
    assert.equal(sentAt.get('a'), 61_000, 'a takes the turn x gave up, not the one after y');
    assert.ok(!sentAt.has('x') && !sentAt.has('y'));
  });

  it('fails a request whose 429 asks for a longer wait than DocChat waits, and holds no other', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { retrieveVectorStore: 100 } });
    server.once('GET', '/v1/vector_stores/vs_1', (_r, res) =>
      sendJson(res, 429, { error: { message: 'Come back later' } }, { 'retry-after': '600' }),
    );
    await rejects(client.retrieveVectorStore('vs_1'), RateLimitError);
    const result = await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.equal(result.id, 'vs_1');
    assert.deepEqual(record.waits, [], 'the next request was not held for the ten minutes');
  });

  it('keeps its pace when the system clock is set back', async () => {
    const clock = new FakeClock();
    const record = recorder();
    const client = documentsClient(server.url, { clock, record, rateLimits: { createVectorStore: 1 } });
    await client.createVectorStore({ name: 'n' });
    clock.time -= 3_600_000;
    await client.createVectorStore({ name: 'n' });
    await client.close();
    // A minute after the first request, which went a moment ago: not an hour and a minute.
    assert.deepEqual(record.waits, [{ operation: 'createVectorStore', waitMs: MINUTE }]);
  });

  it('spreads a limit under one a minute over a longer window', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { createVectorStore: 0.5 } });
    for (let i = 0; i < 2; i++) await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.deepEqual(record.waits, [{ operation: 'createVectorStore', waitMs: 121_000 }]);
  });

  it('keeps one limit per operation', async () => {
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
    assert.deepEqual(record.waits, [{ operation: 'createVectorStore', waitMs: MINUTE }]);
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

  it('after a 429 (another client used the limit) holds every request of that operation until its wait is over', async () => {
    const record = recorder();
    const client = documentsClient(server.url, { record, rateLimits: { retrieveVectorStore: 100 } });
    server.once('GET', '/v1/vector_stores/vs_1', (_r, res) =>
      sendJson(res, 429, { error: { message: 'Slow down' } }, { 'retry-after-ms': '7000' }),
    );
    await Promise.all([client.retrieveVectorStore('vs_1'), client.retrieveVectorStore('vs_1')]);
    await client.close();
    assert.equal(server.count('GET'), 3);
    // The refused request's retry and the request that queued behind it both wait out the 7 s.
    assert.ok(record.waits.length >= 1, JSON.stringify(record.waits));
    assert.ok(
      record.waits.every((w) => w.operation === 'retrieveVectorStore' && w.waitMs <= 7_000 && w.waitMs > 0),
      JSON.stringify(record.waits),
    );
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
    assert.deepEqual(limited.waits, [{ operation: 'listCompletionModels', waitMs: MINUTE }]);
  });
});
