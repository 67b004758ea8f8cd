import * as assert from 'node:assert/strict';
import { WatchedClock } from '../../api/helpers';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { AnswerGateway } from '../../../../src/features/chat/answerGenerator';
import { ChatSession } from '../../../../src/features/chat/chatSession';
import { ConversationStore } from '../../../../src/features/chat/conversationStore';
import type { AssistantMessage, HostMessage, WebPageSource } from '../../../../src/chatCore/protocol';
import type { ToolAnswerDependencies } from '../../../../src/features/chat/toolAnswer';
import type { ToolGateway } from '../../../../src/features/gatewayTools';
import { MemoryState, testEnvironment } from './fixtures';
import { useToolsBackend } from '../backend';
import { startResearchServer, type ResearchServer } from '../../../support/servers/researchServer';

// The chat's gateway tools on the host side: `/web`, `/crawl` and `/research` typed in the composer
// become an answer that reports progress (research polls), ends its request id with exactly one
// streamDone or streamError, can be stopped, and shows a gateway that lacks the tool (the
// embedded backend without an upstream answers 501) as a clear message.

const POLL = { pollInitialDelayMs: 1, pollMaxDelayMs: 5 };

function setup(tools: () => ToolAnswerDependencies) {
  const posted: HostMessage[] = [];
  const { gateway, notConnected, ...polling } = tools();
  const session = new ChatSession(
    new ConversationStore(new MemoryState()),
    testEnvironment({
      clients: () => ({
        gateway: gateway as (AnswerGateway & ToolGateway) | undefined,
        documents: undefined,
        ...(notConnected ? { notConnected } : {}),
      }),
    }),
    { toolPolling: polling },
  );
  session.onMessage((m) => posted.push(m));
  /** Sends `text` as the user would and returns the answer message it starts. */
  const ask = async (text: string): Promise<AssistantMessage> => {
    const answer = await session.ask(text);
    assert.ok(answer, 'the answer started');
    return answer;
  };
  const terminals = () => posted.filter((m) => m.type === 'streamDone' || m.type === 'streamError');
  return { session, posted, ask, terminals };
}

function requestIds(posted: HostMessage[]): Set<string> {
  return new Set(posted.flatMap((m) => ('requestId' in m ? [m.requestId] : [])));
}

describe('chat gateway tools: research test server', () => {
  let server: ResearchServer;
  let gateway: GatewayClient;

  before(async () => {
    server = await startResearchServer();
    gateway = new GatewayClient({ baseUrl: server.url, token: server.apiKey, rateLimits: false, transport: { maxRetries: 0 } });
  });
  after(async () => {
    await gateway.close();
    await server.close();
  });

  it('/research shows its progress while polling, then answers with the result and its web sources', async () => {
    const t = setup(() => ({ gateway, ...POLL }));
    const answer = await t.ask('/research solar power');
    assert.equal(answer.tool, 'research');
    assert.equal(answer.model, undefined, 'no model answers a tool command');
    await t.session.whenIdle();

    const progress = t.posted.flatMap((m) => (m.type === 'streamProgress' ? [m.progress] : []));
    assert.deepEqual(
      progress.map((p) => p.fraction),
      [undefined, 0.25, 0.5, 0.75, 1],
    );
    assert.equal(progress[2]!.text, 'Researching… 50% — Reading 4 sources');
    assert.deepEqual(
      t.posted.filter((m) => m.type !== 'turn').map((m) => m.type),
      [
        'streamProgress',
        'streamProgress',
        'streamProgress',
        'streamProgress',
        'streamProgress',
        'streamStart',
        'streamDelta',
        'streamDone',
      ],
    );
    assert.equal(requestIds(t.posted).size, 1, 'every message carries the one request id');
    const start = t.posted.find((m) => m.type === 'streamStart');
    assert.deepEqual(start?.type === 'streamStart' && start.sources, [
      { kind: 'web', url: 'https://example.com/solar', title: 'Solar power [overview]', content: '', number: 1 },
      { kind: 'web', url: 'javascript:alert(1)', title: 'Not a web link', content: '', number: 2 },
    ]);
    assert.deepEqual(t.terminals(), [{ type: 'streamDone', requestId: start!.requestId, stopped: false }]);

    assert.equal(answer.status, 'done');
    assert.equal(answer.content, '## Findings on solar power\n\nSolar output grew in 2025 [1].');
    assert.equal(answer.sources?.length, 2);
    assert.equal(answer.progress, undefined, 'the progress goes once the answer is there');
    assert.equal(answer.requestId, undefined);
    assert.equal(t.session.busy, false);
  });

  it('Stop cancels a running /research: polling ends, the answer is marked stopped, one streamDone(stopped)', async () => {
    const clock = new WatchedClock();
    const watched = new GatewayClient({
      baseUrl: server.url,
      token: server.apiKey,
      rateLimits: false,
      transport: { maxRetries: 0, clock },
    });
    const t = setup(() => ({ gateway: watched, pollInitialDelayMs: 5, pollMaxDelayMs: 5 }));
    const answer = await t.ask('/research run forever');
    while (t.posted.filter((m) => m.type === 'streamProgress').length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const requestId = answer.requestId!;
    t.session.stop('another-request');
    assert.equal(t.session.busy, true, 'a stop for another request id is ignored');
    t.session.stop(requestId);
    await t.session.whenIdle();
    const task = [...server.tasks.values()].find((k) => k.query === 'run forever')!;
    const polls = task.polls;

    assert.equal(answer.status, 'stopped');
    assert.match(answer.content, new RegExp(`Stopped following research task \`${task.id}\``));
    assert.deepEqual(t.terminals(), [{ type: 'streamDone', requestId, stopped: true }]);
    assert.equal(clock.pending, 0, 'no status poll is scheduled after the stop');
    assert.equal(task.polls, polls, 'no more status polls after the stop');
    await watched.close();
  });

  it('a research task the service fails or cancels ends the answer with what the service said', async () => {
    const t = setup(() => ({ gateway, ...POLL }));
    const failed = await t.ask('/research fail please');
    await t.session.whenIdle();
    assert.equal(failed.status, 'error');
    assert.equal(failed.error?.kind, 'server');
    assert.match(failed.error!.message, /^The research on “fail please” failed: The search provider is down./);
    assert.deepEqual(failed.error?.actions, ['retry', 'showOutput']);

    const cancelled = await t.ask('/research cancel me');
    await t.session.whenIdle();
    assert.equal(cancelled.status, 'done');
    assert.equal(cancelled.content, 'The research on “cancel me” was cancelled: Stopped by an administrator');
    assert.equal(t.terminals().length, 2, 'one terminal message per request');
  });

  it('/web answers with the results; a link that is not a web address stays text', async () => {
    const t = setup(() => ({ gateway }));
    const answer = await t.ask('/web solar panels');
    await t.session.whenIdle();
    assert.equal(answer.tool, 'web');
    assert.equal(answer.status, 'done');
    assert.match(answer.content, /^Web results for “solar panels”:/);
    assert.match(answer.content, /\[About solar panels\]\(<https:\/\/example\.com\/about>\)/);
    assert.doesNotMatch(answer.content, /\]\(<?javascript:/);
    assert.doesNotMatch(answer.content, /\*\*Sources\*\*/, 'the sources are listed under the answer, not in its text');
    assert.deepEqual(
      answer.sources?.map((s) => (s.kind === 'web' ? s.url : s.kind)),
      ['https://example.com/about', 'javascript:alert(1)', 'https://example.org/third'],
    );
  });

  it('a command without its argument answers with its usage, without calling the gateway', async () => {
    const t = setup(() => ({ gateway }));
    const before = server.requests.length;
    const answer = await t.ask('/crawl');
    await t.session.whenIdle();
    assert.equal(answer.status, 'error');
    assert.deepEqual(answer.error, { kind: 'invalid_request', message: 'Usage: /crawl <url…>', actions: [] });
    assert.equal(t.terminals().length, 1);
    assert.equal(server.requests.length, before);
  });
});

describe('chat gateway tools: embedded backend without an upstream', () => {
  const tools = useToolsBackend();

  for (const command of ['/research solar power', '/web solar power']) {
    it(`${command.split(' ')[0]}: Local mode's 501 becomes one sentence saying the company gateway is needed, with Open Settings`, async () => {
      const t = setup(() => ({ gateway: tools.gateway, ...POLL }));
      const answer = await t.ask(command);
      await t.session.whenIdle();
      assert.equal(answer.status, 'error');
      assert.equal(answer.error?.kind, 'not_available');
      assert.match(answer.error!.message, /^Web (research|search) needs your company's gateway; DocChat's Local mode has none\.$/);
      assert.deepEqual(answer.error?.actions, ['openGatewaySettings'], 'no Retry (it would fail the same way): the setting it names');
      assert.deepEqual(
        t.terminals().map((m) => m.type),
        ['streamError'],
      );
    });
  }

  it('/crawl adds the fetched pages to the conversation as context and lists them as sources', async () => {
    const t = setup(() => ({ gateway: tools.gateway }));
    const url = `${tools.pages.url}/pages/release`;
    const answer = await t.ask(`/crawl ${url} ${tools.pages.url}/missing`);
    await t.session.whenIdle();
    assert.equal(answer.status, 'done');
    assert.match(answer.content, /^Crawled 1 of 2 pages; the text is added to this conversation as context\./);
    const added = t.session.current.pendingContext;
    assert.deepEqual(
      added.map((p) => [p.kind, p.kind === 'web' && p.url, p.kind === 'web' && p.title]),
      [['web', url, 'Page release']],
    );
    assert.match(added[0]!.content, /explains the release process/);
    assert.ok(
      t.posted.some((m) => m.type === 'state' && m.conversation.pendingContext.length === 1),
      'the webview hears of the new context',
    );
    assert.deepEqual(
      answer.sources?.map((s) => s.number),
      [1],
    );
  });

  it('without a gateway a tool answers with the not-connected error', async () => {
    const t = setup(() => ({ gateway: undefined, notConnected: { kind: 'not_connected', message: 'No gateway.', actions: ['retry'] } }));
    const answer = await t.ask('/web anything');
    await t.session.whenIdle();
    assert.equal(answer.error?.message, 'No gateway.');
    assert.equal(t.terminals().length, 1);
  });
});

describe('chat gateway tools: persistence', () => {
  it('keeps tool answers, web sources and crawled context across a reload', async () => {
    const values = new Map<string, unknown>();
    const state = {
      get: <T>(key: string) => values.get(key) as T | undefined,
      update: async (key: string, value: unknown) => void values.set(key, value),
    };
    const store = new ConversationStore(state);
    const c = store.create();
    const page: WebPageSource = { kind: 'web', url: 'https://example.com/a', title: 'A', content: 'Text of A.' };
    c.messages.push({ id: 'u', role: 'user', content: '/research a', createdAt: 1 });
    c.messages.push({
      id: 'a',
      role: 'assistant',
      content: 'A is [1].',
      createdAt: 2,
      status: 'done',
      tool: 'research',
      sources: [{ ...page, content: '', number: 1 }],
    });
    c.pendingContext.push(page);
    await store.save();
    assert.deepEqual(new ConversationStore(state).active(), c);
  });
});
