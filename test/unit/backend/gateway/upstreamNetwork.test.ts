import assert from 'node:assert/strict';
import { ProxyServer } from '../../../support/servers/proxyServer';
import { parseSse, startTestBackend, type TestBackend } from '../helpers';
import { startFakeUpstream, type FakeUpstream } from '../fakeUpstream';

/** The backend's own calls (upstream chat, embeddings, model list, web crawl) follow DocChat's network settings. */
describe('backend: upstream calls through the network settings', () => {
  let fake: FakeUpstream;
  let proxy: ProxyServer;
  let t: TestBackend | undefined;
  before(async () => {
    fake = await startFakeUpstream();
    proxy = await ProxyServer.start();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    proxy.log.length = 0;
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  const named = () => fake.url.replace('127.0.0.1', 'llm.corp.test');

  it('streams an upstream chat and lists models through the proxy (the proxy logs each call)', async () => {
    t = await startTestBackend({ rateLimits: false, upstream: { url: named(), key: 'up-secret' }, network: { proxy: proxy.url, env: {} } });
    const models = await t.gw('GET', '/v1/completions/models');
    assert.ok(
      models.json.data.some((m: { id: string }) => m.id === 'llama3'),
      models.text,
    );
    const reply = await t.gw('POST', '/v1/chat/completions', {
      model: 'llama3',
      messages: [{ role: 'user', content: 'via proxy' }],
      stream: true,
    });
    const chunks = parseSse(reply.text)
      .slice(0, -1)
      .map((e) => JSON.parse(e.data));
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'upstream says: via proxy');
    assert.ok(proxy.log.length >= 1, 'one kept-alive tunnel carries both calls');
    assert.ok(
      proxy.log.every((line) => line.includes(`llm.corp.test:${new URL(fake.url).port}`)),
      proxy.log.join('\n'),
    );
  });

  it('takes HTTPS_PROXY/HTTP_PROXY from its environment, and NO_PROXY exempts the upstream', async () => {
    t = await startTestBackend({ rateLimits: false, upstream: { url: named() }, network: { env: { HTTP_PROXY: proxy.url } } });
    const viaEnv = await t.gw('GET', '/v1/completions/models');
    assert.equal(viaEnv.status, 200, viaEnv.text);
    assert.ok(proxy.log.length >= 1);
    await t.close();
    proxy.log.length = 0;
    t = await startTestBackend({
      rateLimits: false,
      upstream: { url: named() },
      network: { env: { HTTP_PROXY: proxy.url, NO_PROXY: '.corp.test' } },
    });
    // Direct means this machine's resolver, which does not know *.test: the upstream is unreachable, the proxy saw nothing.
    const direct = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(direct.status, 502, direct.text);
    assert.deepEqual(proxy.log, []);
  });

  it('never sends a loopback upstream through the proxy', async () => {
    t = await startTestBackend({ rateLimits: false, upstream: { url: fake.url }, network: { proxy: proxy.url, env: {} } });
    const reply = await t.gw('POST', '/v1/chat/completions', { model: 'llama3', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(reply.json.choices[0].message.content, 'upstream says: hi');
    assert.deepEqual(proxy.log, []);
  });
});
