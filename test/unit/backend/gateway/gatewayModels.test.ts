import assert from 'node:assert/strict';
import { startTestBackend, type TestBackend } from '../helpers';

describe('backend: gateway models and embeddings (local)', () => {
  let t: TestBackend;
  before(async () => {
    t = await startTestBackend();
  });
  after(async () => t.close());

  it('lists only the models it really serves', async () => {
    const completions = await t.gw('GET', '/v1/completions/models');
    assert.equal(completions.json.object, 'list');
    assert.deepEqual(
      completions.json.data.map((m: { id: string }) => m.id),
      ['local-extractive'],
    );
    const model = completions.json.data[0];
    assert.equal(model.object, 'model');
    assert.equal(typeof model.created, 'number');
    assert.equal(model.owned_by, 'docchat-local');
    const embed = await t.gw('GET', '/v1/embed/models');
    assert.deepEqual(
      embed.json.data.map((m: { id: string }) => m.id),
      ['local-hashing-embed'],
    );
    const all = await t.gw('GET', '/v1/models');
    assert.deepEqual(
      all.json.data.map((m: { id: string }) => m.id),
      ['local-extractive', 'local-hashing-embed'],
    );
  });

  it('embeds with local-hashing-embed: unit vectors, similar texts closer', async () => {
    const reply = await t.gw('POST', '/v1/embed', {
      model: 'local-hashing-embed',
      input: ['database backups every night', 'nightly database backup', 'pasta recipe with tomatoes'],
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.object, 'list');
    assert.equal(reply.json.model, 'local-hashing-embed');
    const vectors: number[][] = reply.json.data.map((d: { embedding: number[] }) => d.embedding);
    assert.deepEqual(
      reply.json.data.map((d: { index: number; object: string }) => [d.index, d.object]),
      [
        [0, 'embedding'],
        [1, 'embedding'],
        [2, 'embedding'],
      ],
    );
    for (const v of vectors) {
      assert.equal(v.length, 256);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-3);
    }
    const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    assert.ok(cos(vectors[0]!, vectors[1]!) > cos(vectors[0]!, vectors[2]!) + 0.2);
    assert.ok(reply.json.usage.prompt_tokens > 0);
    assert.equal(reply.json.usage.total_tokens, reply.json.usage.prompt_tokens);
  });

  it('honours dimensions and a single string input; same text, same vector', async () => {
    const a = await t.gw('POST', '/v1/embed', { model: 'local-hashing-embed', input: 'hello world', dimensions: 64 });
    const b = await t.gw('POST', '/v1/embeddings', { model: 'local-hashing-embed', input: ['hello world'], dimensions: 64 });
    assert.equal(a.json.data[0].embedding.length, 64);
    assert.deepEqual(a.json.data[0].embedding, b.json.data[0].embedding);
  });

  it('answers encoding_format "base64" with the same vector as little-endian float32 bytes', async () => {
    const floats = await t.gw('POST', '/v1/embeddings', { model: 'local-hashing-embed', input: 'hello world', encoding_format: 'float' });
    const encoded = await t.gw('POST', '/v1/embeddings', { model: 'local-hashing-embed', input: 'hello world', encoding_format: 'base64' });
    assert.equal(encoded.status, 200, encoded.text);
    const text: string = encoded.json.data[0].embedding;
    assert.equal(typeof text, 'string');
    const bytes = Buffer.from(text, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    const expected: number[] = floats.json.data[0].embedding;
    assert.equal(decoded.length, expected.length);
    decoded.forEach((value, i) => assert.ok(Math.abs(value - expected[i]!) < 1e-6, `${i}: ${value} vs ${expected[i]}`));
  });

  it('refuses an empty text, token ids and an unknown encoding, naming the field', async () => {
    const error = async (body: Record<string, unknown>) => (await t.gw('POST', '/v1/embeddings', body)).json.error;
    const empty = await error({ model: 'local-hashing-embed', input: ['ok', ''] });
    assert.equal(empty.param, 'input[1]');
    assert.match(empty.message, /empty or blank text/);
    const blank = await error({ model: 'local-hashing-embed', input: ' \n ' });
    assert.equal(blank.param, 'input');
    assert.match(blank.message, /empty or blank text/);
    const tokens = await error({ model: 'local-hashing-embed', input: [[1, 2, 3]] });
    assert.equal(tokens.code, 'invalid_type');
    assert.match(tokens.message, /list of strings/);
    const encoding = await error({ model: 'local-hashing-embed', input: 'x', encoding_format: 'int8' });
    assert.equal(encoding.param, 'encoding_format');
    assert.match(encoding.message, /"float" or "base64"/);
  });

  it('refuses models it does not serve and invalid input', async () => {
    const documented = await t.gw('POST', '/v1/embed', { model: 'text-embed-3-small', input: 'x' });
    assert.equal(documented.status, 404);
    assert.equal(documented.json.error.code, 'model_not_found');
    assert.match(documented.json.error.message, /local-hashing-embed/);
    assert.equal((await t.gw('POST', '/v1/embed', { model: 'local-hashing-embed', input: [] })).status, 400);
    assert.equal((await t.gw('POST', '/v1/embed', { model: 'local-hashing-embed', input: 5 })).json.error.param, 'input');
    assert.equal((await t.gw('POST', '/v1/embed', { input: 'x' })).json.error.param, 'model');
    assert.equal(
      (await t.gw('POST', '/v1/embed', { model: 'local-hashing-embed', input: 'x', dimensions: 8 })).json.error.param,
      'dimensions',
    );
  });
});
