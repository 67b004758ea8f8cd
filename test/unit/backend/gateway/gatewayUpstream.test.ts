import assert from 'node:assert/strict';
import { parseSse, startTestBackend, type TestBackend } from '../helpers';
import { startFakeUpstream, type FakeUpstream } from '../fakeUpstream';
import { ScriptServer, sendJson } from '../../../support/servers/scriptServer';

describe('backend: upstream forwarding (fake OpenAI-compatible server)', () => {
  let fake: FakeUpstream;
  let t: TestBackend;
  beforeEach(async () => {
    fake = await startFakeUpstream();
    t = await startTestBackend({ rateLimits: false, upstream: { url: fake.url, key: 'up-secret' } });
  });
  afterEach(async () => {
    await t.close();
    await fake.close();
  });

  it('lists the upstream models beside the local ones, split into chat and embedding', async () => {
    const chat = await t.gw('GET', '/v1/completions/models');
    assert.deepEqual(
      chat.json.data.map((m: { id: string }) => m.id),
      ['local-extractive', 'llama3'],
    );
    const embed = await t.gw('GET', '/v1/embed/models');
    assert.deepEqual(
      embed.json.data.map((m: { id: string }) => m.id),
      ['local-hashing-embed', 'nomic-embed-text'],
    );
    assert.equal(fake.requests[0]!.headers.authorization, 'Bearer up-secret');
  });

  it('keeps the models of an upstream that stopped listed, marked "server not answering", once a request found it gone', async () => {
    assert.equal((await t.gw('GET', '/v1/completions/models')).status, 200);
    await fake.close();
    const chat = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.json.error.code, 'upstream_unreachable');
    const listed = await t.gw('GET', '/v1/completions/models');
    assert.deepEqual(
      listed.json.data.map((m: { id: string; unavailable?: string }) => [m.id, m.unavailable]),
      [
        ['local-extractive', undefined],
        ['llama3', 'server not answering'],
      ],
    );
  });

  it('forwards a chat completion and returns it whole', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'llama3',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.2,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.choices[0].message.content, 'upstream says: hi');
    const forwarded = fake.requests.find((r) => r.path === '/v1/chat/completions')!;
    assert.deepEqual(forwarded.body, { model: 'llama3', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 });
  });

  it('forwards a streamed chat completion as SSE ending in usage and [DONE]', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'llama3',
      messages: [{ role: 'user', content: 'stream me' }],
      stream: true,
    });
    const events = parseSse(reply.text);
    assert.equal(events.at(-1)!.data, '[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'upstream says: stream me');
    assert.deepEqual(chunks.at(-1).usage, { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 });
    const forwarded = fake.requests.find((r) => r.path === '/v1/chat/completions')!;
    assert.deepEqual((forwarded.body as { stream_options: unknown }).stream_options, { include_usage: true });
  });

  it('adds an estimated usage chunk when the upstream sends none', async () => {
    fake.omitUsage = true;
    const reply = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'x' }], stream: true });
    const chunks = parseSse(reply.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data));
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage.estimated, true);
    assert.ok(last.usage.total_tokens > 0);
  });

  it('maps the deprecated inference endpoint onto the upstream chat', async () => {
    const reply = await t.gw('POST', '/v1/inference/llama3', { prompt: 'old style', project_code: 'NA' });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, {
      model: 'llama3',
      response: 'upstream says: old style',
      usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
    });
    assert.equal(reply.headers.deprecation, 'true');
  });

  it("turns the inference endpoint's max_tokens (prompt and answer) into the answer's budget for the upstream chat", async () => {
    const reply = await t.gw('POST', '/v1/inference/llama3', { prompt: 'old style', project_code: 'NA', max_tokens: 100 });
    assert.equal(reply.status, 200, reply.text);
    const forwarded = fake.requests.find((r) => r.path === '/v1/chat/completions')!.body as Record<string, unknown>;
    assert.equal(forwarded.max_tokens, undefined);
    // The prompt: the default system prompt (28 characters) and "old style", each 4 tokens of framing.
    assert.equal(forwarded.max_completion_tokens, 100 - (Math.ceil(28 / 4) + 4) - (Math.ceil(9 / 4) + 4));
  });

  it('forwards stop and n unchanged, and asks for no usage when the client does not want it', async () => {
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'llama3',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      // More than local-extractive takes (4): the upstream's server judges its own limits.
      stop: ['\n\n', 'a', 'b', 'c', 'd'],
      n: 2,
      stream_options: { include_usage: false },
    });
    const chunks = parseSse(reply.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data));
    assert.ok(chunks.length > 0 && chunks.every((c) => c.usage === undefined), reply.text);
    const forwarded = fake.requests.find((r) => r.path === '/v1/chat/completions')!.body as Record<string, unknown>;
    assert.deepEqual(forwarded.stop, ['\n\n', 'a', 'b', 'c', 'd']);
    assert.equal(forwarded.n, 2);
    assert.deepEqual(forwarded.stream_options, { include_usage: false });
  });

  it('forwards embeddings in the gateway shape', async () => {
    const reply = await t.gw('POST', '/v1/embed', { model: 'nomic-embed-text', input: ['a cat', 'a car'] });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(
      reply.json.data.map((d: { embedding: number[] }) => d.embedding),
      [
        [1, 0, 0],
        [0, 1, 0],
      ],
    );
    assert.equal(reply.json.model, 'nomic-embed-text');
  });

  it('relays upstream errors in the backend error shape', async () => {
    const missing = await t.gw('POST', '/v1/chat/completions', { model: 'nope', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(missing.status, 404);
    assert.match(missing.json.error.message, /Upstream server: model "nope" not found/);
    fake.failWith = 401;
    const auth = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(auth.status, 502);
    assert.match(auth.json.error.message, /rejected the configured upstream key/);
    fake.failWith = 429;
    const limited = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);
  });

  it('answers 502 when the upstream is down, and lists only local models', async () => {
    await fake.close();
    const reply = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(reply.status, 502);
    assert.match(reply.json.error.message, /could not be reached/);
    const models = await t.gw('GET', '/v1/completions/models');
    assert.deepEqual(
      models.json.data.map((m: { id: string }) => m.id),
      ['local-extractive'],
    );
  });

  it('searches hybrid (BM25 + upstream vectors): finds a chunk with no shared word', async () => {
    const storeId = await t.createStore('pets');
    const felines = await t.ingest(storeId, 'felines.md', 'Felines sleep sixteen hours a day.');
    await t.ingest(storeId, 'dogs.md', 'Dogs need a walk twice a day.');
    assert.equal(felines.json.status, 'completed');
    const reply = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'kitten' });
    assert.equal(reply.json.ranking, 'hybrid');
    assert.equal(reply.json.data[0].file_id, felines.json.id);
    for (const item of reply.json.data) assert.ok(item.score >= 0 && item.score <= 1);
    // Vectors survive a restart (they are stored beside the chunks).
    await t.restart();
    const again = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'kitten' });
    assert.equal(again.json.data[0].file_id, felines.json.id);
  });

  it("answers a model server's web tools as Local mode's: they need the company gateway", async () => {
    // A model server chosen with "Use a Language Model…" has models only; it is never asked.
    fake.webTools = true;
    for (const [method, path, body] of [
      ['POST', '/v1/tools/web/search', { query: 'x' }],
      ['POST', '/v1/tools/web/research', { query: 'x' }],
      ['GET', '/v1/tools/web/research/research-up-1', undefined],
    ] as const) {
      const reply = await t.gw(method, path, body);
      assert.equal(reply.status, 501, path);
      assert.equal(reply.json.error.code, 'local_mode', path);
      assert.match(reply.json.error.message, /needs your company's gateway; DocChat's Local mode has none\.$/);
    }
    assert.equal(fake.requests.filter((r) => r.path.startsWith('/v1/tools/')).length, 0, 'the model server is not asked');
  });
});

describe('backend: the company gateway as the embeddings upstream', () => {
  let fake: FakeUpstream;
  let t: TestBackend;
  beforeEach(async () => {
    fake = await startFakeUpstream();
    t = await startTestBackend({
      rateLimits: false,
      upstream: { url: fake.url, key: 'gateway-key', embeddingModel: 'text-embed-3-small', embedPath: '/embed' },
    });
  });
  afterEach(async () => {
    await t.close();
    await fake.close();
  });

  it('embeds through /v1/embed with the configured model and searches hybrid', async () => {
    const storeId = await t.createStore('pets');
    const felines = await t.ingest(storeId, 'felines.md', 'Felines sleep sixteen hours a day.');
    await t.ingest(storeId, 'dogs.md', 'Dogs need a walk twice a day.');
    const reply = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'kitten' });
    assert.equal(reply.json.ranking, 'hybrid');
    assert.equal(reply.json.data[0].file_id, felines.json.id);
    const embedCalls = fake.requests.filter((r) => r.path === '/v1/embed');
    assert.ok(embedCalls.length > 0, 'the gateway embed endpoint was called');
    assert.ok(embedCalls.every((r) => (r.body as { model: string }).model === 'text-embed-3-small'));
    assert.equal(embedCalls[0].headers['api-key'], 'gateway-key');
    assert.equal(fake.requests.filter((r) => r.path === '/v1/embeddings').length, 0);
  });

  it('forwards web search and research to an upstream that has them, with its key, and relays the answer', async () => {
    fake.webTools = true;
    const search = await t.gw('POST', '/v1/tools/web/search', { query: 'vpn setup', max_results: 3 });
    assert.equal(search.status, 200, search.text);
    assert.deepEqual(search.json, { results: [{ title: 'About vpn setup', url: 'https://example.test/a', snippet: 'from upstream' }] });
    const started = await t.gw('POST', '/v1/tools/web/research', { query: 'deploy rollback' });
    assert.equal(started.status, 202, started.text);
    assert.deepEqual(started.json, { id: 'research-up-1', status: 'in_progress', query: 'deploy rollback' });
    const report = await t.gw('GET', '/v1/tools/web/research/research-up-1');
    assert.equal(report.status, 200, report.text);
    assert.deepEqual(report.json, { id: 'research-up-1', status: 'completed', report: 'report for research-up-1' });
    const forwarded = fake.requests.filter((r) => r.path.startsWith('/v1/tools/'));
    assert.deepEqual(
      forwarded.map((r) => [r.method, r.path, r.body]),
      [
        ['POST', '/v1/tools/web/search', { query: 'vpn setup', max_results: 3 }],
        ['POST', '/v1/tools/web/research', { query: 'deploy rollback' }],
        ['GET', '/v1/tools/web/research/research-up-1', undefined],
      ],
    );
    for (const r of forwarded) assert.equal(r.headers.authorization, 'Bearer gateway-key', `${r.path} carries the upstream key`);
  });

  it('answers 501 naming the missing endpoint when the upstream has no web tools', async () => {
    const search = await t.gw('POST', '/v1/tools/web/search', { query: 'x' });
    assert.equal(search.status, 501);
    assert.match(
      search.json.error.message,
      /^Web search is not available: the upstream server .* does not provide \/tools\/web\/search\.$/,
    );
    const research = await t.gw('POST', '/v1/tools/web/research', { query: 'x' });
    assert.equal(research.status, 501);
    assert.match(research.json.error.message, /does not provide \/tools\/web\/research\.$/);
  });
});

describe('backend: the chat models of a model server, as it says what its models can do', () => {
  let server: ScriptServer;
  let t: TestBackend;
  afterEach(async () => {
    await t?.close();
    await server?.close();
  });

  const chatList = async () => (await t.gw('GET', '/v1/completions/models')).json.data.map((m: { id: string }) => m.id);

  it("leaves out the models LM Studio's own list types as not chatting", async () => {
    server = await ScriptServer.start();
    server.on('GET', '/v1/models', (_req, res) =>
      sendJson(res, 200, { data: ['qwen2.5-7b', 'bge-m3', 'llava-1.6'].map((id) => ({ id })) }),
    );
    server.on('GET', '/api/v0/models', (_req, res) =>
      sendJson(res, 200, {
        data: [
          { id: 'qwen2.5-7b', type: 'llm' },
          { id: 'bge-m3', type: 'embeddings' },
          { id: 'llava-1.6', type: 'vlm' },
        ],
      }),
    );
    t = await startTestBackend({ rateLimits: false, upstream: { url: server.url } });
    assert.deepEqual(await chatList(), ['local-extractive', 'qwen2.5-7b', 'llava-1.6']);
  });

  it('leaves out the Ollama models whose capabilities lack completion, keeping those it says nothing of', async () => {
    server = await ScriptServer.start();
    const capabilities: Record<string, string[] | undefined> = {
      'llama3.2': ['completion', 'tools'],
      'bge-m3': ['embedding'],
      old: undefined,
    };
    server.on('GET', '/v1/models', (_req, res) => sendJson(res, 200, { data: Object.keys(capabilities).map((id) => ({ id })) }));
    server.on('GET', '/api/tags', (_req, res) => sendJson(res, 200, { models: Object.keys(capabilities).map((name) => ({ name })) }));
    server.on('POST', '/api/show', (req, res) => {
      const caps = capabilities[(req.json as { model: string }).model];
      sendJson(res, 200, caps ? { capabilities: caps } : {});
    });
    t = await startTestBackend({ rateLimits: false, upstream: { url: server.url } });
    assert.deepEqual(await chatList(), ['local-extractive', 'llama3.2', 'old']);
  });

  it('does not ask the company gateway (embeddings at /embed) about its models: its list is its chat models', async () => {
    server = await ScriptServer.start();
    server.on('GET', '/v1/models', (_req, res) => sendJson(res, 200, { data: [{ id: 'alpha-5-mini' }] }));
    t = await startTestBackend({ rateLimits: false, upstream: { url: server.url, embedPath: '/embed' } });
    assert.deepEqual(await chatList(), ['local-extractive', 'alpha-5-mini']);
    assert.deepEqual(
      server.requests.map((r) => r.path),
      ['/v1/models'],
    );
  });
});
