import * as assert from 'node:assert/strict';
import type { Frame, Locator } from 'playwright-core';
import {
  captureFailures,
  chatWebviewFrame,
  commandTitle,
  launchVSCode,
  pollUntil,
  seedDemoStore,
  type VSCodeSession,
} from '../support/harness';
import { shownItems } from '../../src/features/stores/quickPickFilter';

// The chat's store picker (Choose Vector Store for Chat…, a multi-select quick pick) as a user
// drives it in VS Code: filter text that matches no store says so, and a store's checkbox ticks
// with a mouse click as with Space.

const STORE = 'demo';
const CHOOSE = commandTitle('docchat.chat.chooseStore');

describe('Choose a Store for the chat (e2e, Local mode)', function () {
  let session: VSCodeSession;
  let chat: Frame;

  before(async function () {
    session = await launchVSCode({ name: 'choose a store', prepare: ({ userDataDir }) => seedDemoStore(userDataDir) });
    await session.runCommand(commandTitle('docchat.chat.open'));
    chat = await chatWebviewFrame(session.page);
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  const quick = () => session.page.locator('.quick-input-widget');
  const input = () => quick().locator('input.input');
  const title = () => quick().locator('.quick-input-title');
  const rows = () => quick().locator('.quick-input-list .monaco-list-row');
  const checkbox = (): Locator => rows().filter({ hasText: STORE }).first().locator('.monaco-checkbox');
  const titleText = () =>
    title()
      .innerText()
      .catch(() => '');
  const checked = async () => (await checkbox().getAttribute('aria-checked')) === 'true';

  async function openPicker(): Promise<void> {
    // Right after start VS Code may still be opening its own views (the secondary side bar), and
    // one that takes the focus closes a quick pick that has just opened, as it would a user's: the
    // command runs again while the picker is gone, until it lists the store.
    await pollUntil(
      async () => {
        if (!(await quick().isVisible())) await session.runCommand(CHOOSE);
        return rows().filter({ hasText: STORE }).count();
      },
      (count) => count > 0,
      { what: 'the store picker listing the store', timeoutMs: 60_000, intervalMs: 500 },
    );
  }

  async function waitForTitle(expected: string | RegExp, what: string): Promise<void> {
    await pollUntil(titleText, (text) => (typeof expected === 'string' ? text.trim() === expected : expected.test(text.trim())), {
      what,
      timeoutMs: 15_000,
    });
  }

  it('says that no store matches typed text, naming it, and how to list them again; text that matches (VS Code shows the store) says nothing of the kind', async () => {
    await openPicker();
    const normal = (await titleText()).trim();
    assert.match(normal, /Choose the Vector Stores/);
    const description = (await rows().first().locator('.label-description').innerText()).trim();
    await input().fill('zzz');
    await waitForTitle('No store matches “zzz”: clear the filter text to list every store', 'the no-match hint');
    assert.equal(await rows().count(), 0, 'VS Code shows no store for "zzz" either');
    await session.screenshot('no store matches');
    // DocChat works out "no store matches" with VS Code's filter rules: for each text, it says so
    // exactly when VS Code shows no store (a part of the name in any case, a wildcard, the
    // description, which the picker matches too, and texts that match nothing).
    const shown = [{ label: `$(database) ${STORE}`, description }];
    for (const text of ['DEM', 'd*o', 'de*x', 'dmo', description.slice(-5), 'files ·', 'database', ' zzz ']) {
      const matches = shownItems(shown, text, { matchOnDescription: true }).length;
      await input().fill(text);
      await waitForTitle(
        matches ? normal : `No store matches “${text.trim()}”: clear the filter text to list every store`,
        `the title for "${text}"`,
      );
      assert.equal(await rows().count(), matches, `VS Code shows ${matches} store(s) for "${text}"`);
    }
    await input().fill('zzz');
    await waitForTitle(/^No store matches “zzz”/, 'the no-match hint again');
    // Clearing the text brings the stores and the title back.
    await input().fill('');
    await waitForTitle(normal, 'the title once the text is cleared');
    await rows().filter({ hasText: STORE }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await input().press('Escape');
    await quick().waitFor({ state: 'hidden', timeout: 15_000 });
  });

  it('ticks a store with a mouse click on its checkbox, and it stays ticked; OK then chooses it', async () => {
    await openPicker();
    if (await checked()) {
      // The chat starts on the store: untick it and take no store, so that nothing is ticked next time.
      await checkbox().click();
      await pollUntil(checked, (on) => !on, { what: 'the store unticked by a click', timeoutMs: 15_000 });
      await input().press('Enter');
      await quick().waitFor({ state: 'hidden', timeout: 15_000 });
      await openPicker();
    }
    assert.equal(await checked(), false, 'nothing is ticked');
    // Enter with nothing ticked: the picker stays open and says how to tick a store.
    await input().press('Enter');
    await waitForTitle(/^Nothing is ticked/, 'the hint to tick a store');
    await checkbox().click();
    // The title comes back once DocChat has seen the store ticked: the box must still be ticked then.
    await waitForTitle(/Choose the Vector Stores/, "the picker's own title, once a store is ticked");
    await session.screenshot('ticked with the mouse');
    assert.equal(await checked(), true, 'the click ticked the store, and it stays ticked');
    // With the mouse still: OK chooses it. (Enter now would reach the focused checkbox, which VS
    // Code's checkbox takes as "toggle", not the picker's "accept".)
    await quick().locator('.quick-input-action .monaco-button', { hasText: /^OK$/ }).click();
    await quick().waitFor({ state: 'hidden', timeout: 15_000 });
    await pollUntil(
      () => chat.locator('.store-select').evaluate((select) => (select as HTMLSelectElement).selectedOptions[0]?.text ?? ''),
      (text) => text === STORE,
      { what: 'the ticked store chosen for the chat', timeoutMs: 30_000 },
    );
  });
});
