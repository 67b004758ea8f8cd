import * as assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import {
  answerDone,
  askInChat,
  captureFailures,
  chatWebviewFrame,
  commandLabel,
  commandTitle,
  editorTabsByGroup,
  launchVSCode,
  notificationTexts,
  pickQuickItem,
  pollUntil,
  runContextMenu,
  seedDemoStore,
  treeRow,
  type VSCodeSession,
  waitForWorkbench,
} from '../support/harness';

// The first half hour of a newcomer in Local mode with the demo store: a question asked while
// DocChat still connects, the models and tools Local mode really has, the search quick pick, and
// stores created and deleted in the tree while the chat is open.

const STORE = 'demo';
const OTHER = 'handbook';

/** Answers a modal confirmation (VS Code's dialog) with its button `label`. */
async function confirmDialog(page: Page, label: string): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 15_000 });
  await dialog.locator('.monaco-button', { hasText: new RegExp(`^${label}$`) }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
}

describe('The first half hour: no dead ends (e2e, Local mode)', function () {
  let session: VSCodeSession;
  let chat: Frame;

  before(async function () {
    session = await launchVSCode({
      name: 'first half hour',
      // DocChat is not used before the chat opens: the first question comes while it connects.
      useDocChat: false,
      prepare: ({ userDataDir }) => seedDemoStore(userDataDir),
    });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  it('a question asked at once waits for the connection ("Connecting…") and is answered', async () => {
    // Its commands are offered once VS Code has registered the extension (its activity bar icon).
    await session.page.locator('.part.activitybar .action-label[aria-label^="DocChat"]').first().waitFor({ timeout: 30_000 });
    await session.runCommand(commandTitle('docchat.chat.open'));
    chat = await chatWebviewFrame(session.page);
    const answer = await askInChat(chat, 'How do I attach a whole folder?');
    await answerDone(chat, answer, 120_000);
    assert.doesNotMatch(await answer.innerText(), /still connecting/i);
    await session.screenshot('first question answered');
  });

  it('offers only the models Local mode serves, and no sampling options for local-extractive', async () => {
    // The models, then the way to more of them: the command Use a Language Model….
    const models = await chat.locator('.model-select optgroup[label="Chat completion models"] option').allInnerTexts();
    assert.deepEqual(models, ['local-extractive'], `offered: ${models.join(', ')}`);
    const options = await chat.locator('.model-select option').allInnerTexts();
    assert.deepEqual(options, ['local-extractive', 'Use a Language Model…'], `in the select: ${options.join(', ')}`);
    assert.equal(await chat.locator('.model-select optgroup[label^="Legacy"]').count(), 0);
    await chat.locator('button[aria-label="Conversation options"]').click();
    await chat.locator('.sampling-note').waitFor({ state: 'visible' });
    assert.equal(await chat.locator('input.temperature').isVisible(), false);
    assert.equal(await chat.locator('input.max-tokens').isVisible(), false);
    await session.screenshot('gear for local-extractive');
    await chat.locator('button[aria-label="Conversation options"]').click();
  });

  it('does not offer /web where Local mode has no web search', async () => {
    const input = chat.locator('textarea.composer-input');
    assert.doesNotMatch((await input.getAttribute('placeholder')) ?? '', /\/web/);
    await input.fill('/');
    await input.dispatchEvent('input');
    assert.equal(await chat.locator('.slash-commands').isVisible(), false);
    await input.fill('');
  });

  it('searches the only store without asking which one', async () => {
    await session.runCommand(commandTitle('docchat.search'));
    const quick = session.page.locator('.quick-input-widget');
    await quick.locator('.quick-input-title', { hasText: `Search "${STORE}"` }).waitFor({ state: 'visible', timeout: 30_000 });
    await quick.locator('.monaco-list-row', { hasText: 'Type to search' }).waitFor({ state: 'visible' });
    await session.closeQuickInput();
  });

  it('shows a store created in the tree in the chat at once, with a notice', async () => {
    await session.runCommand(commandTitle('docchat.createStore'));
    const input = session.page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible' });
    await input.fill(OTHER);
    await input.press('Enter');
    await pickQuickItem(session.page, `Create "${OTHER}"`);
    await chat.locator('.store-select option', { hasText: new RegExp(`^${OTHER}$`) }).waitFor({ state: 'attached', timeout: 30_000 });
    await pollUntil(
      () => notificationTexts(session.page),
      (texts) => texts.some((t) => t.includes(`created the vector store "${OTHER}"`)),
      { what: 'the notice of the new store' },
    );
  });

  it('carries text typed while the stores list shows into the search instead of filtering the list to nothing', async () => {
    await session.runCommand(commandTitle('docchat.search'));
    const quick = session.page.locator('.quick-input-widget');
    await quick.locator('.monaco-list-row', { hasText: OTHER }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await quick.locator('input.input').fill('folder sync');
    const offer = quick.locator('.monaco-list-row', { hasText: `Search “${STORE}” for “folder sync”` });
    await offer.waitFor({ state: 'visible', timeout: 15_000 });
    await session.screenshot('typed text carried');
    await offer.click();
    const searchBox = session.page.locator('.quick-input-widget');
    await searchBox.locator('.quick-input-title', { hasText: `Search "${STORE}"` }).waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await searchBox.locator('input.input').inputValue(), 'folder sync');
    await searchBox
      .locator('.monaco-list-row', { hasText: /score \d\.\d\d/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await session.closeQuickInput();
  });

  it('answers in a store with no files that it holds none, and Attach Files attaches to that store', async () => {
    await chat.locator('.store-select').selectOption({ label: OTHER });
    const answer = await askInChat(chat, 'How do I attach a whole folder?');
    await answer.locator('.markdown-body', { hasText: `“${OTHER}” holds no files yet` }).waitFor({ state: 'visible', timeout: 60_000 });
    await answer.locator('.next-steps .action-attachFiles').click();
    // VS Code's file dialog: its button names the store the files go to, without asking for one.
    const dialog = session.page.locator('.quick-input-widget');
    await dialog
      .locator('.quick-input-action .monaco-button', { hasText: `Attach to "${OTHER}"` })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('attach files to the chat store');
    await session.closeQuickInput();
  });

  it('says a deleted store is gone and offers Choose a Store, and no longer lists it', async () => {
    await chat.locator('.store-select').selectOption({ label: OTHER });
    const pane = session.viewPane('Vector Stores');
    await session.openView();
    await runContextMenu(session.page, treeRow(pane, OTHER), commandLabel('docchat.deleteStore'));
    // The store was created and nothing attached: the dialog says so and offers the store alone.
    const dialog = session.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await dialog.innerText(), /It holds no files\. The store cannot be restored\./);
    assert.equal(await dialog.locator('.monaco-button', { hasText: 'Delete Store and Its Files' }).count(), 0);
    await session.screenshot('deleting a store with no files');
    await confirmDialog(session.page, 'Delete Store');
    await session.runCommand(commandTitle('docchat.chat.open'));
    const gone = chat.locator('.store-gone');
    await gone.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await gone.innerText(), new RegExp(`“${OTHER}” no longer exists`));
    assert.deepEqual(
      await chat.locator('.store-select option', { hasText: new RegExp(`^${OTHER}$`) }).count(),
      0,
      'the deleted store is not offered as one to pick',
    );
    const answer = await askInChat(chat, 'How do I attach a whole folder?');
    const error = answer.locator('.inline-error');
    await error.waitFor({ state: 'visible', timeout: 30_000 });
    assert.deepEqual(await error.locator('button').allInnerTexts(), ['Choose a Store']);
    await pollUntil(
      () => notificationTexts(session.page),
      (texts) => texts.some((t) => t.includes(`deleted the vector store "${OTHER}"`)),
      { what: 'the notice of the deleted store' },
    );
    await session.screenshot('deleted store');
  });

  it('Choose a Store: Enter with no store ticked keeps the picker open and says how to tick one, instead of dropping the store', async () => {
    await chat.locator('.inline-error button', { hasText: 'Choose a Store' }).last().click();
    const quick = session.page.locator('.quick-input-widget');
    const input = quick.locator('input.input');
    // One store left, none ticked (the chat's store is gone), none highlighted.
    await quick.locator('.monaco-list-row', { hasText: STORE }).first().waitFor({ state: 'visible', timeout: 30_000 });
    // The user types to find the store (VS Code then hides the placeholder) and presses Enter.
    const typed = STORE.slice(0, 3);
    await input.fill(typed);
    await input.press('Enter');
    const hint = 'Nothing is ticked: press Down, then Space to tick a store, then Enter';
    const title = quick.locator('.quick-input-title');
    await pollUntil(
      () => title.innerText().catch(() => ''),
      (text) => text.trim() === hint,
      { what: 'the hint in the title, which typed text does not hide' },
    );
    assert.ok(await title.isVisible(), 'the hint is on screen with filter text typed');
    assert.equal(await input.inputValue(), typed, 'the typed text stays');
    const spoken = (await input.getAttribute('aria-label')) ?? '';
    assert.equal(spoken.split(hint).length - 1, 1, `a screen reader reads the hint once: "${spoken}"`);
    assert.ok(await quick.isVisible(), 'the picker stays open');
    assert.ok(await chat.locator('.store-gone').isVisible(), 'the chat still asks for a store: no "No grounding" chosen silently');
    await session.screenshot('choose a store, Enter with none ticked');
    // What the picker says works: Down, Space ticks the store, Enter chooses it for the chat.
    await session.page.keyboard.press('ArrowDown');
    await session.page.keyboard.press('Space');
    const checkbox = quick.locator('.monaco-list-row', { hasText: STORE }).first().locator('.monaco-checkbox');
    await checkbox.and(session.page.locator('[aria-checked="true"]')).waitFor({ state: 'visible', timeout: 15_000 });
    await session.page.keyboard.press('Enter');
    await quick.waitFor({ state: 'hidden', timeout: 15_000 });
    await chat.locator('.store-gone').waitFor({ state: 'hidden', timeout: 30_000 });
    assert.equal(await chat.locator('.store-select').evaluate((select) => (select as HTMLSelectElement).selectedOptions[0]?.text), STORE);
  });

  it("opens the citations of two answers beside the chat, in the first source's group, and the chat stays in view", async () => {
    // Only the chat is open, as after a first start.
    await session.runCommand('View: Close All Editors');
    await session.runCommand(commandTitle('docchat.chat.open'));
    chat = await chatWebviewFrame(session.page);
    const first = await askInChat(chat, 'How do I attach a whole folder?');
    await answerDone(chat, first, 120_000);
    const second = await askInChat(chat, 'How do I search a vector store?');
    await answerDone(chat, second, 120_000);
    const groups = session.page.locator('.editor-group-container');
    const chatGroup = groups.filter({ has: session.page.locator('.tab', { hasText: 'DocChat' }) });
    const sourceGroup = groups.filter({ hasNot: session.page.locator('.tab', { hasText: 'DocChat' }) });
    /** Where the source's editor put the cursor: at the quote a citation opened. */
    const cursor = () =>
      session.page
        .locator('.statusbar-item', { hasText: /^\s*Ln \d+, Col \d+/ })
        .first()
        .innerText()
        .catch(() => '');
    await first.locator('.markdown-body a.citation').first().click();
    await sourceGroup.locator('.tab.active').waitFor({ state: 'visible', timeout: 30_000 });
    const firstCursor = await pollUntil(cursor, (text) => text.length > 0, {
      timeoutMs: 30_000,
      what: 'the first source, beside the chat',
    });
    // Move the source's cursor off the quote (the two answers may quote the same sentence), so the
    // second citation's opening shows as the cursor coming back to a quote.
    await sourceGroup.locator('.monaco-editor .view-lines').first().click();
    await session.page.keyboard.press('Control+End');
    const movedCursor = await pollUntil(cursor, (text) => text.length > 0 && text !== firstCursor, {
      timeoutMs: 30_000,
      what: "the source's cursor at its end",
    });
    // A click into the other answer: the chat's group becomes the active one just as the source opens.
    await second.locator('.markdown-body a.citation').last().click();
    await pollUntil(
      async () => ({ inChatGroup: await chatGroup.locator('.tab').count(), cursor: await cursor() }),
      (state) => state.inChatGroup > 1 || (state.cursor.length > 0 && state.cursor !== movedCursor),
      { timeoutMs: 30_000, what: 'the second source shown' },
    );
    await session.screenshot('two citations opened beside the chat');
    assert.equal(await groups.count(), 2, 'no third group');
    assert.equal(await chatGroup.locator('.tab').count(), 1, "no source opened in the chat's group");
    assert.equal(await chatGroup.locator('.tab.active', { hasText: 'DocChat' }).count(), 1, 'the chat stays in view');
  });

  it('after a reload, Open Chat shows the chat in the tab it had behind another editor, not in a second DocChat tab', async () => {
    const { page } = session;
    await session.runCommand('View: Close All Editors');
    await session.runCommand(commandTitle('docchat.chat.open'));
    chat = await chatWebviewFrame(page);
    // Another editor in the chat's group hides the chat: VS Code restores its tab, not its webview.
    await session.runCommand('File: New Untitled Text File');
    const tabsByGroup = () => editorTabsByGroup(page);
    await pollUntil(tabsByGroup, (groups) => groups.length === 1 && groups[0]!.some((t) => /^Untitled-\d+ \(active\)$/.test(t)), {
      what: 'the untitled editor over the chat',
      timeoutMs: 30_000,
    });
    await session.runCommand('Developer: Reload Window');
    await waitForWorkbench(page);
    await pollUntil(tabsByGroup, (groups) => groups.flat().some((t) => /^DocChat\b/.test(t)), {
      what: "the chat's tab restored after the reload",
      timeoutMs: 90_000,
    });
    // DocChat is active again (its view lists the store) before its command is run from the palette.
    await session
      .viewPane('Vector Stores')
      .locator('.monaco-list-row', { hasText: 'demo' })
      .first()
      .waitFor({ state: 'visible', timeout: 90_000 });
    await session.runCommand(commandTitle('docchat.chat.open'));
    chat = await chatWebviewFrame(page, 90_000);
    const groups = await pollUntil(
      tabsByGroup,
      (all) => all.flat().filter((t) => /^DocChat\b/.test(t)).length === 1 && all.flat().includes('DocChat (active)'),
      {
        what: 'one DocChat tab, shown',
        timeoutMs: 30_000,
      },
    );
    await session.screenshot('chat reopened in its tab after a reload');
    assert.equal(groups.length, 1, `the chat stays in its group: ${JSON.stringify(groups)}`);
    const answer = await askInChat(chat, 'How do I search a vector store?');
    await answerDone(chat, answer, 120_000);
  });
});
