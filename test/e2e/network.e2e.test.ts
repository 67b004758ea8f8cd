import * as assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { chatWebviewFrame, commandTitle, captureFailures, launchVSCode, type VSCodeSession, openStoreSearch } from '../support/harness';
import { ProxyServer } from '../support/servers/proxyServer';
import { chatChunk, listPage, ScriptServer, sendJson, sseBody } from '../support/servers/scriptServer';
import { TEST_HOST, TestCa } from '../support/servers/testCa';

// Corporate networks in a real VS Code. Both services sit behind TLS certificates that a company CA
// signed: the documents service at docs.corp.test, the gateway at gw.corp.test. Remote mode goes
// through a proxy that demands credentials (lists, searches and streams a chat answer through it);
// the CA comes once from docchat.network.caFiles and once from NODE_EXTRA_CA_CERTS; a host in
// NO_PROXY goes direct; a 407 names the setting that fixes it, and setting it works at once; Local
// mode with HTTP_PROXY / HTTPS_PROXY in the editor's environment sends none of its (loopback)
// requests to the proxy.

const TOKEN = 'network-e2e-token';
const API_KEY = 'network-e2e-api-key';
const PROXY_PASSWORD = 'pr0xy-s3cret';
const PROXY_AUTH = `Basic ${Buffer.from(`alice:${PROXY_PASSWORD}`).toString('base64')}`;
const GATEWAY_HOST = 'gw.corp.test';
const MODEL = 'alpha-5-mini';
const ANSWER_WORDS = ['Roll ', 'back ', 'from ', 'the ', 'release ', 'pipeline.'];
/** Makes the `.test` names resolve in code-server's processes, as a company's DNS would. */
const COMPANY_DNS = path.join(__dirname, '../support/servers/companyDns.cjs');

/**
 * A tiny extension that changes a setting through VS Code's configuration API, as the Settings
 * editor does when the user edits it there (VS Code applies such a change at once; an edit of the
 * settings file behind its back reaches code-server's window only on a reload).
 */
/**
 * A tiny extension that loads the company DNS (companyDns.cjs) into the extension host as it
 * starts, before DocChat is used. VS Code 1.139's server removes NODE_OPTIONS from the extension
 * host's environment, so `--require` there would not reach it.
 */
function writeCompanyDnsExtension(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-company-dns-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'company-dns',
      publisher: 'docchat-tests',
      version: '0.0.1',
      engines: { vscode: '^1.104.0' },
      main: './extension.js',
      activationEvents: ['*'],
    }),
  );
  writeFileSync(path.join(dir, 'extension.js'), `require(${JSON.stringify(COMPANY_DNS)});\nexports.activate = () => undefined;\n`);
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  return dir;
}

function writeSettingsExtension(key: string, value: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-settings-writer-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'settings-writer',
      publisher: 'docchat-tests',
      version: '0.0.1',
      engines: { vscode: '^1.100.0' },
      main: './extension.js',
      activationEvents: ['onCommand:settingsWriter.apply'],
      contributes: { commands: [{ command: 'settingsWriter.apply', title: 'Apply Proxy Credentials', category: 'Settings Writer' }] },
    }),
  );
  writeFileSync(
    path.join(dir, 'extension.js'),
    `const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('settingsWriter.apply', () =>
    vscode.workspace.getConfiguration().update(${JSON.stringify(key)}, ${JSON.stringify(value)}, vscode.ConfigurationTarget.Global)));
};`,
  );
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  return dir;
}

const store = {
  id: 'vs_handbook',
  object: 'vector_store',
  name: 'handbook',
  created_at: 1_700_000_000,
  expires_at: null,
  metadata: {},
  file_counts: { in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 },
};
const file = { id: 'file-runbook', object: 'file', bytes: 120, created_at: 1_700_000_000, filename: 'runbook.md', purpose: 'assistants' };

describe('Network: proxy and company CA (e2e)', function () {
  let ca: TestCa;
  let docs: ScriptServer;
  let gateway: ScriptServer;
  let proxy: ProxyServer;
  let session: VSCodeSession | undefined;

  const docsUrl = () => `https://${TEST_HOST}:${docs.port}`;
  const gatewayUrl = () => `https://${GATEWAY_HOST}:${gateway.port}`;
  const docsTunnel = () => `CONNECT ${TEST_HOST}:${docs.port} 200`;
  const gatewayTunnel = () => `CONNECT ${GATEWAY_HOST}:${gateway.port}`;

  before(async () => {
    ca = TestCa.create();
    docs = await ScriptServer.start({ tls: ca.leaf('docs') });
    docs.on('GET', '/v1/vector_stores', (r, res) => sendJson(res, 200, listPage([store], r.query)));
    docs.on('GET', /^\/v1\/vector_stores\/[^/]+$/, (_r, res) => sendJson(res, 200, store));
    docs.on('GET', /^\/v1\/vector_stores\/[^/]+\/files$/, (r, res) =>
      sendJson(res, 200, {
        ...listPage(
          [
            {
              id: file.id,
              object: 'vector_store.file',
              created_at: 1_700_000_000,
              vector_store_id: store.id,
              status: 'completed',
              usage_bytes: 120,
              last_error: null,
              attributes: {},
            },
          ],
          r.query,
        ),
        vector_store_id: store.id,
      }),
    );
    docs.on('GET', '/v1/files', (r, res) => sendJson(res, 200, listPage([file], r.query)));
    docs.on('POST', /^\/v1\/vector_stores\/[^/]+\/search$/, (r, res) =>
      sendJson(res, 200, {
        object: 'vector_store.search_results.page',
        search_query: [String(r.json?.query ?? '')],
        data: [
          {
            file_id: file.id,
            filename: file.filename,
            score: 0.91,
            attributes: {},
            content: [{ type: 'text', text: 'To roll back, run the release pipeline with the previous tag.' }],
          },
        ],
        has_more: false,
        next_page: null,
      }),
    );

    gateway = await ScriptServer.start({ tls: ca.leaf('gateway', { names: `DNS:${GATEWAY_HOST}` }) });
    gateway.on('GET', '/v1/completions/models', (_r, res) =>
      sendJson(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', created: 1, owned_by: 'e2e' }] }),
    );
    gateway.on('GET', '/v1/embed/models', (_r, res) => sendJson(res, 200, { object: 'list', data: [] }));
    gateway.on('POST', '/v1/chat/completions', (r, res) => {
      if (r.headers['api-key'] !== API_KEY) {
        sendJson(res, 401, { error: { message: 'Invalid API key.', type: 'authentication_error' } });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(
        sseBody([
          chatChunk('', { role: 'assistant' }),
          ...ANSWER_WORDS.map((w) => chatChunk(w)),
          chatChunk(undefined, { finish_reason: 'stop' }),
        ]),
      );
    });

    proxy = await ProxyServer.start({ requireAuth: PROXY_AUTH });
  });

  captureFailures(() => session!);

  afterEach(async () => {
    await session?.close();
    session = undefined;
    proxy.log.length = 0;
    docs.requests.length = 0;
    gateway.requests.length = 0;
  });

  after(async () => {
    await proxy?.close();
    await docs?.close();
    await gateway?.close();
    ca?.dispose();
  });

  const storeRow = (s: VSCodeSession) => s.viewPane('Vector Stores').locator('.monaco-list-row', { hasText: 'handbook' }).first();

  /** Asks in the chat panel, grounded in the only store; resolves to the finished answer's text. */
  async function ask(s: VSCodeSession, question: string): Promise<string> {
    await s.enterSecret('docchat.setGatewayApiKey', API_KEY);
    await s.waitForOutput(/docchat\.gatewayApiKey updated/);
    await s.runCommand(commandTitle('docchat.chat.open'));
    const chat = await chatWebviewFrame(s.page);
    await chat.locator(`.model-select option[value="${MODEL}"]`).waitFor({ state: 'attached', timeout: 60_000 });
    await chat.locator('.model-select').selectOption(MODEL);
    const input = chat.locator('textarea.composer-input');
    await input.fill(question);
    await input.press('Enter');
    const answer = chat.locator('article.assistant').last().locator('.markdown-body').filter({ hasText: 'release pipeline.' });
    await answer.waitFor({ state: 'visible', timeout: 60_000 });
    return answer.innerText();
  }

  it('Remote mode lists stores, searches and streams a chat answer through an authenticating proxy, trusting the CA from docchat.network.caFiles', async () => {
    session = await launchVSCode({
      name: 'network remote',
      settings: {
        'docchat.documents.url': docsUrl(),
        'docchat.gateway.url': gatewayUrl(),
        'docchat.network.proxy': `http://alice:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`,
        'docchat.network.caFiles': [ca.certFile],
      },
    });
    await session.openView();
    await session.enterSecret('docchat.setDocumentsToken', TOKEN);
    await storeRow(session).waitFor({ state: 'visible', timeout: 90_000 });
    await session.screenshot('stores through the proxy');

    // Search from the quick pick.
    await session.runCommand(commandTitle('docchat.search'));
    const quick = await openStoreSearch(session.page, 'handbook');
    await quick.locator('input.input').fill('roll back');
    await quick.locator('.monaco-list-row', { hasText: 'runbook.md' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('search results through the proxy');
    await session.closeQuickInput();
    assert.ok(
      docs.requests.some((r) => r.method === 'POST' && r.path === `/v1/vector_stores/${store.id}/search` && r.json?.query === 'roll back'),
      'the search reached the documents service',
    );

    // A streamed, grounded answer from the gateway.
    const answer = await ask(session, 'How do I roll back?');
    assert.match(answer, /Roll back from the release pipeline\./);
    await session.screenshot('chat answer through the proxy');
    assert.ok(
      gateway.requests.some((r) => r.path === '/v1/chat/completions' && r.json?.stream === true),
      'the answer was streamed',
    );

    assert.ok(proxy.log.includes(docsTunnel()), `the proxy's log shows the documents tunnel:\n${proxy.log.join('\n')}`);
    assert.ok(proxy.log.includes(`${gatewayTunnel()} 200`), `the proxy's log shows the gateway tunnel:\n${proxy.log.join('\n')}`);
    assert.ok(docs.requests.some((r) => r.path === '/v1/vector_stores' && r.headers.authorization === `Bearer ${TOKEN}`));
    assert.ok(!session.outputChannel().includes(PROXY_PASSWORD), 'the proxy password never reaches the log');
  });

  it('from the environment (HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS): a host in NO_PROXY goes direct, the other through the proxy', async () => {
    session = await launchVSCode({
      name: 'network no_proxy',
      settings: { 'docchat.documents.url': docsUrl(), 'docchat.gateway.url': gatewayUrl() },
      env: {
        HTTPS_PROXY: `http://alice:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`,
        NO_PROXY: `.example.org,${GATEWAY_HOST}`,
        NODE_EXTRA_CA_CERTS: ca.certFile,
      },
      extraExtensions: [writeCompanyDnsExtension()],
    });
    await session.openView();
    await session.enterSecret('docchat.setDocumentsToken', TOKEN);
    await storeRow(session).waitFor({ state: 'visible', timeout: 90_000 });
    const answer = await ask(session, 'How do I roll back?');
    assert.match(answer, /Roll back from the release pipeline\./);
    await session.screenshot('gateway direct, documents through the proxy');
    assert.ok(proxy.log.includes(docsTunnel()), `the documents service went through the proxy:\n${proxy.log.join('\n')}`);
    assert.ok(!proxy.log.some((line) => line.startsWith(gatewayTunnel())), `the gateway (in NO_PROXY) did not:\n${proxy.log.join('\n')}`);
    assert.ok(
      gateway.requests.some((r) => r.path === '/v1/chat/completions'),
      'the gateway was reached directly',
    );
  });

  it('a proxy demanding credentials shows the 407 sentence, and works as soon as http.proxyAuthorization is set', async () => {
    const settingsWriter = writeSettingsExtension('http.proxyAuthorization', PROXY_AUTH);
    try {
      const settings = { 'docchat.documents.url': docsUrl(), 'docchat.network.proxy': proxy.url };
      session = await launchVSCode({
        name: 'network 407',
        settings,
        env: { NODE_EXTRA_CA_CERTS: ca.certFile },
        extraExtensions: [settingsWriter],
      });
      await session.openView();
      await session.enterSecret('docchat.setDocumentsToken', TOKEN);
      const sentence = `The proxy 127.0.0.1:${proxy.port} asks for credentials (407 Proxy Authentication Required): set them in VS Code's http.proxyAuthorization setting or in the proxy URL (docchat.network.proxy).`;
      await session.waitForOutput(new RegExp(sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 90_000);
      await session.viewPane('Vector Stores').getByText('Could not load').first().waitFor({ state: 'visible', timeout: 30_000 });
      await session.screenshot('407 from the proxy');
      assert.ok(proxy.log.includes(`CONNECT ${TEST_HOST}:${docs.port} 407`), proxy.log.join('\n'));

      // The user sets VS Code's http.proxyAuthorization; no reload, no retry.
      proxy.log.length = 0;
      await session.runCommand('Settings Writer: Apply Proxy Credentials');
      await storeRow(session).waitFor({ state: 'visible', timeout: 90_000 });
      await session.screenshot('through the proxy once http.proxyAuthorization is set');
      assert.ok(proxy.log.length > 0 && proxy.log.every((line) => line === docsTunnel()), proxy.log.join('\n'));
      assert.ok(!session.outputChannel().includes(PROXY_AUTH.slice(6)), 'the proxy credentials never reach the log');
    } finally {
      rmSync(settingsWriter, { recursive: true, force: true });
    }
  });

  it('Local mode with HTTP_PROXY and HTTPS_PROXY in the environment works and sends nothing to the proxy', async () => {
    session = await launchVSCode({ name: 'network local', env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '' } });
    await session.openView();
    await session.waitForOutput(/Using the local backend at http:\/\/127\.0\.0\.1/, 90_000);
    await session.viewPane('Vector Stores').getByText('No vector stores yet').first().waitFor({ state: 'visible', timeout: 90_000 });
    await session.screenshot('local mode behind a proxy');
    assert.deepEqual(proxy.log, [], 'no request of Local mode reached the proxy');
  });
});
