import assert from 'node:assert/strict';
import { startTestBackend, type TestBackend } from '../helpers';

const DOCS: Record<string, string> = {
  'kubernetes.md': '# Kubernetes\n\nDeploy the service to Kubernetes with a Helm chart. The chart sets replicas and resource limits.',
  'postgres.md': '# Postgres\n\nBackups of the Postgres database run nightly. Restore a backup with pg_restore.',
  'onboarding.md': '# Onboarding\n\nNew engineers get a laptop, a Kubernetes sandbox and a mentor in their first week.',
  'cooking.md': '# Recipes\n\nBoil the pasta for nine minutes and add salt to the water.',
};

describe('backend: search', () => {
  let t: TestBackend;
  let storeId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startTestBackend({ rateLimits: false });
    storeId = await t.createStore('kb');
    for (const [name, text] of Object.entries(DOCS)) {
      const done = await t.ingest(storeId, name, text);
      assert.equal(done.json.status, 'completed');
      ids[name] = done.json.id;
    }
  });
  after(async () => t.close());

  const search = (body: Record<string, unknown>, store = storeId) => t.docs('POST', `/v1/vector_stores/${store}/search`, body);

  it('returns the contract shape with chunk text and file ids', async () => {
    const reply = await search({ query: 'postgres backup restore' });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.query, 'postgres backup restore');
    assert.equal(reply.json.max_num_results, 10, 'default max_num_results is 10');
    assert.equal(reply.json.vector_store_id, storeId);
    assert.deepEqual(reply.json.files, []);
    const [top] = reply.json.data;
    assert.equal(top.file_id, ids['postgres.md']);
    assert.equal(top.object, 'vector_store.search_result');
    assert.equal(typeof top.id, 'string');
    assert.match(top.content, /pg_restore/);
    assert.equal(top.filename, 'postgres.md');
  });

  it('scores in 0..1, sorted best first, only matching chunks', async () => {
    const reply = await search({ query: 'kubernetes helm chart replicas' });
    const scores: number[] = reply.json.data.map((d: { score: number }) => d.score);
    assert.ok(scores.length >= 2);
    for (const score of scores) assert.ok(score > 0 && score <= 1, `score ${score} in (0, 1]`);
    assert.deepEqual(
      [...scores].sort((a, b) => b - a),
      scores,
    );
    assert.equal(reply.json.data[0].file_id, ids['kubernetes.md']);
    assert.ok(!reply.json.data.some((d: { file_id: string }) => d.file_id === ids['cooking.md']));
  });

  it('honours file_ids', async () => {
    const reply = await search({ query: 'kubernetes', file_ids: [ids['onboarding.md']] });
    assert.deepEqual(reply.json.files, [ids['onboarding.md']]);
    assert.deepEqual(
      reply.json.data.map((d: { file_id: string }) => d.file_id),
      [ids['onboarding.md']],
    );
    const none = await search({ query: 'kubernetes', file_ids: [ids['cooking.md']] });
    assert.deepEqual(none.json.data, []);
  });

  it('honours max_num_results', async () => {
    const one = await search({ query: 'kubernetes', max_num_results: 1 });
    assert.equal(one.json.data.length, 1);
    assert.equal(one.json.max_num_results, 1);
    const fifty = await search({ query: 'kubernetes', max_num_results: 50 });
    assert.equal(fifty.status, 200);
    assert.equal(fifty.json.data.length, 2);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['max_num_results 0', { query: 'x', max_num_results: 0 }, 'max_num_results'],
    ['max_num_results 51', { query: 'x', max_num_results: 51 }, 'max_num_results'],
    ['max_num_results 2.5', { query: 'x', max_num_results: 2.5 }, 'max_num_results'],
    ['an empty query', { query: '' }, 'query'],
    ['a missing query', {}, 'query'],
    ['a query of 10,001 characters', { query: 'q'.repeat(10_001) }, 'query'],
    ['file_ids not a list', { query: 'x', file_ids: 'file-1' }, 'file_ids'],
    ['an unknown field', { query: 'x', filters: {} }, 'filters'],
  ];
  for (const [label, body, param] of invalid) {
    it(`400 for ${label}`, async () => {
      const reply = await search(body);
      assert.equal(reply.status, 400);
      assert.equal(reply.json.error.type, 'invalid_request_error');
      assert.equal(reply.json.error.param, param);
    });
  }

  it('accepts a query of exactly 10,000 characters', async () => {
    const reply = await search({ query: `${'kubernetes '.repeat(909)}k`.slice(0, 10_000) });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.data[0].file_id, ids['kubernetes.md']);
  });

  it('finds nothing for stop words only and 404s for an unknown store', async () => {
    assert.deepEqual((await search({ query: 'the and of' })).json.data, []);
    assert.equal((await search({ query: 'x' }, 'vs_unknown')).status, 404);
  });

  it('finds code identifiers from prose (camelCase split)', async () => {
    const done = await t.ingest(storeId, 'client.ts', 'export function createVectorStore(name: string) {\n  return post(name);\n}\n');
    const reply = await search({ query: 'create vector store' });
    assert.equal(reply.json.data[0].file_id, done.json.id);
    assert.match(reply.json.data[0].content, /```ts/);
  });
});
