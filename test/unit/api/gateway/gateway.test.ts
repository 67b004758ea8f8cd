import * as assert from 'node:assert/strict';
import type { GatewayClient } from '../../../../src/api/gateway/client';
import { COMPLETION_MODELS, INFERENCE_RETIREMENT, LEGACY_INFERENCE_MODELS } from '../../../../src/api/gateway/schemas';
import { NotFoundError, ServerError, TimeoutError, ValidationError } from '../../../../src/api/http/errors';
import { ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { API_KEY, FakeClock, gatewayClient, recorder, rejects } from '../helpers';

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'alpha-5-mini',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hello!' } }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  system_fingerprint: 'fp_1',
};
const messages = [{ role: 'user', content: 'Hi' }];

describe('GatewayClient endpoints', () => {
  let server: ScriptServer;
  let client: GatewayClient;

  before(async () => {
    server = await ScriptServer.start();
  });
  beforeEach(() => {
    server.reset();
    client = gatewayClient(server.url);
  });
  afterEach(() => client.close());
  after(() => server.close());

  it('sends a chat completion with the Api-Key and X-Project-Code NA, keeping unknown fields', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 200, completion));
    const result = await client.chatCompletion({
      model: 'alpha-5-mini',
      messages,
      temperature: 0.2,
      max_completion_tokens: 100,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    });
    const request = server.requests[0]!;
    assert.equal(request.headers['api-key'], API_KEY);
    assert.equal(request.headers.authorization, undefined);
    assert.equal(request.headers['x-project-code'], 'NA');
    assert.equal(request.json.stream, false);
    assert.equal(request.json.response_format.json_schema.name, 'answer');
    assert.equal(result.choices[0]!.message!.content, 'Hello!');
    assert.equal(result.usage!.total_tokens, 5);
    assert.equal(result.system_fingerprint, 'fp_1');
  });

  it('sends the configured project code; a blank one means NA', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 200, completion));
    const withCode = gatewayClient(server.url, { projectCode: ' P-1234 ' });
    await withCode.chatCompletion({ model: 'alpha-5-mini', messages });
    await withCode.close();
    const blank = gatewayClient(server.url, { projectCode: '   ' });
    await blank.chatCompletion({ model: 'alpha-5-mini', messages });
    await blank.close();
    assert.deepEqual(
      server.requests.map((r) => r.headers['x-project-code']),
      ['P-1234', 'NA'],
    );
  });

  it('falls back to /v1/completions when /v1/chat/completions answers 404, and remembers it', async () => {
    server.on('POST', '/v1/completions', (_r, res) => sendJson(res, 200, completion));
    const record = recorder();
    const fallback = gatewayClient(server.url, { record });
    await fallback.chatCompletion({ model: 'alpha-5-mini', messages });
    await fallback.chatCompletion({ model: 'alpha-5-mini', messages });
    await fallback.close();
    assert.deepEqual(
      server.requests.map((r) => r.path),
      ['/v1/chat/completions', '/v1/completions', '/v1/completions'],
    );
    assert.ok(record.logs.some((l) => /using \/v1\/completions/.test(l.message)));
  });

  it('does not fall back when the 404 is about the model, and reports the first 404 when both miss', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendJson(res, 404, { error: { message: 'Model nope not found', type: 'not_found_error', param: 'model', code: 'model_not_found' } }),
    );
    const error = await rejects(client.chatCompletion({ model: 'nope', messages }), NotFoundError);
    assert.match(error.message, /Model nope not found/);
    assert.equal(server.count('POST', '/v1/completions'), 0);

    server.reset();
    const missing = await rejects(client.chatCompletion({ model: 'alpha-5-mini', messages }), NotFoundError);
    assert.match(missing.message, /\/v1\/chat\/completions/);
    assert.equal(server.requests.length, 2);
  });

  it('never retries a chat completion on 500', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 500, { error: { message: 'boom' } }));
    await rejects(client.chatCompletion({ model: 'alpha-5-mini', messages }), ServerError);
    assert.equal(server.requests.length, 1);
  });

  it('checks chat requests before sending', async () => {
    const bad: [unknown, string][] = [
      [{ model: '', messages }, 'model'],
      [{ model: 'm', messages: [] }, 'messages'],
      [{ model: 'm', messages: [{ role: 'user', content: 5 }] }, 'messages.0.content'],
      [{ model: 'm', messages, max_completion_tokens: 0 }, 'max_completion_tokens'],
      [{ model: 'm', messages, temperature: -1 }, 'temperature'],
      [{ model: 'm', messages, top_k: 3 }, 'top_k'],
    ];
    for (const [req, field] of bad) {
      const error = await rejects(client.chatCompletion(req as never), ValidationError);
      assert.equal(error.field, field);
    }
    assert.equal(server.requests.length, 0);
  });

  it('lists models from an array, {data} or {models}, of strings or objects', async () => {
    server.once('GET', '/v1/completions/models', (_r, res) => sendJson(res, 200, ['alpha-5-1', 'beta-opus-4-1']));
    server.once('GET', '/v1/completions/models', (_r, res) =>
      sendJson(res, 200, { object: 'list', data: [{ id: 'alpha-5-1', object: 'model', owned_by: 'x', context_window: 128000 }] }),
    );
    server.once('GET', '/v1/completions/models', (_r, res) =>
      sendJson(res, 200, { models: [{ name: 'gamma-4-fast-reasoning', available: false }, 'alpha-5-nano'] }),
    );
    server.once('GET', '/v1/completions/models', (_r, res) => sendJson(res, 200, { unexpected: true }));
    server.on('GET', '/v1/embed/models', (_r, res) => sendJson(res, 200, { data: ['text-embed-3-small', 'text-embed-3-large'] }));

    assert.deepEqual(await client.listCompletionModels(), [{ id: 'alpha-5-1' }, { id: 'beta-opus-4-1' }]);
    assert.deepEqual(await client.listCompletionModels(), [{ id: 'alpha-5-1', object: 'model', owned_by: 'x', context_window: 128000 }]);
    assert.deepEqual(await client.listCompletionModels(), [
      { name: 'gamma-4-fast-reasoning', available: false, id: 'gamma-4-fast-reasoning' },
      { id: 'alpha-5-nano' },
    ]);
    await assert.rejects(client.listCompletionModels(), /model list in an unexpected shape/);
    assert.deepEqual(
      (await client.listEmbeddingModels()).map((m) => m.id),
      ['text-embed-3-small', 'text-embed-3-large'],
    );
  });

  it('exports the documented model names', () => {
    assert.equal(COMPLETION_MODELS.length, 8);
    assert.ok(COMPLETION_MODELS.includes('gamma-4-fast-reasoning'));
    assert.equal(LEGACY_INFERENCE_MODELS.length, 9);
    assert.ok(LEGACY_INFERENCE_MODELS.includes('delta-4-maverick'));
    assert.equal(INFERENCE_RETIREMENT, 'December 17');
  });

  it('calls the deprecated inference endpoint with project_code and warns once naming the retirement date', async () => {
    server.on('POST', '/v1/inference/alpha-4o', (_r, res) =>
      sendJson(
        res,
        200,
        { model: 'alpha-4o', response: 'Paris', usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } },
        { deprecation: 'true', sunset: 'Wed, 17 Dec 2025 00:00:00 GMT' },
      ),
    );
    const record = recorder();
    const legacy = gatewayClient(server.url, { record, projectCode: 'P-9' });
    const first = await legacy.inference('alpha-4o', { prompt: 'Capital of France?', system_prompt: 'Be brief', max_tokens: 50 });
    await legacy.inference('alpha-4o', { prompt: 'Again', project_code: 'OTHER' });
    await legacy.close();
    assert.equal(first.response, 'Paris');
    assert.deepEqual(server.requests[0]!.json, {
      prompt: 'Capital of France?',
      system_prompt: 'Be brief',
      max_tokens: 50,
      project_code: 'P-9',
      stream: false,
    });
    assert.equal(server.requests[1]!.json.project_code, 'OTHER');
    const warnings = record.logs.filter((l) => l.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, new RegExp(`deprecated.*retired on ${INFERENCE_RETIREMENT}`));
  });

  it('embeds one text or many', async () => {
    server.on('POST', '/v1/embed', (r, res) => {
      const inputs = Array.isArray(r.json.input) ? r.json.input : [r.json.input];
      sendJson(res, 200, {
        object: 'list',
        data: inputs.map((_: string, index: number) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })),
        model: r.json.model,
        usage: { prompt_tokens: 2, total_tokens: 2 },
      });
    });
    const one = await client.embed({ model: 'text-embed-3-small', input: 'hello' });
    const many = await client.embed({ model: 'text-embed-3-large', input: ['a', 'b'], dimensions: 256 });
    assert.equal(one.data.length, 1);
    assert.deepEqual(
      many.data.map((d) => d.index),
      [0, 1],
    );
    assert.deepEqual(server.requests[1]!.json, { model: 'text-embed-3-large', input: ['a', 'b'], dimensions: 256 });
    await rejects(client.embed({ model: 'text-embed-3-small', input: [] }), ValidationError);
    assert.equal(server.requests.length, 2);
  });

  it('searches skills and reads the documented array', async () => {
    server.on('POST', '/v1/tools/skillshare', (_r, res) =>
      sendJson(res, 200, [
        { name: 'Ana', information: ['Team: Data'], skillshare_link: 'https://skills/ana', top_match_terms: ['python'], score: 0.8 },
      ]),
    );
    const people = await client.skillshare('python expert');
    assert.deepEqual(server.requests[0]!.json, { query: 'python expert' });
    assert.equal(people[0]!.name, 'Ana');
    assert.deepEqual(people[0]!.top_match_terms, ['python']);
    assert.equal(people[0]!.score, 0.8);
  });

  it('crawls and searches the web', async () => {
    server.on('POST', '/v1/tools/web/crawl', (r, res) =>
      sendJson(res, 200, {
        results: r.json.urls.map((url: string) =>
          url.includes('bad') ? { url, error: { message: 'unreachable' } } : { url, title: 'T', content: '# Page' },
        ),
      }),
    );
    server.on('POST', '/v1/tools/web/search', (_r, res) =>
      sendJson(res, 200, { results: [{ title: 'Doc', url: 'https://a', content: 'text', score: 0.5 }] }),
    );
    const crawl = await client.webCrawl(['https://ok.example/', 'https://bad.example/']);
    assert.equal(crawl.results[0]!.content, '# Page');
    assert.equal(crawl.results[1]!.error, 'unreachable');
    const found = await client.webSearch({ query: 'q', max_results: 3, filters: { include_domains: ['a'] } });
    assert.deepEqual(server.requests[1]!.json, { query: 'q', max_results: 3, filters: { include_domains: ['a'] } });
    assert.equal(found.results[0]!.url, 'https://a');
    await rejects(client.webCrawl(['not a url']), ValidationError);
    await rejects(client.webCrawl([]), ValidationError);
    assert.equal(server.requests.length, 2);
  });

  it('starts research and polls it to completion, reporting progress', async () => {
    server.on('POST', '/v1/tools/web/research', (_r, res) =>
      sendJson(res, 200, { id: 'research_1', object: 'research', status: 'in_progress', created_at: 1 }),
    );
    const states = [
      { status: 'in_progress', progress: 0.3, message: 'Reading' },
      { status: 'queued' },
      { status: 'completed', progress: 1, result: { content: '# Report', sources: [{ url: 'https://s', title: 'S' }] } },
    ];
    for (const state of states) {
      server.once('GET', '/v1/tools/web/research/research_1', (_r, res) => sendJson(res, 200, { id: 'research_1', ...state }));
    }
    const clock = new FakeClock();
    const record = recorder();
    const research = gatewayClient(server.url, { clock, record });
    const started = await research.startResearch('state of the art');
    assert.equal(started.status, 'in_progress');
    const progress: string[] = [];
    const done = await research.waitForResearch(started.id, { onProgress: (t) => progress.push(t.status), initialDelayMs: 100 });
    await research.close();
    assert.deepEqual(progress, ['in_progress', 'queued', 'completed']);
    assert.equal(done.result!.content, '# Report');
    assert.equal(done.result!.sources[0]!.url, 'https://s');
    assert.deepEqual(clock.sleeps, [100, 200]);
    assert.ok(record.logs.some((l) => l.level === 'warn' && l.message.includes('"queued"')));
  });

  it('returns a failed research task with its error, and times out a stuck one', async () => {
    server.once('GET', '/v1/tools/web/research/r2', (_r, res) =>
      sendJson(res, 200, { id: 'r2', status: 'failed', error: { message: 'quota' } }),
    );
    const failed = await client.waitForResearch('r2');
    assert.equal(failed.error, 'quota');
    server.on('GET', '/v1/tools/web/research/r3', (_r, res) => sendJson(res, 200, { id: 'r3', status: 'in_progress' }));
    await rejects(client.waitForResearch('r3', { initialDelayMs: 1000, maxDelayMs: 1000, timeoutMs: 2500 }), TimeoutError);
    assert.equal(server.count('GET', '/v1/tools/web/research/r3'), 3);
  });
});
