import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import {
  captureFailures,
  closeQuickInput,
  commandTitle,
  launchVSCode,
  openWorkspaceFile,
  pickQuickItem,
  seedDemoStore,
  type VSCodeSession,
} from '../support/harness';

// "Search Vector Store…" typed at once, as people do: whatever they type once DocChat's search
// shows goes into it, never into the editor they came from, however many stores there are, and
// also when the search is the first use of DocChat in the window (it connects while it shows).

const STORE = 'demo';
const OTHER = 'handbook';
const NOTE = 'notes.md';
const NOTE_TEXT = 'My notes stay as they are.';
const QUERY = 'how do I attach a whole folder';

describe('Search typed at once (e2e, Local mode)', function () {
  let session: VSCodeSession;

  before(async function () {
    session = await launchVSCode({
      name: 'search typed at once',
      workspaceFiles: { [NOTE]: `${NOTE_TEXT}\n` },
      // The search is the first use of DocChat: Local mode's backend starts while it shows.
      useDocChat: false,
      prepare: ({ userDataDir }) => seedDemoStore(userDataDir),
    });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  /**
   * Runs "Search Vector Store…" from the command palette over the note's editor and types `text`
   * at once: the moment DocChat's first input shows, with no wait for anything else (the stores,
   * the search box). The palette's hop to the extension host is VS Code's own: while it lasts no
   * extension can hold the keys, so typing starts once DocChat's input is there.
   */
  async function searchTypedAtOnce(text: string): Promise<Locator> {
    const { page } = session;
    if (!(await page.locator('.tabs-container .tab.active', { hasText: NOTE }).isVisible())) await openWorkspaceFile(page, NOTE);
    await page.locator('.editor-instance .monaco-editor').first().click();
    const quick = page.locator('.quick-input-widget');
    await page.keyboard.press('F1');
    await quick.waitFor({ state: 'visible' });
    const title = commandTitle('docchat.search');
    await quick.locator('input.input').fill(`>${title}`);
    await quick
      .locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: title }) })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    await page.keyboard.press('Enter');
    const docChatInput = quick.locator('.quick-input-title', { hasText: /^DocChat: Search a Vector Store|^Search "/ });
    await docChatInput.waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.type(text);
    return quick;
  }

  /** The note's editor got no key: its text is as it was, and it is not modified. */
  async function assertNoteUnchanged(): Promise<void> {
    const lines = await session.page.locator('.editor-instance .monaco-editor .view-lines').first().innerText();
    assert.equal(lines.replace(/\s+/g, ' ').trim(), NOTE_TEXT);
    assert.equal(await session.page.locator('.tabs-container .tab.dirty').count(), 0, 'the note is not modified');
  }

  it('with one store, as the first use of DocChat: what is typed at once is searched in it, nothing asks which store, the editor gets no key', async () => {
    // Its commands are offered once VS Code has registered the extension (its activity bar icon).
    await session.page.locator('.part.activitybar .action-label[aria-label^="DocChat"]').first().waitFor({ timeout: 30_000 });
    const quick = await searchTypedAtOnce(QUERY);
    await quick.locator('.quick-input-title', { hasText: `Search "${STORE}"` }).waitFor({ state: 'visible', timeout: 30_000 });
    await quick
      .locator('.monaco-list-row', { hasText: /score \d\.\d\d/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await quick.locator('input.input').inputValue(), QUERY);
    assert.equal(await quick.locator('.codicon-database').count(), 0, 'no store to choose');
    await session.screenshot('one store typed at once');
    await session.waitForOutput(/DocChat is used in this window \(the command docchat\.search\): connecting/);
    await closeQuickInput(session.page);
    await assertNoteUnchanged();
  });

  it('with several stores: what is typed at once stays, each store offers to search for it, and Back returns to the stores', async () => {
    await session.runCommand(commandTitle('docchat.createStore'));
    const name = session.page.locator('.quick-input-widget input.input');
    await name.waitFor({ state: 'visible' });
    await name.fill(OTHER);
    await name.press('Enter');
    await pickQuickItem(session.page, `Create "${OTHER}"`);
    await session.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 30_000 });

    const quick = await searchTypedAtOnce(QUERY);
    const offer = quick.locator('.monaco-list-row', { hasText: `Search “${STORE}” for “${QUERY}”` });
    await offer.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await quick.locator('input.input').inputValue(), QUERY);
    assert.match(await quick.locator('.quick-input-title').innerText(), /DocChat: Search a Vector Store/);
    await session.screenshot('several stores typed at once');
    // Keyboard only: the offers follow the typed text; ArrowDown and Enter take the demo store's.
    await quick.locator('.monaco-list-row.focused', { hasText: /Search “/ }).waitFor({ state: 'visible' });
    for (let row = 0; !(await quick.locator('.monaco-list-row.focused', { hasText: `Search “${STORE}”` }).isVisible()); row++) {
      assert.ok(row < 2, 'the demo store is one of the two offers');
      await session.page.keyboard.press('ArrowDown');
    }
    await session.page.keyboard.press('Enter');
    await quick.locator('.quick-input-title', { hasText: `Search "${STORE}"` }).waitFor({ state: 'visible', timeout: 30_000 });
    await quick
      .locator('.monaco-list-row', { hasText: /score \d\.\d\d/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await quick.locator('input.input').inputValue(), QUERY);
    await session.screenshot('several stores searched');
    await quick.locator('.quick-input-titlebar .codicon-quick-input-back').click();
    await quick
      .locator('.monaco-list-row', { hasText: OTHER, has: session.page.locator('.codicon-database') })
      .waitFor({ state: 'visible' });
    await closeQuickInput(session.page);
    await assertNoteUnchanged();
  });
});
