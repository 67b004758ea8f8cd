import * as assert from 'node:assert/strict';
import { commandTitle, captureFailures, launchVSCode, type VSCodeSession } from '../support/harness';
import { ProxyServer } from '../support/servers/proxyServer';
import { listPage, ScriptServer, sendJson } from '../support/servers/scriptServer';
import { TEST_HOST, TestCa } from '../support/servers/testCa';

// Corporate networks in a real VS Code: Remote mode through a proxy that demands credentials, to a
// TLS server whose certificate a company CA signed (trusted through docchat.network.caFiles); and
// Local mode with HTTP_PROXY / HTTPS_PROXY in the editor's environment, which must not send any of
// its (loopback) requests to the proxy.

const TOKEN = 'network-e2e-token';
const PROXY_PASSWORD = 'pr0xy-s3cret';
const store = {
  id: 'vs_handbook',
  object: 'vector_store',
  name: 'handbook',
  created_at: 1_700_000_000,
  expires_at: null,
  metadata: {},
  file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
};

describe('Network: proxy and company CA (e2e)', function () {
  let ca: TestCa;
  let server: ScriptServer;
  let proxy: ProxyServer;
  let session: VSCodeSession | undefined;

  before(async () => {
    ca = TestCa.create();
    server = await ScriptServer.start({ tls: ca.leaf('docs') });
    server.on('GET', '/v1/vector_stores', (r, res) => sendJson(res, 200, listPage([store], r.query)));
    server.on('GET', /^\/v1\/vector_stores\/[^/]+$/, (_r, res) => sendJson(res, 200, store));
    server.on('GET', /^\/v1\/vector_stores\/[^/]+\/files$/, (r, res) =>
      sendJson(res, 200, { ...listPage([], r.query), vector_store_id: store.id }),
    );
    server.on('GET', '/v1/files', (r, res) => sendJson(res, 200, listPage([], r.query)));
    proxy = await ProxyServer.start({ requireAuth: `Basic ${Buffer.from(`alice:${PROXY_PASSWORD}`).toString('base64')}` });
  });

  captureFailures(() => session!);

  after(async () => {
    await session?.close();
    await proxy?.close();
    await server?.close();
    ca?.dispose();
  });

  it('Remote mode lists stores through an authenticating proxy, trusting the company CA from docchat.network.caFiles', async () => {
    session = await launchVSCode({
      name: 'network remote',
      settings: {
        'docchat.documents.url': `https://${TEST_HOST}:${server.port}`,
        'docchat.network.proxy': `http://alice:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`,
        'docchat.network.caFiles': [ca.certFile],
      },
    });
    await session.openView();
    await session.runCommand(commandTitle('docchat.setDocumentsToken'));
    await session.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Set Documents Token' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await session.answerQuickInput(TOKEN);
    await session
      .viewPane('Vector Stores')
      .locator('.monaco-list-row', { hasText: 'handbook' })
      .first()
      .waitFor({ state: 'visible', timeout: 90_000 });
    await session.screenshot('stores through the proxy');
    assert.ok(proxy.log.includes(`CONNECT ${TEST_HOST}:${server.port} 200`), `the proxy's log shows the tunnel:\n${proxy.log.join('\n')}`);
    assert.ok(server.requests.some((r) => r.path === '/v1/vector_stores' && r.headers.authorization === `Bearer ${TOKEN}`));
    assert.ok(!session.outputChannel().includes(PROXY_PASSWORD), 'the proxy password never reaches the log');
    await session.close();
    session = undefined;
  });

  it('with the CA from NODE_EXTRA_CA_CERTS, a proxy demanding credentials shows the 407 sentence, and works once http.proxyAuthorization is set', async () => {
    proxy.log.length = 0;
    const settings = { 'docchat.documents.url': `https://${TEST_HOST}:${server.port}`, 'docchat.network.proxy': proxy.url };
    session = await launchVSCode({ name: 'network 407', settings, env: { NODE_EXTRA_CA_CERTS: ca.certFile } });
    await session.openView();
    await session.runCommand(commandTitle('docchat.setDocumentsToken'));
    await session.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Set Documents Token' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await session.answerQuickInput(TOKEN);
    const sentence = `The proxy 127.0.0.1:${proxy.port} asks for credentials (407 Proxy Authentication Required): set them in VS Code's http.proxyAuthorization setting or in the proxy URL (docchat.network.proxy).`;
    await session.waitForOutput(new RegExp(sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 90_000);
    await session.screenshot('407 from the proxy');
    assert.ok(proxy.log.includes(`CONNECT ${TEST_HOST}:${server.port} 407`), proxy.log.join('\n'));

    await session.close();
    session = undefined;

    // With VS Code's http.proxyAuthorization set, the same editor gets through (and the CA from the environment is trusted).
    proxy.log.length = 0;
    const authorization = `Basic ${Buffer.from(`alice:${PROXY_PASSWORD}`).toString('base64')}`;
    session = await launchVSCode({
      name: 'network 407 fixed',
      settings: { ...settings, 'http.proxyAuthorization': authorization },
      env: { NODE_EXTRA_CA_CERTS: ca.certFile },
    });
    await session.openView();
    await session.runCommand(commandTitle('docchat.setDocumentsToken'));
    await session.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Set Documents Token' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await session.answerQuickInput(TOKEN);
    await session
      .viewPane('Vector Stores')
      .locator('.monaco-list-row', { hasText: 'handbook' })
      .first()
      .waitFor({ state: 'visible', timeout: 90_000 });
    assert.ok(proxy.log.length > 0 && proxy.log.every((line) => line === `CONNECT ${TEST_HOST}:${server.port} 200`), proxy.log.join('\n'));
    assert.ok(!session.outputChannel().includes(authorization.slice(6)), 'the proxy credentials never reach the log');
    await session.close();
    session = undefined;
  });

  it('Local mode with HTTP_PROXY and HTTPS_PROXY in the environment works and sends nothing to the proxy', async () => {
    proxy.log.length = 0;
    session = await launchVSCode({ name: 'network local', env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '' } });
    await session.openView();
    await session.waitForOutput(/Using the local backend at http:\/\/127\.0\.0\.1/, 90_000);
    await session.viewPane('Vector Stores').getByText('No vector stores yet').first().waitFor({ state: 'visible', timeout: 90_000 });
    await session.screenshot('local mode behind a proxy');
    assert.deepEqual(proxy.log, [], 'no request of Local mode reached the proxy');
  });
});
