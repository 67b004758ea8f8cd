import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  answerDone,
  askInChat,
  closedAfterEach,
  chatPanel,
  commandTitle,
  launchVSCode,
  notificationTexts,
  pollUntil,
  type VSCodeSession,
} from '../support/harness';
import { chatChunk, ScriptServer, sendChunked, sendJson, sseBody } from '../support/servers/scriptServer';

// Local mode, one rule for the model the chat answers with: what the user picks in "Use a Language
// Model…" (or Stop Using a Language Model) is what the open chat's Model select shows and asks next,
// also after a model was picked in the chat by hand; a model the server refused for chat stays
// chosen, marked, until the user chooses, is not asked again, and stays marked when the server
// is started again and the list refreshed.

const quickInput = (page: Page) => page.locator('.quick-input-widget');

/** A vLLM-like stub: tiny-chat answers, whisper-1 is refused for chat. */
function stubModelServer(server: ScriptServer): ScriptServer {
  server.on('GET', '/v1/models', (_req, res) =>
    sendJson(res, 200, { object: 'list', data: ['tiny-chat', 'whisper-1'].map((id) => ({ id, object: 'model' })) }),
  );
  server.on('POST', '/v1/chat/completions', (req, res) => {
    const model = (req.json as { model: string }).model;
    if (model !== 'tiny-chat') return sendJson(res, 400, { error: { message: `"${model}" does not support chat` } });
    return void sendChunked(res, sseBody([chatChunk('Fake answer from tiny-chat.'), chatChunk(undefined, { finish_reason: 'stop' })]));
  });
  return server;
}

describe('Local mode: the chat answers with the model chosen in Use a Language Model… (e2e)', function () {
  let session: VSCodeSession | undefined;
  let modelServer: ScriptServer | undefined;

  closedAfterEach(
    () => session,
    () => [modelServer],
    () => (session = modelServer = undefined),
  );

  it('switches the open chat with every pick, keeps a refused model chosen and marked without asking it again, and back to local-extractive on Stop', async function () {
    this.timeout(480_000);
    modelServer = stubModelServer(await ScriptServer.start());
    const port = modelServer.port;
    const chatRequests = (model: string) =>
      modelServer!.requests.filter((r) => r.path === '/v1/chat/completions' && (r.json as { model?: string })?.model === model).length;
    session = await launchVSCode({ name: this.test!.fullTitle(), env: { DOCCHAT_MODEL_SERVER_PORTS: String(port) } });
    const page = session.page;
    await session.openView();
    await page.locator('.statusbar', { hasText: 'DocChat: Local' }).waitFor({ state: 'visible', timeout: 120_000 });
    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = chatPanel(page);
    const chosen = (model: string) => chat.locator(`.model-select option:checked[value="${model}"]`);
    await chosen('local-extractive').waitFor({ state: 'attached', timeout: 60_000 });

    const useModel = async (model: string) => {
      await session!.runCommand(commandTitle('docchat.local.useLanguageModel'));
      const row = quickInput(page).locator('.monaco-list-row', { hasText: model });
      await row.first().waitFor({ state: 'visible', timeout: 60_000 });
      await row.first().click();
    };

    // whisper-1: the open chat follows; the server refuses it.
    await useModel('whisper-1');
    await chosen('whisper-1').waitFor({ state: 'attached', timeout: 60_000 });
    const refused = await askInChat(chat, 'What is DocChat?');
    const note = 'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.';
    await refused.locator('.inline-error').waitFor({ state: 'visible', timeout: 90_000 });
    assert.equal((await refused.locator('.inline-error .error-message').innerText()).trim(), note);
    // Nothing switches silently: the select still has whisper-1, marked with the reason.
    await chat
      .locator('.model-select option:checked[value="whisper-1"]', { hasText: 'unavailable: "whisper-1" does not support chat' })
      .waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(
      await chat.locator('.model-select').getAttribute('title'),
      'Model: whisper-1 — unavailable: "whisper-1" does not support chat',
    );
    assert.equal(chatRequests('whisper-1'), 1);

    // Asked again: the same note at once, no request that fails again.
    const again = await askInChat(chat, 'How do I delete a store?');
    await again.locator('.inline-error').waitFor({ state: 'visible', timeout: 90_000 });
    assert.equal((await again.locator('.inline-error .error-message').innerText()).trim(), note);
    assert.deepEqual(await again.locator('.inline-error button').allInnerTexts(), ['Choose a Model', 'Use local-extractive']);
    assert.equal(chatRequests('whisper-1'), 1, 'whisper-1 was not asked again');
    await session.screenshot('refused model stays chosen');

    // The note's button switches this chat by hand; then tiny-chat is picked in Use a Language Model….
    await again.locator('.inline-error button', { hasText: 'Use local-extractive' }).click();
    await chosen('local-extractive').waitFor({ state: 'attached', timeout: 30_000 });
    // The question is answered again, in the failed answer's place, by local-extractive.
    await again.and(chat.locator('article[data-status="done"]')).waitFor({ timeout: 90_000 });
    assert.match(await again.innerText(), /local-extractive/);
    assert.equal(chatRequests('whisper-1'), 1);
    await useModel('tiny-chat');
    await chosen('tiny-chat').waitFor({ state: 'attached', timeout: 60_000 });
    await pollUntil(
      () => notificationTexts(page),
      (texts) => texts.some((t) => /DocChat: the chat and new chats now answer with tiny-chat from .+\./.test(t)),
      { what: 'the notice that the chat answers with tiny-chat' },
    );
    const answered = await askInChat(chat, 'What is DocChat?');
    await answerDone(chat, answered);
    assert.match(await answered.innerText(), /Fake answer from tiny-chat\./);
    await session.screenshot('open chat follows the pick');

    // The model server is started again and the list refreshed: whisper-1 is still refused.
    await modelServer.close();
    modelServer = stubModelServer(await ScriptServer.start({ port }));
    await chat.locator('button.refresh-models').click();
    await chat
      .locator('.model-select option[value="whisper-1"]', { hasText: 'unavailable: "whisper-1" does not support chat' })
      .waitFor({ state: 'attached', timeout: 30_000 });
    await chat
      .locator('.model-select option[value="tiny-chat"]', { hasText: /^tiny-chat$/ })
      .waitFor({ state: 'attached', timeout: 30_000 });

    // Stop Using a Language Model: the open chat goes back to local-extractive, and says so.
    await session.runCommand(commandTitle('docchat.local.useLanguageModel'));
    const stop = quickInput(page).locator('.monaco-list-row', { hasText: 'Stop Using a Language Model' });
    await stop.first().waitFor({ state: 'visible', timeout: 60_000 });
    // The models found come below the rows shown while looking: none takes the place of Stop.
    await quickInput(page)
      .locator('.monaco-list-row', { hasText: 'Server on port' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    const rows = await quickInput(page).locator('.monaco-list-row').allInnerTexts();
    const at = (text: string) => rows.findIndex((row) => row.includes(text));
    assert.ok(
      at('Enter a Server URL') < at('Stop Using a Language Model') && at('Stop Using a Language Model') < at('Server on port'),
      JSON.stringify(rows),
    );
    await stop.first().click();
    await chosen('local-extractive').waitFor({ state: 'attached', timeout: 60_000 });
    await pollUntil(
      () => notificationTexts(page),
      (texts) => texts.includes('DocChat: the chat and new chats answer with local-extractive again.'),
      { what: 'the notice that the chat answers with local-extractive' },
    );
    await session.screenshot('stop using a language model');
  });
});
