import * as assert from 'node:assert/strict';
import { NetworkError, RateLimitError, ServerError } from '../../../../src/api/http/errors';
import { backoffMs, parseRetryAfter } from '../../../../src/api/http/retry';
import { freePort, ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { documentsClient, FakeClock, recorder, rejects } from '../helpers';

const store = { id: 'vs_1', object: 'vector_store', name: 'n', created_at: 1, metadata: {} };
const fail =
  (status: number, headers: Record<string, string> = {}) =>
  (_r: unknown, res: any) =>
    sendJson(res, status, { error: { message: `failed with ${status}`, type: 'server_error' } }, headers);

describe('retries', () => {
  let server: ScriptServer;

  before(async () => {
    server = await ScriptServer.start();
  });
  beforeEach(() => server.reset());
  after(() => server.close());

  it('retries GET on 408, 409, 429 and 5xx with exponential backoff, then succeeds', async () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504]) {
      server.reset();
      const record = recorder();
      const client = documentsClient(server.url, { record });
      server.once('GET', '/v1/vector_stores/vs_1', fail(status));
      server.once('GET', '/v1/vector_stores/vs_1', fail(status));
      server.on('GET', '/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));
      const result = await client.retrieveVectorStore('vs_1');
      await client.close();
      assert.equal(result.id, 'vs_1');
      assert.equal(server.count(), 3, `status ${status}`);
      assert.deepEqual(
        record.retries.map((r) => r.delayMs),
        [500, 1000],
        `status ${status}`,
      );
    }
  });

  it('gives up after two retries and reports the last error', async () => {
    const client = documentsClient(server.url);
    server.on('GET', '/v1/vector_stores/vs_1', fail(503));
    const error = await rejects(client.retrieveVectorStore('vs_1'), ServerError);
    await client.close();
    assert.equal(server.count(), 3);
    assert.equal(error.status, 503);
    assert.equal(error.message, 'failed with 503.');
  });

  it('does not retry 400, 401, 404 or 501', async () => {
    for (const status of [400, 401, 404, 501]) {
      server.reset();
      const client = documentsClient(server.url);
      server.on('GET', '/v1/vector_stores/vs_1', fail(status));
      await assert.rejects(client.retrieveVectorStore('vs_1'));
      await client.close();
      assert.equal(server.count(), 1, `status ${status}`);
    }
  });

  it('honours retry-after-ms, then Retry-After in seconds or as a date', async () => {
    const record = recorder();
    const clock = new FakeClock();
    const client = documentsClient(server.url, { record, clock });
    server.once('GET', '/v1/vector_stores/vs_1', fail(503, { 'retry-after-ms': '1234', 'retry-after': '9' }));
    server.once('GET', '/v1/vector_stores/vs_1', fail(503, { 'retry-after': '7' }));
    server.on('GET', '/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));
    await client.retrieveVectorStore('vs_1');
    assert.deepEqual(
      record.retries.map((r) => r.delayMs),
      [1234, 7000],
    );
    assert.deepEqual(clock.sleeps, [1234, 7000]);
    await client.close();

    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(parseRetryAfter({ 'retry-after': 'Tue, 01 Jan 2030 00:00:30 GMT' }, now), 30_000);
    assert.equal(parseRetryAfter({ 'retry-after': 'soon' }), undefined);
    assert.equal(
      backoffMs(0, () => 0),
      500,
    );
    assert.equal(
      backoffMs(1, () => 0.999_999),
      750,
    );
    assert.equal(
      backoffMs(10, () => 0),
      8000,
      'capped at 8 s',
    );
  });

  it('does not wait for a Retry-After beyond 60 s: it reports it', async () => {
    const client = documentsClient(server.url);
    server.on('GET', '/v1/vector_stores/vs_1', fail(429, { 'retry-after': '120' }));
    const error = await rejects(client.retrieveVectorStore('vs_1'), RateLimitError);
    await client.close();
    assert.equal(server.count(), 1);
    assert.equal(error.retryAfterMs, 120_000);
  });

  it('never retries a non-idempotent POST on 500 (create, attach, upload)', async () => {
    const client = documentsClient(server.url);
    server.on('POST', '/v1/vector_stores', fail(500));
    server.on('POST', '/v1/vector_stores/vs_1/files', fail(502));
    server.on('POST', '/v1/files', fail(503));
    await rejects(client.createVectorStore({ name: 'n' }), ServerError);
    await rejects(client.attachFile('vs_1', { file_id: 'file-1' }), ServerError);
    await rejects(client.uploadFile({ filename: 'a.txt', data: new Uint8Array([1]) }), ServerError);
    await client.close();
    assert.equal(server.count(), 3);
  });

  it('retries a non-idempotent POST refused with 429, which the server did not act on', async () => {
    const client = documentsClient(server.url);
    server.once('POST', '/v1/vector_stores', fail(429, { 'retry-after-ms': '10' }));
    server.on('POST', '/v1/vector_stores', (_r, res) => sendJson(res, 200, store));
    await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.equal(server.count(), 2);
  });

  it('retries search (a read-only POST) on 503', async () => {
    const client = documentsClient(server.url);
    server.once('POST', '/v1/vector_stores/vs_1/search', fail(503));
    server.on('POST', '/v1/vector_stores/vs_1/search', (_r, res) => sendJson(res, 200, { data: [] }));
    await client.search('vs_1', { query: 'q' });
    await client.close();
    assert.equal(server.count(), 2);
  });

  it('retries even a POST when the connection was refused (it provably never arrived)', async () => {
    const port = await freePort();
    const clock = new FakeClock();
    let late: ScriptServer | undefined;
    clock.onSleep = async () => {
      // The service comes up while the client backs off.
      late ??= await ScriptServer.start({ port });
      late.on('POST', '/v1/vector_stores', (_r, res) => sendJson(res, 200, store));
    };
    const record = recorder();
    const client = documentsClient(`http://127.0.0.1:${port}`, { clock, record });
    const created = await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.equal(created.id, 'vs_1');
    assert.equal(record.retries.length, 1);
    assert.equal(late!.count('POST'), 1);
    await late!.close();
  });

  it('asks onUnreachable to bring a refused server back, then sends the request again at once', async () => {
    const port = await freePort();
    let revived: ScriptServer | undefined;
    const record = recorder();
    const client = documentsClient(`http://127.0.0.1:${port}`, {
      record,
      transport: { maxRetries: 0 },
      // Local mode restarts its backend at the same address.
      onUnreachable: async () => {
        revived = await ScriptServer.start({ port });
        revived.on('POST', '/v1/vector_stores', (_r, res) => sendJson(res, 200, store));
        return true;
      },
    });
    const created = await client.createVectorStore({ name: 'n' });
    await client.close();
    assert.equal(created.id, 'vs_1');
    assert.equal(revived!.count('POST'), 1, 'the POST reached the revived server once');
    assert.deepEqual(record.retries, [], 'no backoff: it went again as soon as the server was back');
    await revived!.close();
  });

  it('asks onUnreachable once per request, and reports the refusal when the server stays away', async () => {
    const port = await freePort();
    let asked = 0;
    const client = documentsClient(`http://127.0.0.1:${port}`, {
      onUnreachable: async () => {
        asked++;
        return false;
      },
    });
    const error = await rejects(client.listVectorStores(), NetworkError);
    await client.close();
    assert.equal(asked, 1);
    assert.match(error.message, /connection was refused/);
  });

  it('reports a refused connection with a hint once retries are used up', async () => {
    const port = await freePort();
    const client = documentsClient(`http://127.0.0.1:${port}`);
    const error = await rejects(client.listVectorStores(), NetworkError);
    await client.close();
    assert.match(error.message, /connection was refused/);
    assert.match(error.hint!, /URL right/);
  });

  it('retries a GET whose connection drops, but not a POST', async () => {
    const client = documentsClient(server.url);
    server.once('GET', '/v1/vector_stores/vs_1', (_r, res) => void res.socket!.destroy());
    server.on('GET', '/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));
    await client.retrieveVectorStore('vs_1');
    assert.equal(server.count('GET'), 2);
    server.on('POST', '/v1/vector_stores', (_r, res) => void res.socket!.destroy());
    await rejects(client.createVectorStore({ name: 'n' }), NetworkError);
    assert.equal(server.count('POST'), 1);
    await client.close();
  });

  it('maxRetries 0 turns retries off', async () => {
    const client = documentsClient(server.url, { transport: { maxRetries: 0 } });
    server.on('GET', '/v1/vector_stores/vs_1', fail(503));
    await rejects(client.retrieveVectorStore('vs_1'), ServerError);
    await client.close();
    assert.equal(server.count(), 1);
  });
});
