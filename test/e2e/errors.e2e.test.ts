import * as assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { commandTitle, captureFailures, launchVSCode, type VSCodeSession } from '../support/harness';
import { chatChunk, listPage, ScriptServer, sendJson, sseBody } from '../support/servers/scriptServer';

// Errors in a real VS Code, against a fault-injecting server that plays both services: a rejected
// token, a rate limit and a chat stream that breaks off. Each is shown once, with its way forward
// (Set Token, Retry, Show Output), and the way forward works. (A rejected gateway API key in the
// chat, with Set API Key, is covered in chat.e2e.test.ts.)

const GOOD_TOKEN = 'errors-e2e-good-token';
const API_KEY = 'errors-e2e-api-key';
const store = {
  id: 'vs_handbook',
  object: 'vector_store',
  name: 'handbook',
  created_at: 1_700_000_000,
  expires_at: null,
  metadata: {},
  file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
};
const WORDS = ['The ', 'first ', 'part ', 'arrived'];

interface Faults {
  rateLimitNextList: number;
  breakNextStream: number;
  chatCalls: number;
}

async function startFaultyServices(faults: Faults): Promise<ScriptServer> {
  const server = await ScriptServer.start();
  const authorized = (r: { headers: Record<string, unknown> }, res: ServerResponse) => {
    if (r.headers.authorization === `Bearer ${GOOD_TOKEN}`) return true;
    sendJson(res, 401, { error: { message: 'The bearer token is not valid.', type: 'authentication_error' } });
    return false;
  };
  server.on('GET', '/v1/vector_stores', (r, res) => {
    if (!authorized(r, res)) return;
    if (faults.rateLimitNextList > 0) {
      faults.rateLimitNextList--;
      // Refused as often as the client retries on its own (twice), so the third refusal reaches the user.
      sendJson(
        res,
        429,
        { error: { message: 'Rate limit reached for list vector stores.', type: 'rate_limit_error' } },
        { 'retry-after': '1' },
      );
      return;
    }
    sendJson(res, 200, listPage([store], r.query));
  });
  server.on('GET', /^\/v1\/vector_stores\/[^/]+$/, (r, res) => {
    if (authorized(r, res)) sendJson(res, 200, store);
  });
  server.on('GET', /^\/v1\/vector_stores\/[^/]+\/files$/, (r, res) => {
    if (authorized(r, res)) sendJson(res, 200, { ...listPage([], r.query), vector_store_id: store.id });
  });
  server.on('GET', '/v1/files', (r, res) => {
    if (authorized(r, res)) sendJson(res, 200, listPage([], r.query));
  });
  server.on('GET', '/v1/completions/models', (_r, res) =>
    sendJson(res, 200, { object: 'list', data: [{ id: 'alpha-5-mini', object: 'model', created: 1, owned_by: 'e2e' }] }),
  );
  server.on('GET', '/v1/embed/models', (_r, res) => sendJson(res, 200, { object: 'list', data: [] }));
  server.on('POST', '/v1/chat/completions', async (r, res) => {
    if (r.headers['api-key'] !== API_KEY) {
      return sendJson(res, 401, { error: { message: 'Invalid API key.', type: 'authentication_error' } });
    }
    faults.chatCalls++;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const words = sseBody([chatChunk('', { role: 'assistant' }), ...WORDS.map((w) => chatChunk(w))], { done: false });
    if (faults.breakNextStream > 0) {
      faults.breakNextStream--;
      // The connection dies mid-answer, once the first words are on their way.
      res.write(words, () => res.socket?.destroy());
      return;
    }
    res.write(words);
    res.end(sseBody([chatChunk(' completely.'), chatChunk(undefined, { finish_reason: 'stop' })]));
  });
  return server;
}

describe('Errors shown once, with a way forward (e2e)', function () {
  let session: VSCodeSession;
  let server: ScriptServer;
  const faults: Faults = { rateLimitNextList: 0, breakNextStream: 0, chatCalls: 0 };

  const pane = () => session.viewPane('Vector Stores');
  const rows = (text: string | RegExp) => pane().locator('.monaco-list-row', { hasText: text });
  /** Notifications shown since the window opened whose text matches (recorded as they appear: one that hid again counts). */
  const notificationsMatching = async (pattern: RegExp) => (await session.notifications()).filter((t) => pattern.test(t));

  before(async function () {
    server = await startFaultyServices(faults);
    session = await launchVSCode({ name: 'errors', settings: { 'docchat.documents.url': server.url, 'docchat.gateway.url': server.url } });
    await session.openView();
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await server?.close();
  });

  it('a rejected token: one error in the tree that opens Set Token, which fixes it', async () => {
    await session.enterSecret('docchat.setDocumentsToken', 'a-wrong-token');
    const error = rows(/token was rejected/i);
    await error.first().waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('rejected token in the tree');
    assert.equal(await error.count(), 1, 'the tree shows the error once');
    assert.deepEqual(await notificationsMatching(/token/i), [], 'no second report of the same error as a notification');

    await error.first().click();
    await session.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Set Documents Token' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await session.answerQuickInput(GOOD_TOKEN);
    await rows('handbook').first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await rows(/token was rejected/i).count(), 0);
    // Everything the rejection caused has happened by now: still no notification about it.
    assert.deepEqual(await notificationsMatching(/token/i), [], 'no later report of the rejected token as a notification');
  });

  it('a rate limit: one error in the tree that says so and retries when clicked', async () => {
    faults.rateLimitNextList = 3;
    await session.runCommand(commandTitle('docchat.refreshStores'));
    const error = rows(/could not load/i);
    await error.first().waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('rate limit in the tree');
    assert.equal(await error.count(), 1, 'the tree shows the error once');
    await error.first().hover();
    const tooltip = session.page
      .locator('.monaco-hover, .custom-hover, .workbench-hover')
      .filter({ hasText: /too many requests|rate limit/i });
    await tooltip.first().waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await tooltip.first().innerText(), /rate limit/i);
    assert.ok((await notificationsMatching(/too many requests|rate limit/i)).length <= 1, 'at most one notification besides the tree');

    await session.page.keyboard.press('Escape'); // closes the hover
    await error.first().click(); // Retry (the server's one-second wait has passed by now)
    await rows('handbook').first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await rows(/could not load/i).count(), 0);
    assert.ok((await notificationsMatching(/too many requests|rate limit/i)).length <= 1, 'no later second notification of the rate limit');
  });

  it('a broken chat stream: the partial answer stays, one inline error offers Retry and Show Output, Retry completes it', async () => {
    await session.closeQuickInput().catch(() => undefined);
    await session.enterSecret('docchat.setGatewayApiKey', API_KEY);
    await session.waitForOutput(/docchat\.gatewayApiKey updated/);
    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = session.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await chat.locator('.model-select option[value="alpha-5-mini"]').waitFor({ state: 'attached', timeout: 60_000 });
    await chat.locator('.model-select').selectOption('alpha-5-mini');
    // A new chat grounds in the only store; this one asks the model without searching.
    await chat.locator('.store-select').selectOption('');
    faults.breakNextStream = 1;
    const input = chat.locator('textarea.composer-input');
    await input.fill('Tell me something.');
    await input.press('Enter');
    const answer = chat.locator('article.assistant').last();
    const error = answer.locator('.inline-error');
    await error.waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('broken stream with retry');
    assert.equal(await chat.locator('.inline-error').count(), 1, 'the error is shown once');
    assert.match(await error.innerText(), /broke off/i);
    assert.match(await answer.locator('.markdown-body').innerText(), /The first part arrived/, 'what arrived is kept');
    assert.equal(await error.locator('.action-retry').count(), 1);
    assert.equal(await error.locator('.action-showOutput').count(), 1);
    assert.deepEqual(await notificationsMatching(/broke off|stream/i), [], 'no second report as a notification');

    await error.locator('.action-retry').click();
    await answer
      .locator('.markdown-body')
      .filter({ hasText: /arrived completely/ })
      .waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator('.inline-error').count(), 0);
    assert.deepEqual(await notificationsMatching(/broke off|stream/i), [], 'no later report of the broken stream as a notification');
    assert.equal(faults.chatCalls, 2, 'the broken stream was not retried on its own; Retry sent it once more');
  });
});
