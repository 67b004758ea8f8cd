/** Contract tests: the gateway client of src/api against the real embedded backend. */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, NotFoundError } from '../../../../src/api/http/errors';
import { GatewayClient } from '../../../../src/api/gateway/client';
import type { ChatStreamPart } from '../../../../src/api/gateway/schemas';
import { API_KEY, startTestBackend, type TestBackend } from '../helpers';
import { startFakeUpstream, type FakeUpstream } from '../fakeUpstream';

const MESSAGES = [
  { role: 'system', content: '[1] trains.md\nThe night train leaves at 22:10 from platform 9. Tickets are sold online.' },
  { role: 'user', content: 'When does the night train leave?' },
];

describe('contract: GatewayClient <-> embedded backend', () => {
  let t: TestBackend;
  let client: GatewayClient;
  const logs: string[] = [];
  before(async () => {
    t = await startTestBackend();
    client = new GatewayClient({
      baseUrl: t.url,
      token: API_KEY,
      projectCode: 'P-1',
      transport: { maxRetries: 0 },
      log: (level, m) => logs.push(`${level} ${m}`),
    });
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  it('lists the served models', async () => {
    assert.deepEqual(
      (await client.listCompletionModels()).map((m) => m.id),
      ['local-extractive'],
    );
    assert.deepEqual(
      (await client.listEmbeddingModels()).map((m) => m.id),
      ['local-hashing-embed'],
    );
  });

  it('chat completion, whole and streamed, give the same grounded answer', async () => {
    const whole = await client.chatCompletion({ model: 'local-extractive', messages: MESSAGES });
    const text = whole.choices[0]!.message!.content!;
    assert.match(text, /"The night train leaves at 22:10 from platform 9\." \[1\]/);
    const parts: ChatStreamPart[] = [];
    for await (const part of client.streamChatCompletion({ model: 'local-extractive', messages: MESSAGES })) parts.push(part);
    assert.equal(parts.map((p) => p.content).join(''), text);
    assert.ok(parts.some((p) => p.finishReason === 'stop'));
    assert.ok(parts.some((p) => (p.usage?.total_tokens ?? 0) > 0));
  });

  it('maps an unknown model to NotFoundError without falling back to the other path', async () => {
    await assert.rejects(
      client.chatCompletion({ model: 'alpha-5-1', messages: MESSAGES }),
      (e: unknown) => e instanceof NotFoundError && /not served/.test(e.message),
    );
  });

  it('deprecated inference works, streamed too, and warns once', async () => {
    const prompt = `${MESSAGES[0]!.content}\n\nQuestion: When does the night train leave?`;
    const reply = await client.inference('local-extractive', { prompt });
    assert.match(reply.response, /22:10/);
    let streamed = '';
    for await (const part of client.streamInference('local-extractive', { prompt })) streamed += part.content;
    assert.equal(streamed, reply.response);
    assert.equal(logs.filter((l) => l.includes('deprecated')).length, 1);
  });

  it('embeddings, skillshare, crawl validation and 501 tools', async () => {
    const embedded = await client.embed({ model: 'local-hashing-embed', input: ['a', 'b'] });
    assert.equal(embedded.data.length, 2);
    const people = await client.skillshare('TypeScript VS Code extensions');
    assert.equal(people[0]!.name, 'Jonas Lindqvist');
    assert.ok(people[0]!.top_match_terms.length > 0);
    await assert.rejects(client.webSearch({ query: 'x' }), (e: unknown) => (e as { status?: number }).status === 501);
    await assert.rejects(client.startResearch('x'), (e: unknown) => (e as { status?: number }).status === 501);
    await assert.rejects(client.researchStatus('research_1'), (e: unknown) => (e as { status?: number }).status === 501);
  });

  it('web crawl returns pages as markdown', async () => {
    const site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>Lab</title><h1>Lab notes</h1><p>Keep the <em>door</em> closed.</p>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const crawl = await client.webCrawl([`http://127.0.0.1:${(site.address() as AddressInfo).port}/`]);
      assert.equal(crawl.results[0]!.title, 'Lab');
      assert.match(crawl.results[0]!.content, /# Lab notes\n\nKeep the _door_ closed\./);
    } finally {
      await new Promise((resolve) => site.close(resolve));
    }
  });

  it('maps a wrong key to AuthError', async () => {
    const wrong = new GatewayClient({ baseUrl: t.url, token: 'nope', transport: { maxRetries: 0 } });
    await assert.rejects(wrong.listCompletionModels(), AuthError);
    await wrong.close();
  });

  it('streams an upstream model through the backend', async () => {
    const fake: FakeUpstream = await startFakeUpstream();
    const proxied = await startTestBackend({ upstream: { url: fake.url } });
    const upstreamClient = new GatewayClient({ baseUrl: proxied.url, token: API_KEY, transport: { maxRetries: 0 } });
    try {
      assert.deepEqual(
        (await upstreamClient.listCompletionModels()).map((m) => m.id),
        ['local-extractive', 'llama3'],
      );
      let text = '';
      for await (const part of upstreamClient.streamChatCompletion({ model: 'llama3', messages: [{ role: 'user', content: 'ping' }] })) {
        text += part.content;
      }
      assert.equal(text, 'upstream says: ping');
    } finally {
      await upstreamClient.close();
      await proxied.close();
      await fake.close();
    }
  });
});
