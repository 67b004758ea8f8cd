import * as assert from 'node:assert/strict';
import net from 'node:net';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { AnswerGateway } from '../../../../src/features/chat/answerGenerator';
import { couldNotConnectError, notConnectedError } from '../../../../src/features/chat/chatErrors';
import { type AnswerEnded, ChatSession, type ChatEnvironment } from '../../../../src/features/chat/chatSession';
import { ConversationStore } from '../../../../src/features/chat/conversationStore';
import type { ToolGateway } from '../../../../src/features/gatewayTools';
import type { HostMessage } from '../../../../src/chatCore/protocol';
import { QueryRewriter } from '../../../../src/chatCore/searchQuery';
import { localModelOrigin, ModelCatalog, ModelRefusals } from '../../../../src/chatCore/modelCatalog';
import { chatChunk, ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';
import { MemoryState, testEnvironment } from './fixtures';

// The chat session owns the conversations: the panel calls its intent methods, every change is one
// save and the messages the webview needs, and each answer's request id ends with exactly one
// streamDone or streamError — also when the stream throws or is stopped.

type Gateway = (AnswerGateway & ToolGateway) | undefined;

describe('chat session', () => {
  let server: ScriptServer;
  let gateway: GatewayClient;

  before(async () => {
    server = await ScriptServer.start();
    gateway = new GatewayClient({ baseUrl: server.url, token: 'k', rateLimits: false, transport: { maxRetries: 0 } });
  });
  afterEach(() => server.reset());
  after(async () => {
    await gateway.close();
    await server.close();
  });

  function setup(env: Partial<ChatEnvironment> & { gateway?: Gateway } = {}) {
    const posted: HostMessage[] = [];
    const ended: AnswerEnded[] = [];
    let saves = 0;
    const store = new ConversationStore(new MemoryState());
    const save = store.save.bind(store);
    store.save = () => (saves++, save());
    const { gateway: chosen, ...rest } = env;
    const session = new ChatSession(
      store,
      testEnvironment({
        clients: () => ({ gateway: 'gateway' in env ? chosen : (gateway as Gateway), documents: undefined }),
        defaultModel: () => 'alpha-5-mini',
        ...rest,
      }),
      { frameMs: 1 },
    );
    session.onMessage((m) => posted.push(m));
    session.onDidAnswer((e) => ended.push(e));
    const terminals = () => posted.filter((m) => m.type === 'streamDone' || m.type === 'streamError');
    return { session, store, posted, ended, terminals, saves: () => saves };
  }

  it('asks: the answer message follows the stream, and the request id ends with one streamDone', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(
        res,
        sseBody([
          chatChunk('Hello '),
          chatChunk('there.'),
          chatChunk(undefined, { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
        ]),
      ),
    );
    const t = setup();
    t.session.setSampling({ temperature: 0.4, maxCompletionTokens: null });
    const answer = (await t.session.ask('Hi?'))!;
    assert.equal(t.session.busy, true);
    assert.ok(answer.status === 'pending' || answer.status === 'streaming', answer.status);
    const requestId = answer.requestId!;
    assert.equal(await t.session.ask('Again?'), undefined, 'a second answer never starts while one runs');
    assert.equal(t.session.current.messages.length, 2);
    await t.session.whenIdle();

    assert.equal(answer.content, 'Hello there.');
    assert.equal(answer.status, 'done');
    assert.equal(answer.requestId, undefined);
    assert.deepEqual(answer.usage, { promptTokens: 3, completionTokens: 2, totalTokens: 5 });
    assert.equal(t.session.busy, false);
    assert.equal(t.session.current.title, 'Hi?');
    const stream = t.posted.filter((m) => 'requestId' in m);
    assert.ok(stream.every((m) => 'requestId' in m && m.requestId === requestId));
    assert.equal(stream.map((m) => (m.type === 'streamDelta' ? m.text : '')).join(''), 'Hello there.');
    assert.equal(t.terminals().length, 1);
    assert.equal(t.posted.at(-1)!.type, 'streamDone');
    const turn = t.posted.find((m) => m.type === 'turn');
    assert.ok(turn?.type === 'turn' && turn.from === 0 && turn.messages.length === 2, 'the turn comes before the stream');
    assert.equal(server.requests[0]!.json.temperature, 0.4, 'the conversation options are sent');
    assert.deepEqual(
      t.ended.map((e) => e.end.type),
      ['done'],
    );
  });

  it('schedules exactly one save per change, and tells the webview what changed', async () => {
    const t = setup();
    const changes: Array<[string, () => void, HostMessage['type'][]]> = [
      ['setModel', () => t.session.setModel('beta-2'), ['options']],
      ['setSampling', () => t.session.setSampling({ temperature: 1, maxCompletionTokens: 64 }), ['options']],
      ['setGrounding', () => t.session.setGrounding([{ id: 'vs_1', name: 'policies' }]), ['options']],
      [
        'addContext',
        () => t.session.addContext([{ kind: 'web', url: 'https://a.example', title: 'A', content: 'a' }]),
        ['state', 'focusComposer'],
      ],
      ['removeContext', () => t.session.removeContext(0), ['state']],
      ['newChat', () => t.session.newChat(), ['state', 'focusComposer']],
      ['open', () => t.session.open(t.session.current.id), ['state']],
      ['delete', () => t.session.delete(t.session.current.id), ['state']],
    ];
    for (const [name, intent, messages] of changes) {
      const saves = t.saves();
      const posted = t.posted.length;
      intent();
      assert.equal(t.saves() - saves, 1, `${name}: one save`);
      assert.deepEqual(
        t.posted.slice(posted).map((m) => m.type),
        messages,
        name,
      );
      if (name === 'newChat') {
        assert.equal(t.session.current.options.model, 'beta-2', 'a new chat keeps the model, not the store');
        assert.equal(t.session.current.options.vectorStoreId, undefined);
      }
    }
  });

  it('stops: the partial answer stays, marked stopped, with one streamDone(stopped)', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk('Partial')], { done: false }), { end: false }),
    );
    const t = setup();
    const answer = (await t.session.ask('Hi?'))!;
    while (!t.posted.some((m) => m.type === 'streamDelta')) await new Promise((resolve) => setTimeout(resolve, 5));
    t.session.stop('some-other-request');
    assert.equal(t.session.busy, true, 'a stop for another request id is ignored');
    const requestId = answer.requestId!;
    t.session.stop(requestId);
    await t.session.whenIdle();
    assert.equal(answer.status, 'stopped');
    assert.equal(answer.content, 'Partial');
    assert.deepEqual(t.terminals(), [{ type: 'streamDone', requestId, stopped: true }]);
  });

  it('marks the answer thinking while a reasoning model reasons, for a redraw; Stop ends it no longer thinking', async () => {
    const reasoning = { id: 'r', choices: [{ index: 0, delta: { reasoning_content: 'Let me think.' }, finish_reason: null }] };
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([reasoning], { done: false }), { end: false }));
    const t = setup();
    const thinking = new Promise<void>((resolve) =>
      t.session.onMessage((m) => {
        if (m.type === 'streamStatus' && m.phase === 'thinking') resolve();
      }),
    );
    const answer = (await t.session.ask('Think first?'))!;
    await thinking;
    assert.equal(answer.thinking, true);
    t.session.stop(answer.requestId!);
    await t.session.whenIdle();
    assert.equal(answer.status, 'stopped');
    assert.equal(answer.thinking, undefined);
    assert.equal(answer.content, '', 'the reasoning is not the answer');
  });

  it('ends with one streamError when the stream throws, after the text that came before it', async () => {
    const throwing: Gateway = {
      ...gateway,
      async *streamChatCompletion() {
        yield { content: 'Before ' };
        throw new Error('the stream broke');
      },
      streamInference: gateway.streamInference.bind(gateway),
    } as unknown as Gateway;
    const t = setup({ gateway: throwing });
    const answer = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    assert.equal(answer.content, 'Before ');
    assert.equal(answer.status, 'error');
    assert.equal(answer.error?.kind, 'unknown');
    assert.match(answer.error!.message, /the stream broke/);
    assert.deepEqual(
      t.terminals().map((m) => m.type),
      ['streamError'],
    );
    assert.equal(t.posted.at(-1)!.type, 'streamError', 'nothing after the terminal message');
    assert.equal(t.session.busy, false);
  });

  it('records a failure on the message and posts one streamError; Regenerate replaces the answer', async () => {
    const t = setup({
      gateway: undefined,
      clients: () => ({
        gateway: undefined,
        documents: undefined,
        notConnected: { kind: 'not_connected', message: 'No gateway.', actions: ['retry'] },
      }),
    });
    t.session.setModel('o3-mini');
    const answer = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    assert.equal(answer.status, 'error');
    assert.equal(answer.legacy, true);
    assert.equal(answer.error?.message, 'No gateway.');
    assert.equal(t.terminals().length, 1);
    assert.equal(t.session.busy, false, 'an answer that fails at once does not leave the session busy');

    const again = t.session.regenerate(answer.id)!;
    await t.session.whenIdle();
    assert.notEqual(again.id, answer.id);
    assert.deepEqual(
      t.session.current.messages.map((m) => m.id),
      [t.session.current.messages[0]!.id, again.id],
      'the failed answer is replaced',
    );
    assert.equal(t.terminals().length, 2, 'one terminal message per request');
    assert.equal(t.session.regenerate('not-the-last'), undefined);
  });

  it('an answer that cannot reach its server tells the environment once, so Local mode checks its backend', async () => {
    // A port nothing listens on: the connection is refused, as after the backend was killed.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const unreachableGateway = new GatewayClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 'k',
      rateLimits: false,
      transport: { maxRetries: 0 },
    });
    let unreachable = 0;
    const t = setup({ gateway: unreachableGateway, unreachable: () => unreachable++ });
    const answer = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    await unreachableGateway.close();
    assert.equal(answer.error?.kind, 'network', JSON.stringify(answer.error));
    assert.deepEqual(answer.error?.actions, ['retry', 'showOutput']);
    assert.equal(unreachable, 1);

    // Any other failure is not the backend's absence.
    const other = setup({ gateway: undefined, unreachable: () => unreachable++ });
    await other.session.ask('Hi?');
    await other.session.whenIdle();
    assert.equal(unreachable, 1);
  });

  it('tells the environment which model the server refused for chat, and why, so the model lists mark it unavailable', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendJson(res, 400, { error: { message: 'Upstream server: "whisper-1" does not support chat' } }),
    );
    const marked: unknown[] = [];
    const t = setup({
      defaultModel: () => 'whisper-1',
      modelUnavailable: (model, unavailable) => marked.push([model, unavailable]),
    });
    const answer = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    assert.equal(answer.error?.message, 'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.');
    assert.deepEqual(marked, [['whisper-1', { reason: '"whisper-1" does not support chat' }]]);
  });

  it('a model the server refused stays chosen: asked again, the same note comes at once without a request', async () => {
    // Wired as the chat's controller wires it: the session asks the model list what was refused.
    let refuse = true;
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      refuse
        ? sendJson(res, 400, { error: { message: 'Upstream server: "whisper-1" does not support chat' } })
        : sendChunked(res, sseBody([chatChunk('Heard.'), chatChunk(undefined, { finish_reason: 'stop' })])),
    );
    const origin = localModelOrigin('http://127.0.0.1:8000/v1');
    const refusals = new ModelRefusals();
    const catalog = new ModelCatalog(new MemoryState(), Date.now, new Map(), refusals);
    const lister = { listCompletionModels: async () => ['local-extractive', 'tiny-chat', 'whisper-1'].map((id) => ({ id })) };
    await catalog.load(lister, origin, 'whisper-1', false, 'local');
    const local = { documents: true, gateway: true, modelServer: { url: 'http://127.0.0.1:8000/v1', name: 'vLLM' } };
    const t = setup({
      clients: () => ({ gateway, documents: undefined, local }),
      defaultModel: () => catalog.state.defaultModel ?? 'local-extractive',
      modelUnavailable: (model, unavailable) => catalog.markUnavailable(model, unavailable.reason, unavailable.server),
      modelAnswered: (model) => catalog.markAnswered(model),
      refusal: (model) => catalog.refusal(model),
    });
    const first = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    const note = 'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.';
    assert.equal(first.error?.message, note);
    assert.equal(catalog.state.defaultModel, 'whisper-1', 'the chat still shows the refused model: nothing switched');
    assert.equal(catalog.state.models.find((m) => m.id === 'whisper-1')?.unavailable, '"whisper-1" does not support chat');

    const again = (await t.session.ask('Hi again?'))!;
    await t.session.whenIdle();
    assert.equal(again.model, 'whisper-1');
    assert.equal(again.status, 'error');
    assert.equal(again.error?.message, note, 'the same clear note');
    assert.deepEqual(again.error?.actions, ['chooseModel', 'useLocalExtractive'], 'its buttons do the switching');
    assert.equal(server.count('POST', '/v1/chat/completions'), 1, 'no request that would fail again');

    // Chosen again with "Use a Language Model…" (its refusal is forgotten), the model is asked again.
    refuse = false;
    refusals.clear(origin, 'whisper-1');
    const answered = (await t.session.ask('And now?'))!;
    await t.session.whenIdle();
    assert.equal(answered.status, 'done');
    assert.equal(server.count('POST', '/v1/chat/completions'), 2);
    assert.equal(catalog.refusal('whisper-1'), undefined);
  });

  it('follows a model chosen outside the chat in the shown conversation, also after a model was picked in it by hand', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk('From tiny-chat.'), chatChunk(undefined, { finish_reason: 'stop' })])),
    );
    const t = setup({ defaultModel: () => 'local-extractive' });
    t.session.setModel('local-extractive'); // the note's "Use local-extractive" button, or the select
    await t.session.follow('tiny-chat');
    assert.equal(t.session.current.options.model, 'tiny-chat');
    const options = t.posted.filter((m) => m.type === 'options');
    assert.deepEqual(options.at(-1), { type: 'options', conversationId: t.session.current.id, options: { model: 'tiny-chat' } });
    await t.session.ask('Hi?');
    await t.session.whenIdle();
    assert.equal(server.requests.find((r) => r.path === '/v1/chat/completions')?.json?.model, 'tiny-chat', 'the next question goes to it');
    t.session.newChat();
    assert.equal(t.session.current.options.model, 'tiny-chat', 'new chats start from it');
    await t.session.follow('local-extractive');
    assert.equal(t.session.current.options.model, 'local-extractive', 'Stop Using a Language Model: back to local-extractive');
  });

  it('tells the environment which model answered, so a mark that its server does not answer is dropped', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk('Back.'), chatChunk(undefined, { finish_reason: 'stop' })])),
    );
    const answered: string[] = [];
    const t = setup({ defaultModel: () => 'tiny-chat', modelAnswered: (model) => answered.push(model) });
    await t.session.ask('Hi?');
    await t.session.whenIdle();
    assert.deepEqual(answered, ['tiny-chat']);
  });

  it("in Local mode, says DocChat's local backend stopped (no URL to check) and offers to restart it; the retry waits for the restart", async () => {
    // A port nothing listens on: the connection is refused, as after the local backend was killed.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const stopped = new GatewayClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'k', rateLimits: false, transport: { maxRetries: 0 } });
    const stoppedDocuments = new DocumentsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: 'd',
      rateLimits: false,
      transport: { maxRetries: 0 },
    });
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([chatChunk('Back again.')])));
    const local = { documents: true, gateway: true };
    let restart!: () => void;
    let phase: 'stopped' | 'restarting' | 'back' = 'stopped';
    const restarted = new Promise<void>((resolve) => (restart = resolve)).then(() => void (phase = 'back'));
    const t = setup({
      clients: () =>
        phase === 'stopped'
          ? { gateway: stopped as Gateway, documents: stoppedDocuments, local }
          : phase === 'restarting'
            ? { gateway: stopped as Gateway, documents: stoppedDocuments, local, connecting: restarted }
            : { gateway: gateway as Gateway, documents: undefined, local },
    });
    // The generation (Local mode's own models) and the grounding search both end the same way.
    const first = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    assert.equal(first.error?.kind, 'network', JSON.stringify(first.error));
    assert.match(first.error!.message, /DocChat's local backend stopped/);
    assert.doesNotMatch(first.error!.message, /127\.0\.0\.1|URL|documents service/);
    assert.deepEqual(first.error!.actions, ['restartLocalBackend', 'showOutput']);
    t.session.setGrounding([{ id: 'vs_1', name: 'handbook' }]);
    const grounded = t.session.regenerate(first.id)!;
    await t.session.whenIdle();
    assert.match(grounded.error?.message ?? '', /DocChat's local backend stopped/, JSON.stringify(grounded.error));
    assert.deepEqual(grounded.error!.actions, ['restartLocalBackend', 'showOutput']);
    t.session.setGrounding([]);

    // Restart Backend and Retry: the answer says "Connecting…" until the backend is back, then answers.
    phase = 'restarting';
    const again = t.session.regenerate(grounded.id)!;
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(t.posted.some((m) => m.type === 'streamStatus' && m.phase === 'connecting' && m.requestId === again.requestId));
    assert.equal(server.count('POST', '/v1/chat/completions'), 0, 'nothing is asked before the backend is back');
    restart();
    await t.session.whenIdle();
    assert.equal(again.status, 'done', JSON.stringify(again.error));
    assert.equal(again.content, 'Back again.');
    await stopped.close();
    await stoppedDocuments.close();
  });

  it('in Local mode, a grounded question while the connection is in error offers Restart Backend and Retry, as an ungrounded one does', async () => {
    // The clients DocChat's chat has while the local backend could not start: no services, and why.
    const t = setup({
      clients: () => ({ gateway: undefined, documents: undefined, notConnected: couldNotConnectError('the backend exited with code 1') }),
    });
    const ungrounded = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    t.session.setGrounding([{ id: 'vs_1', name: 'handbook' }]);
    const grounded = (await t.session.ask('What does the handbook say?'))!;
    await t.session.whenIdle();
    for (const answer of [ungrounded, grounded]) {
      assert.equal(answer.error?.kind, 'not_connected', JSON.stringify(answer.error));
      assert.equal(answer.error!.message, 'DocChat could not connect: the backend exited with code 1');
      assert.deepEqual(answer.error!.actions, ['restartLocalBackend', 'showOutput']);
    }
  });

  it('a grounded question without the documents service, when the connection has not failed, offers Retry', async () => {
    const t = setup({
      clients: () => ({ gateway: gateway as Gateway, documents: undefined, notConnected: notConnectedError('noApiKey')! }),
    });
    t.session.setGrounding([{ id: 'vs_1', name: 'handbook' }]);
    const answer = (await t.session.ask('What does the handbook say?'))!;
    await t.session.whenIdle();
    assert.match(answer.error?.message ?? '', /Not connected to the documents service/, JSON.stringify(answer.error));
    assert.deepEqual(answer.error!.actions, ['retry', 'showOutput']);
  });

  it('grounds a first question by the default rule once the store list is known', async () => {
    let known = false;
    const t = setup({
      gateway: undefined,
      defaultStore: () => (known ? { id: 'vs_9', name: 'handbook' } : undefined),
      groundingKnown: async () => {
        known = true;
        t.session.applyDefaultGrounding();
      },
    });
    const answer = (await t.session.ask('Hi?'))!;
    await t.session.whenIdle();
    assert.equal(t.session.current.options.vectorStoreId, 'vs_9');
    assert.equal(answer.error?.kind, 'not_connected', 'a grounded question needs the documents service');
  });

  it('a question asked while DocChat connects shows "Connecting…", waits, then is asked', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([chatChunk('Hello.')])));
    let connect!: () => void;
    let connected = false;
    const connecting = new Promise<void>((resolve) => (connect = resolve)).then(() => void (connected = true));
    const t = setup({
      clients: () =>
        connected
          ? { gateway: gateway as Gateway, documents: undefined }
          : {
              gateway: undefined,
              documents: undefined,
              notConnected: { kind: 'not_connected', message: 'DocChat is still connecting.', actions: ['retry'] },
              connecting,
            },
      // Not grounded (the documents client is not in this test): the rule's outcome is "no store".
      defaultStore: () => undefined,
      groundingKnown: () => connecting,
    });
    const answer = (await t.session.ask('Hi?'))!;
    assert.ok(answer, 'the question is taken at once, not refused');
    assert.deepEqual(
      t.posted.filter((m) => m.type === 'turn').map((m) => (m as { messages: unknown[] }).messages.length),
      [2],
      'the question and its pending answer show at once',
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(
      t.posted.some((m) => m.type === 'streamStatus' && m.phase === 'connecting'),
      'the answer says it is connecting',
    );
    assert.equal(server.count('POST', '/v1/chat/completions'), 0, 'nothing is asked before the connection is made');
    connect();
    await t.session.whenIdle();
    assert.equal(answer.status, 'done', JSON.stringify(answer.error));
    assert.equal(answer.content, 'Hello.');
    assert.equal(t.terminals().length, 1);
  });

  it('Stop ends the wait for the connection without asking', async () => {
    const t = setup({
      clients: () => ({ gateway: undefined, documents: undefined, connecting: new Promise<void>(() => undefined) }),
    });
    const answer = (await t.session.ask('Hi?'))!;
    await new Promise((resolve) => setImmediate(resolve));
    t.session.stop();
    await t.session.whenIdle();
    assert.equal(answer.status, 'stopped');
    assert.equal(server.count('POST', '/v1/chat/completions'), 0);
  });

  it('grounds in several stores, rewrites a follow-up, and Search Again answers from the edited query', async () => {
    const documents = new DocumentsClient({ baseUrl: server.url, token: 'd', rateLimits: false, transport: { maxRetries: 0 } });
    for (const store of ['vs_1', 'vs_2']) {
      server.on('POST', `/v1/vector_stores/${store}/search`, (req, res) =>
        sendJson(res, 200, {
          data: [{ id: `r-${store}`, score: 0.9, content: `${store}: ${req.json.query}.`, file_id: `f-${store}`, filename: `${store}.md` }],
        }),
      );
    }
    server.on('POST', '/v1/chat/completions', (req, res) =>
      sendChunked(res, sseBody([chatChunk(req.json.max_completion_tokens === 64 ? 'invoice retention exceptions' : 'Answer [1].')])),
    );
    const t = setup({ clients: () => ({ gateway, documents }), rewriter: new QueryRewriter() });
    t.session.setGrounding([
      { id: 'vs_1', name: 'policies' },
      { id: 'vs_2', name: 'runbooks' },
    ]);
    const first = (await t.session.ask('How long are invoices kept?'))!;
    await t.session.whenIdle();
    const followUp = (await t.session.ask('Who approves exceptions?'))!;
    await t.session.whenIdle();
    const again = t.session.regenerate(followUp.id, 'exception approvals')!;
    await t.session.whenIdle();

    assert.equal(first.searchQuery, 'How long are invoices kept?');
    assert.equal(followUp.searchQuery, 'invoice retention exceptions', 'the model rewrote the follow-up');
    assert.equal(again.searchQuery, 'exception approvals');
    assert.equal(again.status, 'done');
    assert.deepEqual(
      t.session.current.messages.map((m) => m.id),
      [t.session.current.messages[0]!.id, first.id, t.session.current.messages[2]!.id, again.id],
      'Search Again replaces the last answer',
    );
    const searched = (store: string) =>
      server.requests.filter((r) => r.path === `/v1/vector_stores/${store}/search`).map((r) => r.json.query);
    const queries = ['How long are invoices kept?', 'invoice retention exceptions', 'exception approvals'];
    assert.deepEqual(searched('vs_1'), queries);
    assert.deepEqual(searched('vs_2'), queries, 'every store of the conversation is searched');
    assert.deepEqual(
      t.posted.flatMap((m) => (m.type === 'streamStart' ? [m.searchQuery] : [])),
      queries,
      'the webview hears what was searched for',
    );
    assert.deepEqual(again.sources?.map((s) => (s.kind === 'passage' ? s.filename : '')).sort(), ['vs_1.md', 'vs_2.md']);
  });

  it('records the stores each answer searched; after switching stores, a follow-up carries nothing of the old subject', async () => {
    const documents = new DocumentsClient({ baseUrl: server.url, token: 'd', rateLimits: false, transport: { maxRetries: 0 } });
    for (const store of ['vs_med', 'vs_sheets']) {
      server.on('POST', `/v1/vector_stores/${store}/search`, (req, res) =>
        sendJson(res, 200, {
          data: [{ id: `r-${store}`, score: 0.9, content: `${store}: ${req.json.query}.`, file_id: `f-${store}`, filename: `${store}.md` }],
        }),
      );
    }
    server.on('POST', '/v1/chat/completions', (_req, res) => sendChunked(res, sseBody([chatChunk('Answer [1].')])));
    // The rule only (no rewrite model): what is carried into a query is DocChat's own.
    const t = setup({ clients: () => ({ gateway, documents }) });
    t.session.setGrounding([{ id: 'vs_med', name: 'medical' }]);
    const first = (await t.session.ask("What is the patient's diagnosis in the medical report?"))!;
    await t.session.whenIdle();
    t.session.setGrounding([{ id: 'vs_sheets', name: 'sheets' }]);
    const followUp = (await t.session.ask('Which columns does it have?'))!;
    await t.session.whenIdle();

    assert.deepEqual(first.storeIds, ['vs_med']);
    assert.deepEqual(followUp.storeIds, ['vs_sheets']);
    const searched = server.requests.filter((r) => r.path === '/v1/vector_stores/vs_sheets/search').map((r) => String(r.json.query));
    assert.ok(searched.length > 0);
    assert.deepEqual(
      searched.filter((q) => /patient|diagnosis|medical/i.test(q)),
      [],
      `searched ${JSON.stringify(searched)}`,
    );
  });
});
