import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  answerDone,
  askInChat,
  closedAfterEach,
  chatPanel,
  commandTitle,
  editorTabsByGroup,
  launchVSCode,
  pollUntil,
  seedDemoStore,
  type VSCodeSession,
} from '../support/harness';
import { chatChunk, ScriptServer, sendJson } from '../support/servers/scriptServer';

// The first minutes of a new user, in a real VS Code in Local mode with a fresh profile: the demo
// store `npm start` seeds answers the first question with citations; the Getting Started
// walkthrough opens on first start and checks its steps as the user acts; "Use a Language
// Model…" finds a model server on this machine and the chat then answers with its models.

const quickInput = (page: Page) => page.locator('.quick-input-widget');
const chatOf = chatPanel;
const walkthroughOf = (page: Page) => page.locator('.gettingStartedContainer');
const walkthroughStep = (page: Page, id: string) => walkthroughOf(page).locator(`button.getting-started-step[data-step-id$="${id}"]`);
/** Shows DocChat's view and waits until it lists the demo store. */
async function showDemoStore(session: VSCodeSession): Promise<void> {
  await session.openView();
  await session
    .viewPane('Vector Stores')
    .locator('.monaco-list-row', { hasText: 'demo' })
    .first()
    .waitFor({ state: 'visible', timeout: 120_000 });
}
/** Waits until the walkthrough shows the step checked. */
const stepChecked = (page: Page, id: string) =>
  walkthroughStep(page, id).and(page.locator('[aria-checked="true"]')).waitFor({ state: 'attached', timeout: 120_000 });

describe('First run (e2e, Local mode)', function () {
  let session: VSCodeSession | undefined;
  let modelServer: ScriptServer | undefined;

  closedAfterEach(
    () => session,
    () => [modelServer],
    () => (session = modelServer = undefined),
  );

  it('answers the first question in a new chat from the demo store, with a citation that opens the passage', async function () {
    session = await launchVSCode({ name: this.test!.fullTitle(), prepare: ({ userDataDir }) => seedDemoStore(userDataDir) });
    const page = session.page;
    await showDemoStore(session);
    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = chatOf(page);
    // No store was ever chosen: the only store there is grounds the new chat.
    await chat.locator('.store-select option:checked', { hasText: 'demo' }).waitFor({ state: 'attached', timeout: 60_000 });
    await session.screenshot('new chat grounded in the demo store');

    const answer = await askInChat(chatOf(page), 'What does npm test run?');
    await answerDone(chatOf(page), answer);
    const text = await answer.locator('.markdown-body').innerText();
    assert.match(text, /npm test/, text);
    const citations = answer.locator('.markdown-body a.citation');
    assert.ok((await citations.count()) >= 1, `the answer cites its sources: ${text}`);
    assert.match(await answer.locator('.sources .source').first().innerText(), /README\.md/);
    assert.equal(await answer.locator('.next-steps').count(), 0, 'a grounded answer with sources offers no way-forward buttons');
    await session.screenshot('first answer with citations');

    // The cited source's text, as the panel lists it (from the sentence the answer quotes, spaces collapsed).
    const cited = await citations.first().getAttribute('data-citation');
    const source = answer.locator('.sources .source').filter({ has: chat.locator('.source-number', { hasText: `[${cited}]` }) });
    const snippet = (await source.locator('.source-snippet').textContent()) ?? '';
    await citations.first().click();
    await page.locator('.tabs-container .tab', { hasText: 'README.md' }).waitFor({ state: 'visible', timeout: 60_000 });
    // The editor shows the passage: lines of the cited text are on screen (the demo store holds the
    // live README, so which passage answers changes with it; its first lines are what is revealed).
    const flat = snippet.replace(/\s+/g, ' ');
    const screen = async () =>
      (await page.locator('.editor-group-container .monaco-editor .view-lines').first().innerText())
        .replace(/\u00a0/g, ' ')
        .split('\n')
        .map((line) => line.replace(/\s+/g, ' ').trim())
        .filter((line) => line.length >= 10);
    // The editor opens, then scrolls to the passage: wait for the passage's lines to be on screen.
    await pollUntil(screen, (visible) => visible.filter((line) => flat.includes(line)).length >= 2, {
      timeoutMs: 30_000,
      what: `the cited passage (source ${cited}: ${snippet}) on screen`,
    });
    await session.screenshot('cited passage opened');

    // "No grounding" is one click away; the local model then says so in a sentence, with buttons.
    await session.runCommand(commandTitle('docchat.chat.open'));
    await chat.locator('.store-select').selectOption('');
    const ungrounded = await askInChat(chatOf(page), 'What does npm test run?');
    await answerDone(chatOf(page), ungrounded);
    assert.match(await ungrounded.locator('.markdown-body').innerText(), /not grounded in a vector store/);
    const buttons = await ungrounded.locator('.next-steps button').allInnerTexts();
    assert.deepEqual(
      buttons.map((b) => b.trim()),
      ['Choose a Store', 'Attach Files', 'Use a Language Model…'],
    );
    await session.screenshot('answer without sources offers the ways forward');
    await ungrounded.locator('.next-steps .action-chooseStore').click();
    // The picker takes several stores: tick demo, then accept.
    await quickInput(page).locator('.monaco-list-row', { hasText: 'demo' }).first().click({ timeout: 60_000 });
    await quickInput(page).locator('input.input').press('Enter');
    await chat.locator('.store-select option:checked', { hasText: 'demo' }).waitFor({ state: 'attached', timeout: 30_000 });
  });

  it('checks the steps already done when the walkthrough opens after them: connected, and the demo store exists', async function () {
    session = await launchVSCode({ name: this.test!.fullTitle(), prepare: ({ userDataDir }) => seedDemoStore(userDataDir) });
    const page = session.page;
    await showDemoStore(session);
    // DocChat is connected and shows the demo store before the walkthrough is first opened.
    await session.runCommand(commandTitle('docchat.openWalkthrough'));
    await walkthroughStep(page, 'attach').waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('walkthrough opened after connecting, with the demo store');
    await stepChecked(page, 'connect');
    await stepChecked(page, 'createStore');
    // Nothing was attached yet: that step is still to do.
    assert.equal(await walkthroughStep(page, 'attach').getAttribute('aria-checked'), 'false');
    await session.screenshot('steps already done are checked');
  });

  it('opens the walkthrough on first start and checks its steps as the user acts', async function () {
    session = await launchVSCode({
      name: this.test!.fullTitle(),
      settings: { 'workbench.welcomePage.walkthroughs.openOnInstall': true },
      workspaceFiles: { 'notes.md': '# Notes\n\nThe release train leaves every second Tuesday.\n' },
    });
    const page = session.page;
    const walkthrough = walkthroughOf(page);
    await walkthrough
      .locator('.getting-started-category', { hasText: 'Get Started with DocChat' })
      .or(walkthrough.locator('h2', { hasText: 'Get Started with DocChat' }))
      .first()
      .waitFor({ state: 'visible', timeout: 120_000 });
    await session.screenshot('walkthrough on first start');
    const step = (id: string) => walkthroughStep(page, id);
    const checked = (id: string) => stepChecked(page, id);

    await checked('connect'); // Local mode is ready
    assert.equal(await step('createStore').getAttribute('aria-checked'), 'false');

    await step('createStore').click();
    await step('createStore').locator('.monaco-button', { hasText: 'Create Vector Store' }).click();
    const input = quickInput(page).locator('input.input');
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill('notes');
    // The name box can take a moment to accept Enter while the walkthrough keeps focus: press it
    // again until the metadata list replaces the box.
    const createItem = quickInput(page).locator('.monaco-list-row', { hasText: 'Create "notes"' }).first();
    for (let attempt = 0; attempt < 3 && !(await createItem.isVisible()); attempt++) {
      await input.press('Enter');
      await createItem.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => undefined);
    }
    await createItem.click({ timeout: 30_000 });
    await checked('createStore');
    await session.screenshot('store created, step checked');

    await page.keyboard.press('Control+P');
    await quickInput(page).locator('input.input').fill('notes.md');
    await quickInput(page).locator('.monaco-list-row', { hasText: 'notes.md' }).first().click({ timeout: 30_000 });
    await page.locator('.tabs-container .tab.active', { hasText: 'notes.md' }).waitFor({ state: 'visible', timeout: 30_000 });
    await session.runCommand(commandTitle('docchat.attachCurrentFile'));
    await quickInput(page).locator('.monaco-list-row', { hasText: 'notes' }).first().click({ timeout: 30_000 });
    const storeRow = session.viewPane('Vector Stores').locator('.monaco-list-row', { hasText: 'notes' }).first();
    if ((await storeRow.getAttribute('aria-expanded')) !== 'true') await storeRow.click();
    await session
      .viewPane('Vector Stores')
      .locator('.monaco-list-row', { hasText: 'notes.md' })
      .locator('.codicon-check')
      .waitFor({ state: 'visible', timeout: 120_000 });
    // Back to the walkthrough (its tab is "Welcome" in VS Code 1.139, "Walkthrough: …" before).
    await session.runCommand(commandTitle('docchat.openWalkthrough'));
    await checked('attach');

    // The step's Open Chat opens the chat in the walkthrough's group, which keeps the walkthrough as
    // a tab: no new column beside it (with VS Code's Chat view open, a third one).
    await step('ask').click();
    await step('ask').locator('.monaco-button', { hasText: 'Open Chat' }).click();
    const tabsByGroup = () => editorTabsByGroup(page);
    const groups = await pollUntil(tabsByGroup, (all) => all.flat().includes('DocChat (active)'), {
      what: 'the chat opened from the walkthrough',
      timeoutMs: 60_000,
    });
    await chatOf(page).locator('textarea.composer-input').waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('chat opened from the walkthrough, in its group');
    assert.equal(groups.length, 1, `one editor group: ${JSON.stringify(groups)}`);
    // The walkthrough's tab is "Welcome" in VS Code 1.139, "Walkthrough: …" before.
    assert.ok(
      groups[0]!.some((t) => /^(Welcome|Walkthrough)\b/.test(t)),
      `the walkthrough stays a tab beside the chat: ${JSON.stringify(groups)}`,
    );
    const answer = await askInChat(chatOf(page), 'When does the release train leave?');
    await answerDone(chatOf(page), answer);
    assert.ok((await answer.locator('.markdown-body a.citation').count()) >= 1, 'the answer cites notes.md');
    await session.runCommand(commandTitle('docchat.openWalkthrough'));
    await checked('ask');
    await session.screenshot('walkthrough after the first answer');
  });

  it('"Use a Language Model…" finds a model server on this machine; its models join the picker and answer', async function () {
    const MODEL = 'e2e-local-llama';
    modelServer = await ScriptServer.start();
    modelServer.on('GET', '/v1/models', (_req, res) =>
      sendJson(res, 200, {
        object: 'list',
        data: [
          { id: MODEL, object: 'model', owned_by: 'e2e' },
          { id: 'e2e-embed', object: 'model' },
        ],
      }),
    );
    modelServer.on('POST', '/v1/chat/completions', (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const words = ['Hello ', 'from ', 'the ', 'local ', `${req.json?.model}.`];
      res.end(
        `${words.map((w) => `data: ${JSON.stringify(chatChunk(w))}\n\n`).join('')}data: ${JSON.stringify(chatChunk(undefined, { finish_reason: 'stop' }))}\n\ndata: [DONE]\n\n`,
      );
    });
    const port = new URL(modelServer.url).port;
    session = await launchVSCode({ name: this.test!.fullTitle(), env: { DOCCHAT_MODEL_SERVER_PORTS: port } });
    const page = session.page;
    await session.openView();
    await page.locator('.statusbar', { hasText: 'DocChat: Local' }).waitFor({ state: 'visible', timeout: 120_000 });

    await session.runCommand(commandTitle('docchat.local.useLanguageModel'));
    const item = quickInput(page).locator('.monaco-list-row', { hasText: MODEL });
    await item.first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(
      await quickInput(page).locator('.monaco-list-row', { hasText: 'e2e-embed' }).count(),
      0,
      'embedding models are not offered for chat',
    );
    await session.screenshot('model server found');
    await item.first().click();
    await session.waitForOutput(new RegExp(`Local mode forwards chat to http://127\\.0\\.0\\.1:${port}/v1`), 120_000);

    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = chatOf(page);
    await chat.locator(`.model-select option[value="${MODEL}"]`).waitFor({ state: 'attached', timeout: 60_000 });
    const models = await chat.locator('.model-select option').allInnerTexts();
    assert.ok(models.includes('local-extractive'), JSON.stringify(models));
    assert.equal(await chat.locator('.model-select').inputValue(), MODEL, 'the chosen model is the default of new chats');
    await session.screenshot('model picker lists the server models');

    const answer = await askInChat(chatOf(page), 'Say hello.');
    await answerDone(chatOf(page), answer);
    assert.match(await answer.locator('.markdown-body').innerText(), new RegExp(`Hello from the local ${MODEL}`));
    const call = modelServer.requests.find((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    assert.equal(call?.json?.model, MODEL);
    await session.screenshot('answer from the model server');
  });
});
