import assert from 'node:assert/strict';
import { API_KEY, call, startTestBackend, TOKEN, type TestBackend } from '../helpers';

describe('backend: auth, errors and rate limits', () => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await startTestBackend();
  });
  afterEach(async () => t.close());

  it('answers 401 without or with a wrong bearer token on every documents path', async () => {
    for (const [method, path] of [
      ['GET', '/v1/vector_stores'],
      ['POST', '/v1/vector_stores'],
      ['GET', '/v1/vector_stores/vs_x'],
      ['POST', '/v1/vector_stores/vs_x/search'],
      ['GET', '/v1/files'],
      ['POST', '/v1/files'],
      ['PUT', '/v1/files/file-x'],
      ['GET', '/v1/vector_stores/vs_x/files'],
    ]) {
      const none = await call(t.url, method!, path!, {});
      assert.equal(none.status, 401, `${method} ${path}`);
      assert.equal(none.json.error.type, 'authentication_error');
      const wrong = await call(t.url, method!, path!, { headers: { authorization: 'Bearer nope' } });
      assert.equal(wrong.status, 401);
      // The gateway key is not a documents token.
      const apiKey = await call(t.url, method!, path!, { headers: { 'api-key': TOKEN } });
      assert.equal(apiKey.status, 401);
    }
  });

  it('answers 401 on the gateway without the Api-Key and accepts it (or a bearer key)', async () => {
    const none = await call(t.url, 'GET', '/v1/completions/models');
    assert.equal(none.status, 401);
    assert.match(none.json.error.message, /Api-Key/);
    const token = await call(t.url, 'GET', '/v1/completions/models', { headers: { 'api-key': TOKEN } });
    assert.equal(token.status, 401);
    assert.equal((await call(t.url, 'GET', '/v1/completions/models', { headers: { 'api-key': API_KEY } })).status, 200);
    assert.equal((await call(t.url, 'GET', '/v1/completions/models', { headers: { authorization: `Bearer ${API_KEY}` } })).status, 200);
  });

  it('never echoes the credential in an error', async () => {
    const reply = await call(t.url, 'GET', '/v1/files', { headers: { authorization: 'Bearer secret-value-123' } });
    assert.equal(reply.status, 401, 'the reply is the error');
    assert.equal(reply.json.error.message, 'The bearer token is not valid for this documents service.');
    assert.ok(!reply.text.includes('secret-value-123'));
    const gateway = await call(t.url, 'GET', '/v1/completions/models', { headers: { 'api-key': 'secret-key-456' } });
    assert.equal(gateway.status, 401, 'the reply is the error');
    assert.ok(!gateway.text.includes('secret-key-456'));
  });

  it('sends x-request-id on every response, errors included', async () => {
    const ok = await t.docs('GET', '/v1/vector_stores');
    const unauthorized = await call(t.url, 'GET', '/v1/vector_stores');
    const unknown = await t.docs('GET', '/v1/nothing-here');
    const ids = [ok, unauthorized, unknown].map((r) => r.headers['x-request-id']);
    for (const id of ids) assert.match(String(id), /^req_[0-9a-f]+$/);
    assert.equal(new Set(ids).size, 3);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.type, 'not_found_error');
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const reply = await t.docs('PATCH', '/v1/vector_stores');
    assert.equal(reply.status, 405);
    assert.match(String(reply.headers.allow), /GET/);
  });

  it('limits create-store to 30 per minute with 429, Retry-After and retry-after-ms', async () => {
    for (let i = 0; i < 30; i++) assert.equal((await t.docs('POST', '/v1/vector_stores', { name: `s${i}` })).status, 200);
    const limited = await t.docs('POST', '/v1/vector_stores', { name: 'one-too-many' });
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error.type, 'rate_limit_error');
    const seconds = Number(limited.headers['retry-after']);
    const ms = Number(limited.headers['retry-after-ms']);
    assert.ok(seconds >= 1 && seconds <= 60, `Retry-After ${seconds}`);
    assert.ok(ms >= 1 && ms <= 60_000, `retry-after-ms ${ms}`);
    assert.equal(seconds, Math.ceil(ms / 1000));
    // Other operations have their own budget.
    assert.equal((await t.docs('GET', '/v1/vector_stores')).status, 200);
    // A refused request is not counted, and no store was created.
    const list = await t.docs('GET', '/v1/vector_stores');
    assert.equal(list.json.data.length, 30);
  });

  it('limits search to 30 per minute', async () => {
    const storeId = await t.createStore('s');
    for (let i = 0; i < 30; i++) assert.equal((await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'x' })).status, 200);
    assert.equal((await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'x' })).status, 429);
  });

  it('has no rate limits with rateLimits: false', async () => {
    await t.restart({ rateLimits: false });
    for (let i = 0; i < 35; i++) assert.equal((await t.docs('POST', '/v1/vector_stores', { name: `s${i}` })).status, 200);
  });

  it('takes per-operation overrides', async () => {
    await t.restart({ rateLimits: { listFiles: 2 } });
    assert.equal((await t.docs('GET', '/v1/files')).status, 200);
    assert.equal((await t.docs('GET', '/v1/files')).status, 200);
    assert.equal((await t.docs('GET', '/v1/files')).status, 429);
  });

  it('serves /health without credentials', async () => {
    const reply = await call(t.url, 'GET', '/health');
    assert.equal(reply.status, 200);
    assert.equal(reply.json.status, 'ok');
  });
});
