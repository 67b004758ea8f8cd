import * as assert from 'node:assert/strict';
import net from 'node:net';
import { GatewayClient } from '../../../../src/api/gateway/client';
import { AnswerQueue, type AnswerHost } from '../../../../src/features/chat/answerQueue';
import { FileNameCache } from '../../../../src/chatCore/grounding';
import type { AssistantMessage, Conversation, HostMessage, UserMessage } from '../../../../src/chatCore/protocol';
import { chatChunk, ScriptServer, sendChunked, sseBody } from '../../../support/servers/scriptServer';

// The host side of one answer: the conversation's answer message follows the stream (so a
// snapshot or a reload shows what arrived), and the webview gets start, deltas and exactly one
// terminal message for the request id.

describe('chat answer driver', () => {
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

  function setup(dependencies?: AnswerHost['dependencies'], more: Partial<AnswerHost> = {}) {
    const posted: HostMessage[] = [];
    const saved: string[] = [];
    const host: AnswerHost = {
      post: (m) => posted.push(m),
      save: (c) => saved.push(JSON.stringify(c)),
      dependencies: dependencies ?? (() => ({ gateway, documents: undefined, fileNames: new FileNameCache(), frameMs: 1 })),
      toolDependencies: () => ({ gateway: undefined }),
      addContext: () => undefined,
      projectCode: () => 'NA',
      maxSearchResults: () => 5,
      warn: () => undefined,
      ...more,
    };
    const question: UserMessage = { id: 'u1', role: 'user', content: 'Hi?', createdAt: 1 };
    const conversation: Conversation = {
      id: 'c1',
      title: 't',
      createdAt: 1,
      updatedAt: 1,
      options: { temperature: 0.4 },
      messages: [question],
      pendingContext: [],
    };
    return { driver: new AnswerQueue(host), posted, saved, question, conversation };
  }

  const terminals = (posted: HostMessage[]) => posted.filter((m) => m.type === 'streamDone' || m.type === 'streamError');

  it('keeps the answer message up to date and ends the request id with one streamDone', async () => {
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
    t.driver.start(t.conversation, t.question, 'alpha-5-mini');
    assert.equal(t.driver.busy, true);
    const answer = t.conversation.messages[1] as AssistantMessage;
    assert.ok(answer.status === 'pending' || answer.status === 'streaming', answer.status);
    const requestId = answer.requestId!;
    t.driver.start(t.conversation, t.question, 'alpha-5-mini');
    assert.equal(t.conversation.messages.length, 2, 'a second answer never starts while one runs');
    await t.driver.whenIdle();

    assert.equal(answer.content, 'Hello there.');
    assert.equal(answer.status, 'done');
    assert.equal(answer.requestId, undefined);
    assert.deepEqual(answer.usage, { promptTokens: 3, completionTokens: 2, totalTokens: 5 });
    assert.equal(t.driver.busy, false);
    assert.ok(t.posted.every((m) => !('requestId' in m) || m.requestId === requestId));
    assert.equal(t.posted.map((m) => (m.type === 'streamDelta' ? m.text : '')).join(''), 'Hello there.');
    assert.equal(terminals(t.posted).length, 1);
    assert.equal(t.posted.at(-1)!.type, 'streamDone');
    assert.equal(t.posted.find((m) => m.type === 'streamStart')?.type, 'streamStart');
    assert.equal(server.requests[0]!.json.temperature, 0.4, 'the conversation options are sent');
    assert.match(t.saved.at(-1)!, /"status":"done"/, 'saved once settled');
  });

  it('stops: the partial answer stays, marked stopped, with one streamDone(stopped)', async () => {
    server.on('POST', '/v1/chat/completions', (_req, res) =>
      sendChunked(res, sseBody([chatChunk('Partial')], { done: false }), { end: false }),
    );
    const t = setup();
    t.driver.start(t.conversation, t.question, 'alpha-5-mini');
    const answer = t.conversation.messages[1] as AssistantMessage;
    while (!t.posted.some((m) => m.type === 'streamDelta')) await new Promise((resolve) => setTimeout(resolve, 5));
    t.driver.stop('some-other-request');
    assert.equal(t.driver.busy, true, 'a stop for another request id is ignored');
    t.driver.stop(answer.requestId);
    await t.driver.whenIdle();
    assert.equal(answer.status, 'stopped');
    assert.equal(answer.content, 'Partial');
    assert.deepEqual(terminals(t.posted), [
      { type: 'streamDone', requestId: (t.posted[0] as { requestId: string }).requestId, stopped: true },
    ]);
  });

  it('records a failure on the message and posts one streamError', async () => {
    const t = setup(() => ({
      gateway: undefined,
      documents: undefined,
      fileNames: new FileNameCache(),
      notConnected: { kind: 'not_connected', message: 'No gateway.', actions: ['retry'] },
    }));
    t.driver.start(t.conversation, t.question, 'o3-mini');
    await t.driver.whenIdle();
    const answer = t.conversation.messages[1] as AssistantMessage;
    assert.equal(answer.status, 'error');
    assert.equal(answer.legacy, true);
    assert.equal(answer.error?.message, 'No gateway.');
    assert.equal(terminals(t.posted).length, 1);
    assert.equal(t.driver.busy, false, 'an answer that fails at once does not leave the driver busy');
  });

  it('an answer that cannot reach its server tells the host once, so Local mode checks its backend', async () => {
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
    const t = setup(() => ({ gateway: unreachableGateway, documents: undefined, fileNames: new FileNameCache(), frameMs: 1 }), {
      unreachable: () => unreachable++,
    });
    t.driver.start(t.conversation, t.question, 'alpha-5-mini');
    await t.driver.whenIdle();
    await unreachableGateway.close();
    const answer = t.conversation.messages[1] as AssistantMessage;
    assert.equal(answer.error?.kind, 'network', JSON.stringify(answer.error));
    assert.deepEqual(answer.error?.actions, ['retry', 'showOutput']);
    assert.equal(unreachable, 1);

    // Any other failure is not the backend's absence.
    const other = setup(
      () => ({
        gateway: undefined,
        documents: undefined,
        fileNames: new FileNameCache(),
        notConnected: { kind: 'not_connected', message: 'No gateway.', actions: ['retry'] },
      }),
      { unreachable: () => unreachable++ },
    );
    other.driver.start(other.conversation, other.question, 'alpha-5-mini');
    await other.driver.whenIdle();
    assert.equal(unreachable, 1);
  });
});
