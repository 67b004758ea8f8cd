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
    ['file_ids empty', { query: 'x', file_ids: [] }, 'file_ids'],
    ['an unknown field', { query: 'x', colour: 'red' }, 'colour'],
    ['a filter without a type', { query: 'x', filters: {} }, 'filters.type'],
    ['a score_threshold above 1', { query: 'x', ranking_options: { score_threshold: 1.5 } }, 'ranking_options.score_threshold'],
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

describe('backend: search with OpenAI attribute filters, score threshold and rewrite_query', () => {
  let t: TestBackend;
  let storeId: string;
  const ids: Record<string, string> = {};
  const META: Record<string, Record<string, string>> = {
    'kubernetes.md': { team: 'platform', year: '2024' },
    'onboarding.md': { team: 'people', year: '2023' },
    'postgres.md': { team: 'platform', year: '9' },
  };

  before(async () => {
    t = await startTestBackend({ rateLimits: false });
    storeId = await t.createStore('kb');
    for (const [name, text] of Object.entries(DOCS)) {
      const done = await t.ingest(storeId, name, text, META[name] ? { metadata: META[name] } : {});
      assert.equal(done.json.status, 'completed');
      ids[name] = done.json.id;
    }
  });
  after(async () => t.close());

  /** The files of the hits of `query` under `filters`, by name, sorted. */
  const found = async (filters: unknown, query = 'kubernetes backups pasta engineers', extra: Record<string, unknown> = {}) => {
    const reply = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query, filters, ...extra });
    assert.equal(reply.status, 200, reply.text);
    const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    return [...new Set(reply.json.data.map((d: { file_id: string }) => names[d.file_id]))].sort();
  };

  it('finds every matching file without a filter', async () => {
    assert.deepEqual(await found(undefined), ['cooking.md', 'kubernetes.md', 'onboarding.md', 'postgres.md']);
  });

  it('compares metadata: eq, ne (a file without the key passes), in and nin', async () => {
    assert.deepEqual(await found({ type: 'eq', key: 'team', value: 'platform' }), ['kubernetes.md', 'postgres.md']);
    assert.deepEqual(await found({ type: 'ne', key: 'team', value: 'platform' }), ['cooking.md', 'onboarding.md']);
    assert.deepEqual(await found({ type: 'in', key: 'team', value: ['people', 'finance'] }), ['onboarding.md']);
    assert.deepEqual(await found({ type: 'nin', key: 'team', value: ['people'] }), ['cooking.md', 'kubernetes.md', 'postgres.md']);
  });

  it('orders numbers as numbers (9 < 2023) and joins filters with and/or', async () => {
    assert.deepEqual(await found({ type: 'gte', key: 'year', value: 2023 }), ['kubernetes.md', 'onboarding.md']);
    assert.deepEqual(await found({ type: 'lt', key: 'year', value: 2023 }), ['postgres.md']);
    assert.deepEqual(
      await found({
        type: 'and',
        filters: [
          { type: 'eq', key: 'team', value: 'platform' },
          {
            type: 'or',
            filters: [
              { type: 'gt', key: 'year', value: 2023 },
              { type: 'eq', key: 'year', value: '1' },
            ],
          },
        ],
      }),
      ['kubernetes.md'],
    );
  });

  it('applies file_ids and the filter together', async () => {
    assert.deepEqual(
      await found({ type: 'eq', key: 'team', value: 'platform' }, undefined, { file_ids: [ids['postgres.md'], ids['onboarding.md']] }),
      ['postgres.md'],
    );
  });

  it('leaves out results under ranking_options.score_threshold, and accepts rewrite_query', async () => {
    const query = 'kubernetes helm chart replicas';
    const all = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query });
    const scores: number[] = all.json.data.map((d: { score: number }) => d.score);
    assert.ok(scores.length >= 2 && scores[1]! < scores[0]!, JSON.stringify(scores));
    const threshold = (scores[0]! + scores[1]!) / 2;
    const reply = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, {
      query,
      ranking_options: { ranker: 'auto', score_threshold: threshold },
      rewrite_query: true,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(
      reply.json.data.map((d: { score: number }) => d.score),
      scores.filter((score) => score >= threshold),
    );
    assert.equal(reply.json.search_query, query, 'the query is searched as written');
  });

  it('refuses a list for a comparison that takes one value, and filters nested past the limit', async () => {
    const list = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, {
      query: 'x',
      filters: { type: 'gt', key: 'year', value: [1, 2] },
    });
    assert.equal(list.status, 400);
    assert.equal(list.json.error.param, 'filters.value');
    assert.match(list.json.error.message, /"in" or "nin"/);
    let deep: unknown = { type: 'eq', key: 'team', value: 'people' };
    for (let i = 0; i < 9; i++) deep = { type: 'and', filters: [deep] };
    const nested = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'x', filters: deep });
    assert.equal(nested.status, 400);
    assert.equal(nested.json.error.param, 'filters');
    assert.match(nested.json.error.message, /at most 8 levels/);
    let eight: unknown = { type: 'eq', key: 'team', value: 'people' };
    for (let i = 0; i < 8; i++) eight = { type: 'and', filters: [eight] };
    assert.deepEqual(await found(eight, 'engineers'), ['onboarding.md']);
    const noValue = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, {
      query: 'x',
      filters: { type: 'or', filters: [{ type: 'eq', key: 'team' }] },
    });
    assert.equal(noValue.status, 400);
    assert.equal(noValue.json.error.param, 'filters.filters[0].value');
    assert.match(noValue.json.error.message, /needs a value/);
  });

  it('compares a number filter as a number with every operator, and only with values written as numbers', async () => {
    const cooking = ids['cooking.md']!;
    const put = await t.docs('PUT', `/v1/vector_stores/${storeId}/files/${cooking}`, {
      metadata: { price: '1.50', day: '2024-05-01', label: 'abc' },
    });
    assert.equal(put.status, 200, put.text);
    const pasta = (filters: unknown) => found(filters, 'pasta');
    assert.deepEqual(await pasta({ type: 'eq', key: 'price', value: 1.5 }), ['cooking.md']);
    assert.deepEqual(await pasta({ type: 'in', key: 'price', value: [2, 1.5] }), ['cooking.md']);
    assert.deepEqual(await pasta({ type: 'eq', key: 'price', value: '1.5' }), [], 'text compares as text');
    assert.deepEqual(await pasta({ type: 'gt', key: 'label', value: 5 }), [], '"abc" is no number');
    assert.deepEqual(await pasta({ type: 'ne', key: 'label', value: 5 }), ['cooking.md']);
    assert.deepEqual(await pasta({ type: 'gt', key: 'day', value: 2024 }), [], 'a date is no number');
    assert.deepEqual(await pasta({ type: 'gt', key: 'day', value: '2024-01-31' }), ['cooking.md'], 'ISO dates order as text');
  });
});
