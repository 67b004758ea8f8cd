import * as assert from 'node:assert/strict';
import { unlinkSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  answerDone,
  askInChat,
  captureFailures,
  chatPanel,
  commandLabel,
  commandTitle,
  launchVSCode,
  pickQuickItem,
  runContextMenu,
  seedDemoStore,
  treeRow,
  type VSCodeSession,
  openStoreSearch,
} from '../support/harness';
import { ScriptServer, sendJson } from '../support/servers/scriptServer';

// A folder the user has not trusted opens in Restricted Mode, and DocChat works there as
// `capabilities.untrustedWorkspaces` in package.json says: the view, search and the chat, with the
// services of the user settings (here Local mode). The folder's .vscode/settings.json names another
// server for every URL and the proxy, and turns on the two settings DocChat acts on by itself
// (`docchat.sync.watch`, `docchat.sync.removeDeleted: always`): that server never sees a request,
// and a file deleted from a synced folder is asked about, as the user settings' default says.

const STORE = 'demo';
const FILES = {
  'handbook/deploy-guide.md': '# Deploy guide\n\n## Rollback\n\nTo roll back a release, run the rollback pipeline with the previous tag.\n',
  'handbook/old-notes.md': '# Old notes\n\nThe staging cluster moved to the new region last spring.\n',
};

function explorerRow(page: Page, name: string): Locator {
  return page.locator('.explorer-folders-view .monaco-list-row', {
    has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }),
  });
}

describe('Restricted Mode: an untrusted folder (e2e, Local mode)', function () {
  let session: VSCodeSession;
  let trap: ScriptServer;

  before(async function () {
    trap = await ScriptServer.start();
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'CONNECT']) {
      trap.on(method, /.*/, (_r, res) => sendJson(res, 200, { object: 'list', data: [] }));
    }
    session = await launchVSCode({
      name: 'restricted mode',
      workspaceTrust: 'untrusted',
      workspaceFiles: {
        ...FILES,
        '.vscode/settings.json': JSON.stringify({
          'docchat.documents.url': trap.url,
          'docchat.gateway.url': trap.url,
          'docchat.network.proxy': trap.url,
          'docchat.network.allowInsecureHttp': true,
          'docchat.sync.watch': true,
          'docchat.sync.removeDeleted': 'always',
        }),
      },
      prepare: ({ userDataDir }) => seedDemoStore(userDataDir),
    });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await trap?.close();
  });

  it('opens the folder in Restricted Mode and shows the DocChat view in Local mode', async () => {
    await session.page.locator('.statusbar', { hasText: 'Restricted Mode' }).waitFor({ state: 'visible', timeout: 60_000 });
    await session.openView();
    await treeRow(session.viewPane('Vector Stores'), STORE).waitFor({ state: 'visible', timeout: 120_000 });
    await session.page.locator('.statusbar', { hasText: /DocChat: Local/ }).waitFor({ state: 'visible', timeout: 15_000 });
    await session.screenshot('view in restricted mode');
  });

  it('searches the store', async () => {
    await session.runCommand(commandTitle('docchat.search'));
    const quickInput = await openStoreSearch(session.page, STORE);
    await quickInput.locator('input.input').fill('npm test');
    const result = quickInput.locator('.monaco-list-row', { hasText: /score \d\.\d\d/ }).first();
    await result.waitFor({ state: 'visible', timeout: 60_000 });
    assert.match(await result.innerText(), /README\.md/);
    await session.screenshot('search in restricted mode');
    await session.closeQuickInput();
  });

  it('answers in the chat panel from the store, with its sources', async () => {
    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = chatPanel(session.page);
    await chat.locator('.store-select option:checked', { hasText: STORE }).waitFor({ state: 'attached', timeout: 60_000 });
    const answer = await askInChat(chat, 'What does npm test run?');
    await answerDone(chat, answer, 120_000);
    assert.match(await answer.locator('.markdown-body').innerText(), /npm test/);
    assert.match(await answer.locator('.sources .source').first().innerText(), /README\.md/);
    await session.screenshot('chat in restricted mode');
  });

  it("ignores the folder's docchat.sync.removeDeleted: a deleted file is asked about", async () => {
    const { page } = session;
    await session.runCommand('View: Show Explorer');
    await runContextMenu(page, explorerRow(page, 'handbook'), commandLabel('docchat.sync.folder'));
    await pickQuickItem(page, STORE);
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 120_000 });
    await dialog.locator('.monaco-button', { hasText: /^Sync$/ }).click();
    await explorerRow(page, 'handbook').first().click();
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('.explorer-folders-view .monaco-list-row')];
        const row = rows.find((r) => r.querySelector('.label-name')?.textContent === 'old-notes.md');
        return !!row && [row, ...row.querySelectorAll('*')].some((el) => getComputedStyle(el, '::after').content.includes('✓'));
      },
      undefined,
      { timeout: 120_000 },
    );

    unlinkSync(path.join(session.workspaceDir, 'handbook/old-notes.md'));
    await session.openView();
    const pane = session.viewPane('Vector Stores');
    const store = treeRow(pane, STORE).first();
    if ((await store.getAttribute('aria-expanded')) !== 'true') await store.click();
    const follow = pane.locator('.monaco-list-row', { hasText: 'Follows' }).first();
    await follow.waitFor({ state: 'visible', timeout: 30_000 });
    await runContextMenu(page, follow, commandLabel('docchat.sync.now'));
    // "ask", the default of the user settings: the folder's "always" would have removed it unasked.
    const question = page.locator('.notifications-toasts .notification-toast', { hasText: /were deleted\. Remove them from "demo" too\?/ });
    await question.waitFor({ state: 'visible', timeout: 120_000 });
    await session.screenshot('deleted file asked about');
    await question.locator('.monaco-button', { hasText: 'Keep Them' }).click();
  });

  it('never reached the server, nor the proxy, that the folder settings name', () => {
    assert.deepEqual(
      trap.requests.map((r) => `${r.method} ${r.path}`),
      [],
      'a workspace setting was used',
    );
  });
});
