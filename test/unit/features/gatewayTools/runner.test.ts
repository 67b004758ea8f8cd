import * as assert from 'node:assert/strict';
import { GatewayClient } from '../../../../src/api/gateway/client';
import { DocChatError } from '../../../../src/api/http/errors';
import { describeToolError, runToolCommand, type ResearchProgress, type ToolOutcome } from '../../../../src/features/gatewayTools';
import { WatchedClock } from '../../api/helpers';
import { useToolsBackend } from '../backend';
import { startResearchServer, type ResearchServer } from '../../../support/servers/researchServer';

const POLL = { pollInitialDelayMs: 1, pollMaxDelayMs: 5 };

function answerOf(outcome: ToolOutcome) {
  assert.equal(outcome.status, 'done', `expected an answer, got ${outcome.status}: ${'markdown' in outcome ? outcome.markdown : ''}`);
  return (outcome as Extract<ToolOutcome, { status: 'done' }>).answer;
}

function markdownOf(outcome: ToolOutcome, status: 'failed' | 'cancelled'): string {
  assert.equal(outcome.status, status);
  return (outcome as Extract<ToolOutcome, { status: 'failed' | 'cancelled' }>).markdown;
}

describe('gateway tools against a research test server', () => {
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

  it('/research reports each progress step, then answers with the result and its sources', async () => {
    const progress: ResearchProgress[] = [];
    const outcome = await runToolCommand(
      gateway,
      { name: 'research', topic: 'solar power' },
      { ...POLL, onProgress: (p) => progress.push(p) },
    );
    const answer = answerOf(outcome);
    assert.deepEqual(
      progress.map((p) => [p.status, p.fraction]),
      [
        ['in_progress', undefined],
        ['in_progress', 0.25],
        ['in_progress', 0.5],
        ['in_progress', 0.75],
        ['completed', 1],
      ],
    );
    assert.equal(progress[2]!.text, 'Researching… 50% — Reading 4 sources');
    assert.match(answer.markdown, /^## Findings on solar power\n\nSolar output grew in 2025 \[1\]\./);
    assert.match(answer.markdown, /\*\*Sources\*\*\n\n1\. \[Solar power \\\[overview\\\]\]\(<https:\/\/example\.com\/solar>\)/);
    // A source that is not a web address is listed but never becomes a link.
    assert.match(answer.markdown, /2\. Not a web link \(`javascript:alert\(1\)`\)/);
    assert.doesNotMatch(answer.markdown, /\]\(<?javascript:/);
    assert.deepEqual(
      answer.sources.map((s) => s.number),
      [1, 2],
    );
    assert.equal(outcome.status === 'done' && outcome.researchId, 'research_1');
    assert.equal(server.tasks.get('research_1')!.polls, 4);
  });

  it('/research that the service fails shows its error', async () => {
    const outcome = await runToolCommand(gateway, { name: 'research', topic: 'fail please' }, POLL);
    assert.match(markdownOf(outcome, 'failed'), /^The research on “fail please” failed: The search provider is down\./);
  });

  it('/research that the service cancels is reported as cancelled', async () => {
    const outcome = await runToolCommand(gateway, { name: 'research', topic: 'cancel me' }, POLL);
    assert.equal(markdownOf(outcome, 'cancelled'), 'The research on “cancel me” was cancelled: Stopped by an administrator');
  });

  it('/research keeps polling through an unknown status', async () => {
    const statuses: string[] = [];
    const outcome = await runToolCommand(
      gateway,
      { name: 'research', topic: 'queued topic' },
      { ...POLL, onProgress: (p) => statuses.push(p.status) },
    );
    answerOf(outcome);
    assert.deepEqual(statuses, ['in_progress', 'queued', 'completed']);
  });

  it('/research stops polling when its signal aborts', async () => {
    const abort = new AbortController();
    let polls = 0;
    const clock = new WatchedClock();
    const watched = new GatewayClient({
      baseUrl: server.url,
      token: server.apiKey,
      rateLimits: false,
      transport: { maxRetries: 0, clock },
    });
    const outcome = await runToolCommand(
      watched,
      { name: 'research', topic: 'forever running' },
      {
        ...POLL,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.fraction !== undefined && ++polls === 3) abort.abort();
        },
      },
    );
    assert.equal(markdownOf(outcome, 'cancelled'), 'Web research was cancelled.');
    const task = [...server.tasks.values()].find((t) => t.query === 'forever running')!;
    assert.equal(task.polls, 3);
    // Nothing polls in the background after the outcome: no poll is waiting to wake.
    assert.equal(clock.pending, 0, 'a status poll is still scheduled');
    await watched.close();
  });

  it('/research aborted before it starts sends nothing', async () => {
    const before = server.requests.length;
    const outcome = await runToolCommand(gateway, { name: 'research', topic: 'never' }, { signal: AbortSignal.abort() });
    assert.equal(outcome.status, 'cancelled');
    assert.equal(server.requests.length, before);
  });

  it('/web lists results with escaped titles, snippets and only web links', async () => {
    const answer = answerOf(await runToolCommand(gateway, { name: 'web', query: 'solar *panels*' }, { maxResults: 3 }));
    assert.match(answer.markdown, /^Web results for “solar \\\*panels\\\*”:/);
    assert.match(
      answer.markdown,
      /\*\*1\. \[About solar \\\*panels\\\*\]\(<https:\/\/example\.com\/about>\)\*\*\n\n> Everything about solar \\\*panels\\\*\./,
    );
    assert.match(answer.markdown, /\*\*2\. Click \\\*here\\\* \\\[now\\\] \(`javascript:alert\(1\)`\)\*\*/);
    assert.doesNotMatch(answer.markdown, /\]\(<?javascript:/);
    // Long contents are cut to a snippet.
    assert.match(answer.markdown, /> (x ){100,}.*…/);
    assert.ok(answer.markdown.length < 2500, `answer unexpectedly long: ${answer.markdown.length}`);
    assert.deepEqual(
      answer.sources.map((s) => s.url),
      ['https://example.com/about', 'javascript:alert(1)', 'https://example.org/third'],
    );
  });

  it('a wrong API key is a clear failure, not a crash', async () => {
    const wrong = new GatewayClient({ baseUrl: server.url, token: 'wrong', rateLimits: false, transport: { maxRetries: 0 } });
    try {
      const outcome = await runToolCommand(wrong, { name: 'web', query: 'x' });
      assert.match(markdownOf(outcome, 'failed'), /^Web search failed: the gateway did not accept the API key\./);
    } finally {
      await wrong.close();
    }
  });
});

describe('gateway tools against the embedded backend (no upstream)', () => {
  const tools = useToolsBackend();

  it('/research in Local mode says in one sentence that it needs the company gateway', async () => {
    const progress: ResearchProgress[] = [];
    const outcome = await runToolCommand(
      tools.gateway,
      { name: 'research', topic: 'solar power' },
      { onProgress: (p) => progress.push(p) },
    );
    const message = markdownOf(outcome, 'failed');
    assert.equal(message, "Web research needs your company's gateway; DocChat's Local mode has none.");
    assert.equal((outcome as { error?: { status?: number } }).error?.status, 501);
    assert.deepEqual(progress, []);
  });

  it('/web in Local mode says in one sentence that it needs the company gateway, with no API path', async () => {
    const outcome = await runToolCommand(tools.gateway, { name: 'web', query: 'solar' });
    const message = markdownOf(outcome, 'failed');
    assert.equal(message, "Web search needs your company's gateway; DocChat's Local mode has none.");
    assert.doesNotMatch(message, /\/tools\/|not available on this gateway/);
  });

  it('/crawl returns the fetched pages as context and reports the ones that failed', async () => {
    const outcome = await runToolCommand(tools.gateway, {
      name: 'crawl',
      urls: [`${tools.pages.url}/pages/release`, `${tools.pages.url}/missing`],
    });
    const answer = answerOf(outcome);
    assert.equal(answer.pages?.length, 1);
    assert.equal(answer.pages![0]!.title, 'Page release');
    assert.match(answer.pages![0]!.content, /explains the release process/);
    assert.match(answer.markdown, /^Crawled 1 of 2 pages; the text is added to this conversation as context\./);
    assert.match(answer.markdown, /missing>\): could not be fetched \(HTTP 40\d/);
    assert.deepEqual(
      answer.sources.map((s) => s.url),
      [`${tools.pages.url}/pages/release`],
    );
  });
});

describe('describeToolError: a tool that is not offered, per mode', () => {
  const localMode = () =>
    new DocChatError('server', "Web search needs your company's gateway; DocChat's Local mode has none.", {
      status: 501,
      type: 'not_implemented',
      code: 'local_mode',
    });
  // What the embedded backend says when the company gateway it forwards to lacks the tool.
  const gatewayLacks = (what: string, path: string) =>
    new DocChatError('server', `${what} is not available: the upstream server https://gw.example/v1 does not provide ${path}.`, {
      status: 501,
      type: 'not_implemented',
      code: 'not_implemented',
    });

  it('Local mode: one sentence saying the company gateway is needed', () => {
    assert.equal(describeToolError('web', localMode()), "Web search needs your company's gateway; DocChat's Local mode has none.");
    assert.equal(describeToolError('research', localMode()), "Web research needs your company's gateway; DocChat's Local mode has none.");
  });

  it('a gateway without the tool: one sentence naming the endpoint it lacks, "not available" said once', () => {
    const cases = [
      ['web', 'Web search', '/tools/web/search', 'Web search is not available on this gateway: it does not provide /v1/tools/web/search.'],
      ['crawl', 'Crawling', '/tools/web/crawl', 'Crawling is not available on this gateway: it does not provide /v1/tools/web/crawl.'],
      [
        'research',
        'Web research',
        '/tools/web/research',
        'Web research is not available on this gateway: it does not provide /v1/tools/web/research.',
      ],
    ] as const;
    for (const [command, what, path, expected] of cases) {
      const message = describeToolError(command, gatewayLacks(what, path));
      assert.equal(message, expected);
      assert.equal(message.match(/not available/g)?.length, 1, message);
      assert.equal(message.match(/[.!?](\s|$)/g)?.length, 1, `one sentence: ${message}`);
    }
  });
});
