import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { askInChat, closedAfterEach, chatPanel, commandTitle, launchVSCode, type VSCodeSession } from '../support/harness';
import { ScriptServer, sendJson } from '../support/servers/scriptServer';

// Local mode with a model server found by "Use a Language Model…" (a stub on this machine): a model
// the server refuses for chat (an audio model) says so with its reason, offers another model or
// local-extractive instead of Retry, and is marked unavailable in both model lists; a server that
// stopped is named in plain words, and Refresh Model List marks its models "server not answering".

const quickInput = (page: Page) => page.locator('.quick-input-widget');

describe('Local mode: a model server model that cannot chat, and a server that stopped (e2e)', function () {
  let session: VSCodeSession | undefined;
  let modelServer: ScriptServer | undefined;

  closedAfterEach(
    () => session,
    () => [modelServer],
    () => (session = modelServer = undefined),
  );

  it("marks whisper-1 unavailable with the server's reason, offers no Retry, then names the stopped server and marks its models", async function () {
    modelServer = await ScriptServer.start();
    modelServer.on('GET', '/v1/models', (_req, res) =>
      sendJson(res, 200, { object: 'list', data: ['tiny-chat', 'nomic-embed-text', 'whisper-1'].map((id) => ({ id, object: 'model' })) }),
    );
    modelServer.on('POST', '/v1/chat/completions', (_req, res) =>
      sendJson(res, 400, { error: { message: '"whisper-1" does not support chat' } }),
    );
    const port = new URL(modelServer.url).port;
    session = await launchVSCode({ name: this.test!.fullTitle(), env: { DOCCHAT_MODEL_SERVER_PORTS: port } });
    const page = session.page;
    await session.openView();
    await page.locator('.statusbar', { hasText: 'DocChat: Local' }).waitFor({ state: 'visible', timeout: 120_000 });

    await session.runCommand(commandTitle('docchat.local.useLanguageModel'));
    const whisper = quickInput(page).locator('.monaco-list-row', { hasText: 'whisper-1' });
    await whisper.first().waitFor({ state: 'visible', timeout: 60_000 });
    await whisper.first().click();
    await session.waitForOutput(new RegExp(`Local mode forwards chat to http://127\\.0\\.0\\.1:${port}/v1`), 120_000);

    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = chatPanel(page);
    await chat.locator('.model-select option[value="whisper-1"]').waitFor({ state: 'attached', timeout: 60_000 });
    const refused = await askInChat(chat, 'What is DocChat?');
    const error = refused.locator('.inline-error');
    await error.waitFor({ state: 'visible', timeout: 90_000 });
    assert.equal(
      (await error.locator('.error-message').innerText()).trim(),
      'whisper-1 cannot answer chat questions: "whisper-1" does not support chat.',
    );
    assert.deepEqual(await error.locator('button').allInnerTexts(), ['Choose a Model', 'Use local-extractive']);
    await chat
      .locator('.model-select option[value="whisper-1"]', { hasText: 'unavailable: "whisper-1" does not support chat' })
      .waitFor({ state: 'attached', timeout: 30_000 });
    await session.screenshot('model cannot chat');

    // "Use a Language Model…" marks it too, with the reason.
    await session.runCommand(commandTitle('docchat.local.useLanguageModel'));
    await quickInput(page)
      .locator('.monaco-list-row', { hasText: 'Unavailable: "whisper-1" does not support chat' })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('use a language model marks whisper-1');
    await page.keyboard.press('Escape');

    // The way back: local-extractive answers this chat.
    await error.locator('button', { hasText: 'Use local-extractive' }).click();
    await chat.locator('.model-select option:checked[value="local-extractive"]').waitFor({ state: 'attached', timeout: 30_000 });
    // …and answers the question whisper-1 could not, in its place.
    await refused.and(chat.locator('article[data-status="done"]')).waitFor({ timeout: 90_000 });
    assert.match(await refused.innerText(), /local-extractive/);
    assert.equal(await refused.locator('.inline-error').count(), 0);

    // The server stops: asking with its other model names it, with Retry and the way back.
    await chat.locator('.model-select').selectOption('tiny-chat');
    await modelServer.close();
    const down = await askInChat(chat, 'What is DocChat?');
    const downError = down.locator('.inline-error');
    await downError.waitFor({ state: 'visible', timeout: 90_000 });
    assert.equal(
      (await downError.locator('.error-message').innerText()).trim(),
      `The model server at http://127.0.0.1:${port}/v1 (Server on port ${port}) is not running or not reachable.`,
    );
    assert.deepEqual(await downError.locator('button').allInnerTexts(), ['Retry', 'Use local-extractive', 'Open Output']);
    // Refresh Model List asks again: the server's models stay listed, marked.
    await chat.locator('button.refresh-models').click();
    await chat
      .locator('.model-select option[value="tiny-chat"]', { hasText: 'unavailable: server not answering' })
      .waitFor({ state: 'attached', timeout: 30_000 });
    await session.screenshot('model server stopped');
  });
});
