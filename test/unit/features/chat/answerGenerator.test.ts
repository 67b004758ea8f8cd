import * as assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { AnswerJob } from '../../../../src/features/chat/answerGenerator';
import type { AnswerResult } from '../../../../src/features/chat/answerStream';
import { type AnswerHandlers, runAnswer, type RunDependencies } from './runAnswer';
import type { FlushScheduler } from '../../../../src/features/chat/deltaCoalescer';
import { FileNameCache } from '../../../../src/chatCore/grounding';
import { QueryRewriter } from '../../../../src/chatCore/searchQuery';
import type { ChatErrorInfo, ChatSource, StreamPhase } from '../../../../src/chatCore/protocol';
import { chatChunk, ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';

type Event =
  | { kind: 'status'; phase: StreamPhase }
  | { kind: 'start'; sources: ChatSource[]; searchQuery?: string }
  | { kind: 'delta'; text: string }
  | { kind: 'done'; result: AnswerResult }
  | { kind: 'error'; error: ChatErrorInfo };

class Recorder implements AnswerHandlers {
  readonly events: Event[] = [];
  onDelta?: (text: string) => void;
  status(phase: StreamPhase) {
    this.events.push({ kind: 'status', phase });
  }
  start(sources: ChatSource[], searchQuery?: string) {
    this.events.push({ kind: 'start', sources, ...(searchQuery ? { searchQuery } : {}) });
  }
  delta(text: string) {
    this.events.push({ kind: 'delta', text });
    this.onDelta?.(text);
  }
  done(result: AnswerResult) {
    this.events.push({ kind: 'done', result });
  }
  error(error: ChatErrorInfo) {
    this.events.push({ kind: 'error', error });
  }
  get text(): string {
    return this.events.map((e) => (e.kind === 'delta' ? e.text : '')).join('');
  }
  get terminals(): Event[] {
    return this.events.filter((e) => e.kind === 'done' || e.kind === 'error');
  }
  /** Exactly one terminal event, and it is the last one. */
  assertOneTerminal(): Event {
    assert.equal(this.terminals.length, 1, `terminal events: ${JSON.stringify(this.terminals)}`);
    assert.equal(this.events[this.events.length - 1], this.terminals[0]);
    return this.terminals[0]!;
  }
}

/** Flushes on demand only, so tests decide how deltas coalesce without depending on time. */
class ManualScheduler implements FlushScheduler {
  private pending: (() => void) | undefined;
  schedule(callback: () => void) {
    this.pending = callback;
    return 1;
  }
  cancel() {
    this.pending = undefined;
  }
  get scheduled() {
    return this.pending !== undefined;
  }
}

const KEY = 'gateway-key';

function job(overrides: Partial<AnswerJob> = {}): AnswerJob {
  return {
    question: 'How long are invoices kept?',
    history: [],
    context: [],
    model: 'alpha-5-mini',
    legacy: false,
    projectCode: 'P-42',
    maxResults: 5,
    ...overrides,
  };
}

describe('chat answers (generateAnswer) against a scripted gateway', () => {
  let server: ScriptServer;
  let gateway: GatewayClient;
  let documents: DocumentsClient;

  before(async () => {
    server = await ScriptServer.start();
    gateway = new GatewayClient({ baseUrl: server.url, token: KEY, projectCode: 'P-42', rateLimits: false, transport: { maxRetries: 0 } });
    documents = new DocumentsClient({ baseUrl: server.url, token: 'docs-token', rateLimits: false, transport: { maxRetries: 0 } });
  });
  afterEach(() => server.reset());
  after(async () => {
    await gateway.close();
    await documents.close();
    await server.close();
  });

  const deps = (extra: Partial<RunDependencies> = {}): RunDependencies => ({
    gateway,
    documents,
    fileNames: new FileNameCache(),
    ...extra,
  });

  it('streams the answer, coalesces deltas, reports usage, and ends with exactly one done', async () => {
    const words = ['Invoices ', 'are ', 'kept ', 'for ', 'ten ', 'years.'];
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(
        res,
        sseBody([
          chatChunk('', { role: 'assistant' }),
          ...words.map((w) => chatChunk(w)),
          chatChunk(undefined, { finish_reason: 'stop' }),
          chatChunk(undefined, { usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 } }),
        ]),
      ),
    );
    const recorder = new Recorder();
    await runAnswer(job(), deps({ frameMs: 50 }), recorder, new AbortController().signal);
    assert.equal(recorder.text, words.join(''));
    const done = recorder.assertOneTerminal();
    assert.deepEqual(done, {
      kind: 'done',
      result: { stopped: false, usage: { promptTokens: 30, completionTokens: 6, totalTokens: 36 }, finishReason: 'stop' },
    });
    assert.ok(
      recorder.events.findIndex((e) => e.kind === 'start') < recorder.events.findIndex((e) => e.kind === 'delta'),
      'start comes before the first delta',
    );
    const request = server.requests.find((r) => r.path === '/v1/chat/completions')!;
    assert.equal(request.json.stream, true);
    assert.equal(request.json.model, 'alpha-5-mini');
    assert.equal(request.headers['x-project-code'], 'P-42');
    assert.equal(request.json.messages.at(-1).content, 'How long are invoices kept?');
  });

  it('sends the first chunk at once, then one delta per flush however many chunks arrived in between', async () => {
    const recorder = new Recorder();
    const firstDelta = new Promise<void>((resolve) => (recorder.onDelta = () => resolve()));
    server.on('POST', '/v1/chat/completions', async (_req, res) => {
      // The stream client joins text that arrives in one read, so 'a' comes alone and the rest
      // only once it was sent on; then b, c and d are written one by one.
      const [first, ...rest] = ['a', 'b', 'c', 'd'].map((c) => sseBody([chatChunk(c)], { done: false }));
      await sendChunked(res, first!, { end: false });
      await firstDelta;
      for (const event of rest) res.write(event);
      res.end('data: [DONE]\n\n');
    });
    const scheduler = new ManualScheduler();
    await runAnswer(job(), deps({ scheduler }), recorder, new AbortController().signal);
    // The first chunk goes out at once; nothing flushed on schedule, so the rest arrives as one final delta before done.
    assert.deepEqual(
      recorder.events.filter((e) => e.kind === 'delta'),
      [
        { kind: 'delta', text: 'a' },
        { kind: 'delta', text: 'bcd' },
      ],
    );
    assert.equal(scheduler.scheduled, false, 'no flush left pending after the end');
    recorder.assertOneTerminal();
  });

  it('passes temperature and max completion tokens only when set', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([chatChunk('ok')])));
    await runAnswer(job({ temperature: 0.3, maxCompletionTokens: 256 }), deps(), new Recorder(), new AbortController().signal);
    await runAnswer(job(), deps(), new Recorder(), new AbortController().signal);
    const [withOptions, without] = server.requests.map((r) => r.json);
    assert.equal(withOptions.temperature, 0.3);
    assert.equal(withOptions.max_completion_tokens, 256);
    assert.ok(!('temperature' in without) && !('max_completion_tokens' in without));
  });

  it('grounds the question: searches the store, numbers the passages in the prompt, and reports them as sources', async () => {
    server.on('POST', '/v1/vector_stores/vs_1/search', (req, res) =>
      sendJson(res, 200, {
        object: 'vector_store.search_results.page',
        search_query: req.json.query,
        data: [
          { id: 'r1', score: 0.91, content: 'Invoices are kept for ten years.', file_id: 'file-a' },
          { id: 'r2', score: 0.52, content: 'Contracts are kept for six years.', file_id: 'file-b', filename: 'contracts.md' },
        ],
      }),
    );
    server.on('GET', '/v1/files/file-a', (_req, res) =>
      sendJson(res, 200, { id: 'file-a', object: 'file', filename: 'retention.md', bytes: 10, created_at: 1 }),
    );
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([chatChunk('Ten years [1].')])));
    const recorder = new Recorder();
    await runAnswer(job({ stores: [{ id: 'vs_1', name: 'policies' }], maxResults: 7 }), deps(), recorder, new AbortController().signal);

    const search = server.requests.find((r) => r.path === '/v1/vector_stores/vs_1/search')!;
    // Twice the setting: room for what the relevance floor and the per-file cap remove.
    assert.deepEqual(search.json, { query: 'How long are invoices kept?', max_num_results: 14 });
    const start = recorder.events.find((e) => e.kind === 'start') as { sources: ChatSource[] };
    assert.deepEqual(
      start.sources.map((s) => [s.number, s.kind === 'passage' ? s.filename : '', s.content]),
      [
        [1, 'retention.md', 'Invoices are kept for ten years.'],
        [2, 'contracts.md', 'Contracts are kept for six years.'],
      ],
    );
    const system = server.requests.find((r) => r.path === '/v1/chat/completions')!.json.messages[0];
    assert.equal(system.role, 'system');
    assert.match(system.content, /\[1\] retention\.md\nInvoices are kept for ten years\./);
    assert.match(system.content, /\[2\] contracts\.md\nContracts are kept for six years\./);
    assert.deepEqual(
      recorder.events.filter((e) => e.kind === 'status').map((e) => (e as { phase: string }).phase),
      ['searching', 'generating'],
    );
    recorder.assertOneTerminal();
  });

  it('routes legacy models to the deprecated inference endpoint with a single prompt', async () => {
    server.on('POST', '/v1/inference/o3-mini', (_req, res) => sendChunked(res, sseBody([chatChunk('Legacy '), chatChunk('answer.')])));
    const history = [
      { id: 'u0', role: 'user' as const, content: 'Earlier question', createdAt: 1 },
      { id: 'a0', role: 'assistant' as const, content: 'Earlier answer', createdAt: 2, status: 'done' as const },
    ];
    const recorder = new Recorder();
    await runAnswer(job({ model: 'o3-mini', legacy: true, history, temperature: 1 }), deps(), recorder, new AbortController().signal);
    assert.equal(recorder.text, 'Legacy answer.');
    const body = server.requests.find((r) => r.path === '/v1/inference/o3-mini')!.json;
    assert.equal(body.project_code, 'P-42');
    assert.equal(body.stream, true);
    assert.equal(body.temperature, 1);
    assert.match(body.prompt, /^User: Earlier question\n\nAssistant: Earlier answer\n\nUser: How long are invoices kept\?$/);
    assert.match(body.system_prompt, /DocChat/);
    assert.equal(server.count('POST', '/v1/chat/completions'), 0);
  });

  it('stops mid-stream: the partial answer stays and the request ends with one done(stopped)', async () => {
    server.on('POST', '/v1/chat/completions', async (_req, res) => {
      // First part, then the stream stays open as a long answer would.
      await sendChunked(res, sseBody([chatChunk('Partial answer')], { done: false }), { end: false });
    });
    const abort = new AbortController();
    const recorder = new Recorder();
    recorder.onDelta = () => abort.abort();
    await runAnswer(job(), deps({ frameMs: 1 }), recorder, abort.signal);
    assert.equal(recorder.text, 'Partial answer');
    assert.deepEqual(recorder.assertOneTerminal(), { kind: 'done', result: { stopped: true } });
  });

  it('keeps what arrived when the stream breaks, then reports a stream error with Retry', async () => {
    let response: ServerResponse | undefined;
    server.on('POST', '/v1/chat/completions', async (_req, res) => {
      response = res;
      await sendChunked(res, sseBody([chatChunk('Half of '), chatChunk('the answer')], { done: false }), { end: false });
    });
    const recorder = new Recorder();
    // The connection drops once the client has shown what arrived.
    recorder.onDelta = () => recorder.text === 'Half of the answer' && response?.destroy();
    await runAnswer(job(), deps({ frameMs: 1 }), recorder, new AbortController().signal);
    assert.equal(recorder.text, 'Half of the answer');
    const terminal = recorder.assertOneTerminal() as { kind: 'error'; error: ChatErrorInfo };
    assert.equal(terminal.kind, 'error');
    assert.ok(['stream', 'network'].includes(terminal.error.kind), terminal.error.kind);
    assert.ok(terminal.error.actions.includes('retry'));
  });

  it('says the model returned nothing, with Retry, when the stream ends with [DONE] after no content and no finish reason', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([chatChunk('', { role: 'assistant' })])));
    const recorder = new Recorder();
    await runAnswer(job(), deps(), recorder, new AbortController().signal);
    assert.equal(recorder.text, '');
    const terminal = recorder.assertOneTerminal() as { kind: 'error'; error: ChatErrorInfo };
    assert.equal(terminal.kind, 'error');
    assert.equal(terminal.error.kind, 'empty');
    assert.match(terminal.error.message, /returned nothing/);
    assert.ok(terminal.error.actions.includes('retry'));
  });

  it('says "thinking" while a reasoning model reasons, then "generating" with its first text, and keeps the reasoning out of the answer', async () => {
    const reasoning = (piece: string) => ({ id: 'r', choices: [{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }] });
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(
        res,
        sseBody([
          chatChunk('', { role: 'assistant' }),
          reasoning('The sources say '),
          reasoning('ten years.'),
          chatChunk('Ten years [1].'),
          chatChunk(undefined, { finish_reason: 'stop' }),
        ]),
      ),
    );
    const recorder = new Recorder();
    await runAnswer(job(), deps(), recorder, new AbortController().signal);
    assert.equal(recorder.text, 'Ten years [1].');
    const phases = recorder.events.flatMap((e) => (e.kind === 'status' ? [e.phase] : e.kind === 'delta' ? ['text'] : []));
    assert.deepEqual(phases.slice(phases.indexOf('thinking')), ['thinking', 'generating', 'text']);
    assert.equal(recorder.assertOneTerminal().kind, 'done');
  });

  it('says a reasoning model reasoned without answering, and when its token limit ran out while it reasoned', async () => {
    const reasoning = { id: 'r', choices: [{ index: 0, delta: { reasoning_content: 'Let me see.' }, finish_reason: null }] };
    server.once('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([reasoning, chatChunk(undefined, { finish_reason: 'length' })])),
    );
    server.once('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([reasoning])));
    const cutOff = new Recorder();
    await runAnswer(job(), deps(), cutOff, new AbortController().signal);
    const limit = cutOff.assertOneTerminal() as { kind: 'error'; error: ChatErrorInfo };
    assert.equal(limit.kind, 'error');
    assert.match(limit.error.message, /reached its token limit while reasoning, before any answer.*Max tokens/);
    assert.ok(limit.error.actions.includes('retry'));
    const silent = new Recorder();
    await runAnswer(job(), deps(), silent, new AbortController().signal);
    const none = silent.assertOneTerminal() as { kind: 'error'; error: ChatErrorInfo };
    assert.match(none.error.message, /alpha-5-mini reasoned but returned no answer/);
  });

  it('keeps an empty answer that the model ended with a finish reason', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk(undefined, { finish_reason: 'length' })])),
    );
    const recorder = new Recorder();
    await runAnswer(job(), deps(), recorder, new AbortController().signal);
    assert.deepEqual(recorder.assertOneTerminal(), { kind: 'done', result: { stopped: false, finishReason: 'length' } });
  });

  it('reports an error event inside the stream after the text that came before it', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(
        res,
        `${sseBody([chatChunk('Before the error')], { done: false })}event: error\ndata: ${JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } })}\n\n`,
      ),
    );
    const recorder = new Recorder();
    await runAnswer(job(), deps(), recorder, new AbortController().signal);
    assert.equal(recorder.text, 'Before the error');
    const terminal = recorder.assertOneTerminal() as { kind: 'error'; error: ChatErrorInfo };
    assert.match(terminal.error.message, /upstream overloaded/);
  });

  it('explains a rate limit with its wait', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendJson(
        res,
        429,
        { error: { message: 'Too many requests', type: 'rate_limit_error' } },
        { 'retry-after': '12', 'retry-after-ms': '12000' },
      ),
    );
    const recorder = new Recorder();
    await runAnswer(job(), deps(), recorder, new AbortController().signal);
    const { error } = recorder.assertOneTerminal() as { error: ChatErrorInfo };
    assert.equal(error.kind, 'rate_limit');
    assert.equal(error.retryAfterMs, 12000);
    assert.match(error.message, /12 s/);
    assert.deepEqual(error.actions, ['retry']);
  });

  it('offers "Set API Key" when the gateway rejects the key, "Set Token" when the documents service does', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendJson(res, 401, { error: { message: 'Invalid API key', type: 'authentication_error' } }),
    );
    server.on('POST', '/v1/vector_stores/vs_1/search', (_req, res) =>
      sendJson(res, 401, { error: { message: 'Invalid token', type: 'authentication_error' } }),
    );
    const gatewayFailure = new Recorder();
    await runAnswer(job(), deps(), gatewayFailure, new AbortController().signal);
    const gatewayError = (gatewayFailure.assertOneTerminal() as { error: ChatErrorInfo }).error;
    assert.equal(gatewayError.kind, 'auth');
    assert.deepEqual(gatewayError.actions, ['setGatewayApiKey', 'retry']);

    const searchFailure = new Recorder();
    await runAnswer(job({ stores: [{ id: 'vs_1' }] }), deps(), searchFailure, new AbortController().signal);
    const searchError = (searchFailure.assertOneTerminal() as { error: ChatErrorInfo }).error;
    assert.equal(searchError.kind, 'auth');
    assert.deepEqual(searchError.actions, ['setDocumentsToken', 'retry']);
    assert.equal(server.count('POST', '/v1/chat/completions'), 1, 'no generation after the search failed');
  });

  it('says a deleted store is gone and offers Choose a Store, never a Retry that can only fail again', async () => {
    server.on('POST', '/v1/vector_stores/vs_gone/search', (_req, res) =>
      sendJson(res, 404, { error: { message: "No vector store with id 'vs_gone'", type: 'not_found_error' } }),
    );
    const found = new Recorder();
    await runAnswer(job({ stores: [{ id: 'vs_gone', name: 'demo' }] }), deps(), found, new AbortController().signal);
    const error = (found.assertOneTerminal() as { error: ChatErrorInfo }).error;
    assert.equal(error.kind, 'store_gone');
    assert.deepEqual(error.actions, ['chooseStore']);
    assert.match(error.message, /“demo” no longer exists/);
    assert.equal(server.count('POST', '/v1/chat/completions'), 0, 'nothing is generated from a search that failed');

    // Known to be gone (not in a list of every store): said before any request.
    const known = new Recorder();
    const searches = server.count('POST', '/v1/vector_stores/vs_gone/search');
    await runAnswer(
      job({ stores: [{ id: 'vs_gone', name: 'demo' }] }),
      deps({ isStoreGone: (id) => id === 'vs_gone' }),
      known,
      new AbortController().signal,
    );
    assert.equal((known.assertOneTerminal() as { error: ChatErrorInfo }).error.kind, 'store_gone');
    assert.equal(server.count('POST', '/v1/vector_stores/vs_gone/search'), searches, 'no search of a store known to be gone');
  });

  it('says when a model is unavailable (gamma-4-fast-reasoning comes and goes: Retry), and when it is not served at all (no Retry)', async () => {
    server.on('POST', '/v1/chat/completions', (req, res) =>
      req.json.model === 'gamma-4-fast-reasoning'
        ? sendJson(res, 503, { error: { message: 'The model gamma-4-fast-reasoning is temporarily unavailable.', type: 'server_error' } })
        : sendJson(res, 404, {
            error: { message: 'The model nope does not exist', type: 'not_found_error', param: 'model', code: 'model_not_found' },
          }),
    );
    const expected = {
      'gamma-4-fast-reasoning': { actions: ['retry', 'chooseModel'], message: /not available right now/ },
      nope: { actions: ['chooseModel'], message: /not served here, so it cannot answer\. Choose another model/ },
    };
    for (const [model, want] of Object.entries(expected)) {
      const recorder = new Recorder();
      await runAnswer(job({ model }), deps(), recorder, new AbortController().signal);
      const { error } = recorder.assertOneTerminal() as { error: ChatErrorInfo };
      assert.equal(error.kind, 'model_unavailable', model);
      assert.ok(error.message.includes(model));
      assert.match(error.message, want.message);
      assert.deepEqual(error.actions, want.actions);
    }
  });

  it('reports a network failure with Retry', async () => {
    const closed = await ScriptServer.start();
    const url = closed.url;
    await closed.close();
    const unreachable = new GatewayClient({
      baseUrl: url,
      token: KEY,
      rateLimits: false,
      transport: { maxRetries: 0, connectTimeoutMs: 2000 },
    });
    const recorder = new Recorder();
    await runAnswer(job(), deps({ gateway: unreachable }), recorder, new AbortController().signal);
    const { error } = recorder.assertOneTerminal() as { error: ChatErrorInfo };
    assert.equal(error.kind, 'network');
    assert.ok(error.actions.includes('retry'));
    await unreachable.close();
  });

  it('explains a missing gateway without sending anything', async () => {
    const recorder = new Recorder();
    const notConnected: ChatErrorInfo = { kind: 'not_connected', message: 'Set the API key.', actions: ['setGatewayApiKey'] };
    await runAnswer(job(), deps({ gateway: undefined, notConnected }), recorder, new AbortController().signal);
    assert.deepEqual(recorder.assertOneTerminal(), { kind: 'error', error: notConnected });
    assert.equal(server.requests.length, 0);
  });

  it('stops during the grounding search without generating', async () => {
    const abort = new AbortController();
    server.on('POST', '/v1/vector_stores/vs_1/search', () => {
      abort.abort(); // the user pressed Escape while searching; the response never comes
    });
    const recorder = new Recorder();
    await runAnswer(job({ stores: [{ id: 'vs_1' }] }), deps(), recorder, abort.signal);
    assert.deepEqual(recorder.assertOneTerminal(), { kind: 'done', result: { stopped: true } });
    assert.equal(server.count('POST', '/v1/chat/completions'), 0);
  });
  describe('the search query of a follow-up', () => {
    const history = [
      { id: 'u1', role: 'user' as const, content: 'How long are invoices kept?', createdAt: 1 },
      { id: 'a1', role: 'assistant' as const, content: 'Ten years [1].', createdAt: 2, status: 'done' as const },
    ];
    const searchFor = (query: string, content = 'Invoices: exceptions need the finance director.') =>
      server.on('POST', '/v1/vector_stores/vs_1/search', (req, res) =>
        sendJson(res, 200, {
          data:
            req.json.query === query
              ? [
                  {
                    id: 'r1',
                    score: 0.9,
                    content,
                    file_id: 'f',
                    filename: 'retention.md',
                  },
                ]
              : [],
        }),
      );

    it('rewrites it with the model first, searches for the rewrite, and reports it with the sources', async () => {
      const rewritten = 'invoice retention exceptions approval';
      searchFor(rewritten);
      server.on('POST', '/v1/chat/completions', (req, res) =>
        sendChunked(res, sseBody([chatChunk(req.json.max_completion_tokens === 64 ? rewritten : 'The finance director [1].')])),
      );
      const recorder = new Recorder();
      await runAnswer(
        job({ question: 'Who approves exceptions?', history, stores: [{ id: 'vs_1', name: 'policies' }] }),
        deps({ rewriter: new QueryRewriter() }),
        recorder,
        new AbortController().signal,
      );
      const completions = server.requests.filter((r) => r.path === '/v1/chat/completions');
      assert.equal(completions.length, 2, 'the rewrite, then the answer');
      assert.match(completions[0]!.json.messages[1].content, /Last message: Who approves exceptions\?/);
      const start = recorder.events.find((e) => e.kind === 'start') as { sources: ChatSource[]; searchQuery?: string };
      assert.equal(start.searchQuery, rewritten);
      assert.equal(start.sources.length, 1);
      // The answer is asked with the question as the user wrote it.
      assert.equal(completions[1]!.json.messages.at(-1).content, 'Who approves exceptions?');
    });

    it('falls back to the rule when the rewrite fails, and still answers', async () => {
      searchFor('And what about contracts? long invoices kept', 'Contracts are kept for six years.');
      let calls = 0;
      server.on('POST', '/v1/chat/completions', (_req, res) =>
        calls++ === 0
          ? sendJson(res, 500, { error: { message: 'boom', type: 'server_error' } })
          : sendChunked(res, sseBody([chatChunk('Six years [1].')])),
      );
      const recorder = new Recorder();
      await runAnswer(
        job({ question: 'And what about contracts?', history, stores: [{ id: 'vs_1', name: 'policies' }] }),
        deps({ rewriter: new QueryRewriter() }),
        recorder,
        new AbortController().signal,
      );
      const start = recorder.events.find((e) => e.kind === 'start') as { sources: ChatSource[]; searchQuery?: string };
      assert.equal(start.searchQuery, 'And what about contracts? long invoices kept');
      assert.equal(recorder.text, 'Six years [1].');
      recorder.assertOneTerminal();
    });
  });
});
