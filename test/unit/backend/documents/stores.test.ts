import assert from 'node:assert/strict';
import { call, startTestBackend, TOKEN, type TestBackend } from '../helpers';

describe('backend: vector stores', () => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await startTestBackend({ rateLimits: false });
  });
  afterEach(async () => t.close());

  it('creates, retrieves, lists and deletes a store with the contract fields', async () => {
    const created = await t.docs('POST', '/v1/vector_stores', { name: 'handbook', metadata: { team: 'docs' } });
    assert.equal(created.status, 200);
    const store = created.json;
    assert.match(store.id, /^vs_/);
    assert.equal(store.object, 'vector_store');
    assert.equal(store.name, 'handbook');
    assert.deepEqual(store.metadata, { team: 'docs' });
    assert.equal(typeof store.created_at, 'number');
    assert.ok(Number.isInteger(store.created_at) && store.created_at < 1e11, 'created_at is Unix seconds');
    assert.equal(store.expires_at, null);
    assert.deepEqual(store.file_counts, { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 });
    assert.equal(store.usage_bytes, 0);
    assert.equal(store.status, 'completed');

    const retrieved = await t.docs('GET', `/v1/vector_stores/${store.id}`);
    assert.equal(retrieved.status, 200);
    assert.deepEqual(retrieved.json, store);

    const list = await t.docs('GET', '/v1/vector_stores');
    assert.equal(list.json.object, 'list');
    assert.deepEqual(
      list.json.data.map((s: { id: string }) => s.id),
      [store.id],
    );
    assert.equal(list.json.first_id, store.id);
    assert.equal(list.json.last_id, store.id);
    assert.equal(list.json.has_more, false);

    const deleted = await t.docs('DELETE', `/v1/vector_stores/${store.id}`);
    assert.deepEqual(deleted.json, { id: store.id, object: 'vector_store.deleted', deleted: true });
    const gone = await t.docs('GET', `/v1/vector_stores/${store.id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.error.type, 'not_found_error');
    assert.equal((await t.docs('DELETE', `/v1/vector_stores/${store.id}`)).status, 404);
  });

  it('answers 404 with the error shape for an unknown store id', async () => {
    const reply = await t.docs('GET', '/v1/vector_stores/vs_missing');
    assert.equal(reply.status, 404);
    assert.deepEqual(Object.keys(reply.json.error).sort(), ['code', 'message', 'param', 'type']);
    assert.match(reply.json.error.message, /vs_missing/);
    assert.ok(reply.headers['x-request-id']);
  });

  describe('name limits', () => {
    const cases: [string, unknown, number][] = [
      ['1 character', 'a', 200],
      ['63 characters', 'n'.repeat(63), 200],
      ['64 characters', 'n'.repeat(64), 400],
      ['empty', '', 400],
      ['a space', 'my store', 400],
      ['a dot', 'my.store', 400],
      ['hyphens and underscores', 'my-store_2', 200],
      ['a number instead of a string', 42, 400],
      ['missing', undefined, 400],
    ];
    for (const [label, name, status] of cases) {
      it(`${label} -> ${status}`, async () => {
        const reply = await t.docs('POST', '/v1/vector_stores', name === undefined ? {} : { name });
        assert.equal(reply.status, status, reply.text);
        if (status === 400) {
          assert.equal(reply.json.error.type, 'invalid_request_error');
          assert.equal(reply.json.error.param, 'name');
        }
      });
    }

    it('names the limit in the message', async () => {
      const reply = await t.docs('POST', '/v1/vector_stores', { name: 'n'.repeat(64) });
      assert.match(reply.json.error.message, /63/);
      assert.equal(reply.json.error.code, 'string_too_long');
    });
  });

  describe('metadata limits', () => {
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    const cases: [string, unknown, number, RegExp?][] = [
      ['16 pairs', pairs(16), 200],
      ['17 pairs', pairs(17), 400, /16/],
      ['a 64-character key', { ['k'.repeat(64)]: 'v' }, 200],
      ['a 65-character key', { ['k'.repeat(65)]: 'v' }, 400, /64/],
      ['a 512-character value', { k: 'v'.repeat(512) }, 200],
      ['a 513-character value', { k: 'v'.repeat(513) }, 400, /512/],
      ['a number value', { k: 1 }, 400],
      ['an array', ['a'], 400],
    ];
    for (const [label, metadata, status, message] of cases) {
      it(`${label} -> ${status}`, async () => {
        const reply = await t.docs('POST', '/v1/vector_stores', { name: 'm', metadata });
        assert.equal(reply.status, status, reply.text);
        if (status === 400) {
          assert.equal(reply.json.error.param, 'metadata');
          if (message) assert.match(reply.json.error.message, message);
        }
      });
    }
  });

  it("attaches OpenAI's file_ids at creation, and creates nothing when one of them does not exist", async () => {
    const fileId = (await t.upload('notes.md', '# Notes\n\nThe notes of the week.')).json.id;
    const missing = await t.docs('POST', '/v1/vector_stores', { name: 'half', file_ids: [fileId, 'file-nothere'] });
    assert.equal(missing.status, 404);
    assert.match(missing.json.error.message, /file-nothere/);
    const names = (await t.docs('GET', '/v1/vector_stores')).json.data.map((s: { name: string }) => s.name);
    assert.ok(!names.includes('half'), names.join(', '));
    const made = await t.docs('POST', '/v1/vector_stores', { name: 'whole', file_ids: [fileId, fileId] });
    assert.equal(made.status, 200, made.text);
    const done = await t.waitUntilProcessed(made.json.id, fileId);
    assert.equal(done.json.status, 'completed');
    assert.deepEqual(
      (await t.docs('GET', `/v1/vector_stores/${made.json.id}/files`)).json.data.map((f: { id: string }) => f.id),
      [fileId],
    );
  });

  it('refuses unknown fields and bodies that are not JSON objects', async () => {
    const unknown = await t.docs('POST', '/v1/vector_stores', { name: 'x', colour: 'red' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.json.error.param, 'colour');
    const broken = await t.docs('POST', '/v1/vector_stores', undefined, {
      authorization: 'Bearer test-documents-token',
      'content-type': 'application/json',
    });
    assert.equal(broken.status, 400, 'an empty body has no name');
    const notJson = await call(t.url, 'POST', '/v1/vector_stores', { raw: '{name:', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.code, 'invalid_json');
  });

  it('sets expires_at from expires_after and validates it', async () => {
    const reply = await t.docs('POST', '/v1/vector_stores', { name: 'temp', expires_after: { anchor: 'last_active_at', days: 2 } });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.expires_at, reply.json.last_active_at + 2 * 86400);
    const bad = await t.docs('POST', '/v1/vector_stores', { name: 'temp', expires_after: { anchor: 'last_active_at', days: 0 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.param, 'expires_after.days');
  });

  describe('pagination', () => {
    let ids: string[];
    beforeEach(async () => {
      ids = [];
      for (let i = 0; i < 5; i++) ids.push(await t.createStore(`s${i}`));
    });

    it('defaults to newest first (desc)', async () => {
      const list = await t.docs('GET', '/v1/vector_stores');
      assert.deepEqual(
        list.json.data.map((s: { id: string }) => s.id),
        [...ids].reverse(),
      );
    });

    it('pages forward with after and limit, in both orders', async () => {
      const first = await t.docs('GET', '/v1/vector_stores?order=asc&limit=2');
      assert.deepEqual(
        first.json.data.map((s: { id: string }) => s.id),
        ids.slice(0, 2),
      );
      assert.equal(first.json.has_more, true);
      const second = await t.docs('GET', `/v1/vector_stores?order=asc&limit=2&after=${first.json.last_id}`);
      assert.deepEqual(
        second.json.data.map((s: { id: string }) => s.id),
        ids.slice(2, 4),
      );
      const last = await t.docs('GET', `/v1/vector_stores?order=asc&limit=2&after=${second.json.last_id}`);
      assert.deepEqual(
        last.json.data.map((s: { id: string }) => s.id),
        ids.slice(4),
      );
      assert.equal(last.json.has_more, false);
      const desc = await t.docs('GET', `/v1/vector_stores?order=desc&limit=2&after=${ids[3]}`);
      assert.deepEqual(
        desc.json.data.map((s: { id: string }) => s.id),
        [ids[2], ids[1]],
      );
    });

    it('pages backward with before', async () => {
      const page = await t.docs('GET', `/v1/vector_stores?order=asc&limit=2&before=${ids[4]}`);
      assert.deepEqual(
        page.json.data.map((s: { id: string }) => s.id),
        [ids[2], ids[3]],
      );
      assert.equal(page.json.has_more, true);
    });

    it('keeps a cursor usable after its object was deleted', async () => {
      await t.docs('DELETE', `/v1/vector_stores/${ids[1]}`);
      const page = await t.docs('GET', `/v1/vector_stores?order=asc&after=${ids[1]}`);
      assert.equal(page.status, 200);
      assert.deepEqual(
        page.json.data.map((s: { id: string }) => s.id),
        ids.slice(2),
      );
    });

    const limits: [string, number][] = [
      ['1', 200],
      ['10000', 200],
      ['0', 400],
      ['10001', 400],
      ['-1', 400],
      ['2.5', 400],
      ['ten', 400],
    ];
    for (const [limit, status] of limits) {
      it(`limit=${limit} -> ${status}`, async () => {
        const reply = await t.docs('GET', `/v1/vector_stores?limit=${limit}`);
        assert.equal(reply.status, status);
        if (status === 400) assert.equal(reply.json.error.param, 'limit');
        else assert.equal(reply.json.data.length, Math.min(Number(limit), 5));
      });
    }

    it('refuses an unknown order, an unknown cursor and unknown parameters', async () => {
      const order = await t.docs('GET', '/v1/vector_stores?order=newest');
      assert.equal(order.status, 400);
      assert.equal(order.json.error.param, 'order');
      const cursor = await t.docs('GET', '/v1/vector_stores?after=vs_nope');
      assert.equal(cursor.status, 400);
      assert.equal(cursor.json.error.param, 'after');
      const unknown = await t.docs('GET', '/v1/vector_stores?page=2');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.error.param, 'page');
    });
  });
});
