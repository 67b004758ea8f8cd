/**
 * A real client against the embedded backend: the `openai` SDK (the client most code written for
 * these APIs uses) drives both services as a program outside DocChat would — stores, files, store
 * files with metadata, search and file content, pagination, the model list, chat completions with
 * and without streaming, and embeddings.
 */
import * as assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { API_KEY, startTestBackend, TOKEN, type TestBackend } from './helpers';

describe('embedded backend with the openai SDK as its client', function () {
  this.timeout(60_000);
  let t: TestBackend;
  let documents: OpenAI;
  let gateway: OpenAI;

  before(async () => {
    t = await startTestBackend();
    documents = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    // The gateway's own header; the SDK adds its bearer header as well.
    gateway = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: API_KEY, defaultHeaders: { 'Api-Key': API_KEY }, maxRetries: 0 });
  });
  after(() => t?.close());

  it('creates a store, attaches a file with metadata, searches it, reads it and removes it', async () => {
    const store = await documents.vectorStores.create({ name: 'sdk-handbook', metadata: { team: 'people' } });
    assert.equal(store.object, 'vector_store');
    assert.equal(store.name, 'sdk-handbook');
    assert.deepEqual(store.metadata, { team: 'people' });

    const text = '# Holidays\n\nThe office is closed on the first Monday of August.';
    const file = await documents.files.create({ file: await toFile(Buffer.from(text), 'holidays.md'), purpose: 'assistants' });
    assert.equal(file.object, 'file');
    assert.equal(file.filename, 'holidays.md');
    assert.equal(file.bytes, Buffer.byteLength(text));

    // The service's store files carry `metadata` (the seeds' name for them).
    const attached = await documents.vectorStores.files.createAndPoll(store.id, { file_id: file.id, metadata: { dept: 'hr' } } as never, {
      pollIntervalMs: 10,
    });
    assert.equal(attached.status, 'completed');
    assert.deepEqual((attached as unknown as { metadata: unknown }).metadata, { dept: 'hr' });

    const hits = [];
    for await (const hit of documents.vectorStores.search(store.id, { query: 'When is the office closed?', max_num_results: 3 })) {
      hits.push(hit);
    }
    assert.equal(hits.length, 1);
    assert.equal(hits[0]!.file_id, file.id);
    assert.equal(hits[0]!.filename, 'holidays.md');
    assert.ok(hits[0]!.score > 0);
    assert.match(JSON.stringify(hits[0]!.content), /first Monday of August/);

    const listed = [];
    for await (const f of documents.vectorStores.files.list(store.id)) listed.push(f.id);
    assert.deepEqual(listed, [file.id]);

    const updated = await documents.vectorStores.files.update(file.id, { vector_store_id: store.id, metadata: { dept: 'ops' } } as never);
    assert.deepEqual((updated as unknown as { metadata: unknown }).metadata, { dept: 'ops' });

    const content = [];
    for await (const part of documents.vectorStores.files.content(file.id, { vector_store_id: store.id })) content.push(part);
    assert.match(JSON.stringify(content), /first Monday of August/);

    const removed = await documents.vectorStores.files.delete(file.id, { vector_store_id: store.id });
    assert.deepEqual(removed, { id: file.id, object: 'vector_store.file.deleted', deleted: true });
    const deletedStore = await documents.vectorStores.delete(store.id);
    assert.equal(deletedStore.deleted, true);
  });

  it("takes OpenAI's own names: file_ids at creation, attributes, attribute filters and a score threshold", async () => {
    const upload = async (name: string, text: string) =>
      documents.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'assistants' });
    const payroll = await upload('payroll.md', '# Payroll\n\nSalaries are paid on the 25th of each month.');
    const travel = await upload('travel.md', '# Travel\n\nTravel expenses are paid back with the next salary.');
    const store = await documents.vectorStores.create({ name: 'sdk-finance', file_ids: [payroll.id], chunking_strategy: { type: 'auto' } });
    const first = await documents.vectorStores.files.poll(store.id, payroll.id, { pollIntervalMs: 10 });
    assert.equal(first.status, 'completed');

    const attached = await documents.vectorStores.files.createAndPoll(
      store.id,
      { file_id: travel.id, attributes: { team: 'travel', year: '2024' } },
      { pollIntervalMs: 10 },
    );
    assert.equal(attached.status, 'completed');
    await documents.vectorStores.files.update(payroll.id, { vector_store_id: store.id, attributes: { team: 'payroll', year: '2023' } });

    const found = async (body: Omit<OpenAI.VectorStores.VectorStoreSearchParams, 'query'>) => {
      const names: string[] = [];
      for await (const hit of documents.vectorStores.search(store.id, { query: 'salary paid', ...body })) names.push(hit.filename);
      return names.sort();
    };
    assert.deepEqual(await found({}), ['payroll.md', 'travel.md']);
    assert.deepEqual(await found({ filters: { type: 'eq', key: 'team', value: 'payroll' } }), ['payroll.md']);
    assert.deepEqual(await found({ filters: { type: 'gte', key: 'year', value: 2024 } }), ['travel.md']);
    assert.deepEqual(
      await found({
        filters: {
          type: 'or',
          filters: [
            { type: 'eq', key: 'team', value: 'nobody' },
            { type: 'lt', key: 'year', value: 2024 },
          ],
        },
      }),
      ['payroll.md'],
    );
    const scores: number[] = [];
    for await (const hit of documents.vectorStores.search(store.id, { query: 'salary paid' })) scores.push(hit.score);
    const best = Math.max(...scores);
    assert.ok(
      scores.some((score) => score < best),
      JSON.stringify(scores),
    );
    const above: number[] = [];
    for await (const hit of documents.vectorStores.search(store.id, {
      query: 'salary paid',
      ranking_options: { score_threshold: best },
      rewrite_query: false,
    })) {
      above.push(hit.score);
    }
    assert.deepEqual(
      above,
      scores.filter((score) => score >= best),
    );
  });

  it('pages through more stores than one page holds', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await documents.vectorStores.create({ name: `page-${i}` })).id);
    const seen: string[] = [];
    for await (const store of documents.vectorStores.list({ limit: 2 })) if (ids.has(store.id)) seen.push(store.id);
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5, 'no store twice across pages');
  });

  it('lists models, answers a chat completion with and without streaming, and embeds', async () => {
    const models = [];
    for await (const model of gateway.models.list()) models.push(model.id);
    assert.ok(models.includes('local-extractive'), models.join(', '));

    const messages = [
      { role: 'system' as const, content: '[1] holidays.md\nThe office is closed on the first Monday of August.' },
      { role: 'user' as const, content: 'When is the office closed?' },
    ];
    const whole = await gateway.chat.completions.create({ model: 'local-extractive', messages });
    assert.match(whole.choices[0]!.message.content ?? '', /first Monday of August.*\[1\]/s);
    assert.ok((whole.usage?.total_tokens ?? 0) > 0);

    const stream = await gateway.chat.completions.create({
      model: 'local-extractive',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let streamed = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    assert.equal(streamed, whole.choices[0]!.message.content);
    assert.ok((usage?.total_tokens ?? 0) > 0);

    // The SDK asks for base64 unless told otherwise and decodes it: the vectors must be the floats.
    const input = ['office closed', 'first Monday'];
    const embedded = await gateway.embeddings.create({ model: 'local-hashing-embed', input });
    const floats = await gateway.embeddings.create({ model: 'local-hashing-embed', input, encoding_format: 'float' });
    assert.equal(embedded.data.length, 2);
    for (const [i, d] of embedded.data.entries()) {
      const expected = floats.data[i]!.embedding;
      assert.equal(d.embedding.length, expected.length);
      assert.ok(
        d.embedding.every((value, j) => Math.abs(value - expected[j]!) < 1e-6),
        'the decoded vector is the float one',
      );
    }
    const norm = Math.hypot(...embedded.data[0]!.embedding);
    assert.ok(Math.abs(norm - 1) < 1e-3, `a unit vector (norm ${norm})`);
  });

  it('gets the service’s refusal as the SDK’s typed error', async () => {
    const outsider = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'wrong-token', maxRetries: 0 });
    await assert.rejects(
      outsider.vectorStores.list(),
      (error: unknown) => error instanceof OpenAI.AuthenticationError && error.status === 401,
    );
    await assert.rejects(
      documents.vectorStores.retrieve('vs_missing'),
      (error: unknown) => error instanceof OpenAI.NotFoundError && /vs_missing/.test((error as Error).message),
    );
  });
});
