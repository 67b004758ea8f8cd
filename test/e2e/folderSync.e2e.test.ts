import * as assert from 'node:assert/strict';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  pickQuickItem,
  runContextMenu,
  commandLabel,
  captureFailures,
  launchVSCode,
  pollUntil,
  startBackendProcess,
  waitForWorkbench,
  type BackendProcess,
  type VSCodeSession,
  openStoreSearch,
  notificationTexts,
} from '../support/harness';
import { CountingProxy } from '../support/servers/countingProxy';
import { makeDocx, makePdf } from '../unit/backend/helpers';

// Folder sync in a real VS Code against the embedded backend behind a counting proxy: plan and
// sync a 50-file folder, re-sync exactly what changed, resume after a window reload without
// sending anything twice, Explorer badges, the watch, and passages of two files of the same name.

const STORE = 'handbook-sync';
const BULK_STORE = 'bulk-sync';
const UPLOAD = 'POST /v1/files';
const ATTACH = 'POST /v1/vector_stores/:id/files';
const DETACH = 'DELETE /v1/vector_stores/:id/files/:id';

interface StoreFile {
  id: string;
  status: string;
  metadata?: Record<string, string>;
}

const quickInput = (page: Page) => page.locator('.quick-input-widget');

function explorerRow(page: Page, name: string): Locator {
  return page.locator('.explorer-folders-view .monaco-list-row', {
    has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }),
  });
}

/** The workspace: 51 files in handbook/ (one ignored by .gitignore, one of a type DocChat cannot convert), 24 in bulk/, 2 in fresh/. */
async function workspaceFiles(): Promise<Record<string, string | Uint8Array>> {
  const files: Record<string, string | Uint8Array> = { '.gitignore': 'handbook/drafts/\n' };
  for (let i = 0; i < 30; i++) {
    files[`handbook/notes/note-${String(i).padStart(2, '0')}.md`] = `# Note ${i}\n\nThe note number ${i} talks about topic ${i * 7}.\n`;
  }
  for (let i = 0; i < 15; i++) {
    files[`handbook/text/t-${String(i).padStart(2, '0')}.txt`] = `Plain text file ${i} about subject ${i * 11}.\n`;
  }
  files['handbook/guide.pdf'] = makePdf([{ lines: ['Expense policy', 'Receipts are due within thirty days.'] }]);
  files['handbook/travel.docx'] = await makeDocx({
    heading: 'Travel policy',
    paragraphs: ['Book trains when the trip is under four hours.'],
  });
  const shared = '# Shared rules\n\nThe lemon tree in the hall is watered on Fridays by whoever arrives first.\n';
  files['handbook/team/README.md'] = shared;
  files['handbook/ops/README.md'] = shared;
  files['handbook/drafts/wip.md'] = '# Not ready\n';
  files['handbook/recording.mp3'] = new Uint8Array([0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0]);
  for (let i = 0; i < 24; i++) files[`bulk/b-${String(i).padStart(2, '0')}.md`] = `# Bulk ${i}\n\nBulk file ${i}.\n`;
  files['fresh/alpha.md'] = '# Alpha\n\nThe alpha release ships on Mondays.\n';
  files['fresh/beta.md'] = '# Beta\n\nThe beta channel is updated nightly.\n';
  return files;
}

describe('Folder sync (e2e)', function () {
  this.timeout(600_000);
  let backend: BackendProcess;
  let proxy: CountingProxy;
  let session: VSCodeSession;
  let storeId: string;

  /** Waits (bounded) until the store holds `expected` completed synced files; returns their paths. */
  async function waitForStore(id: string, expected: number): Promise<string[]> {
    const files = await pollUntil(
      async () => (await backend.request<{ data: StoreFile[] }>('GET', `/v1/vector_stores/${id}/files?limit=10000`)).data,
      (list) => list.length === expected && list.every((f) => f.status === 'completed' || f.status === 'failed'),
      { timeoutMs: 300_000, what: `the store holding ${expected} converted files` },
    );
    return files.map((f) => f.metadata?.docchat_path ?? '?').sort();
  }

  async function syncFromExplorer(folder: string, store: string): Promise<void> {
    await session.runCommand('View: Show Explorer');
    await runContextMenu(session.page, explorerRow(session.page, folder), commandLabel('docchat.sync.folder'));
    await pickQuickItem(session.page, store);
  }

  async function confirmPlan(expected: RegExp): Promise<string> {
    const dialog = session.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 120_000 });
    const text = await dialog.innerText();
    assert.match(text, expected);
    await session.screenshot('plan');
    await dialog.locator('.monaco-button', { hasText: /^Sync$/ }).click();
    return text;
  }

  before(async function () {
    backend = await startBackendProcess({ token: 'sync-e2e-token', args: ['--no-rate-limits'] });
    proxy = await CountingProxy.start(backend.url);
    storeId = (await backend.request<{ id: string }>('POST', '/v1/vector_stores', { name: STORE })).id;
    await backend.request('POST', '/v1/vector_stores', { name: BULK_STORE });
    session = await launchVSCode({
      name: 'folder sync',
      settings: { 'docchat.documents.url': proxy.url, 'docchat.sync.removeDeleted': 'always', 'docchat.attach.skipOcr': 'never' },
      workspaceFiles: await workspaceFiles(),
    });
    await session.openView();
    const pane = session.viewPane('Vector Stores');
    const setToken = pane.locator('.welcome-view-content .monaco-button', { hasText: /token/i });
    await setToken.first().waitFor({ state: 'visible', timeout: 90_000 });
    await setToken.first().click();
    await session.answerQuickInput(backend.token);
    await pane.locator('.monaco-list-row', { hasText: STORE }).first().waitFor({ state: 'visible', timeout: 60_000 });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
    await proxy?.close();
    await backend?.stop();
  });

  it('shows the plan of a 51-file folder, naming the file it cannot convert, and syncs it, leaving out the ignored file', async () => {
    await syncFromExplorer('handbook', STORE);
    const plan = await confirmPlan(/49 new, 0 changed, 0 removed, 0 unchanged, 1 left out/);
    assert.match(plan, /Left out:\s+handbook\/recording\.mp3 \(audio is not supported\)/);
    assert.doesNotMatch(plan, /wip\.md/);
    const paths = await waitForStore(storeId, 49);
    assert.ok(paths.includes('handbook/guide.pdf') && paths.includes('handbook/travel.docx'));
    assert.ok(!paths.some((p) => p.includes('drafts')), 'the ignored file stays out');
    assert.equal(proxy.count(UPLOAD), 49);
    assert.equal(proxy.count(ATTACH), 49);
    await session.screenshot('synced');
  });

  it('marks synced files in the Explorer', async () => {
    await explorerRow(session.page, 'handbook').first().click();
    const row = explorerRow(session.page, 'guide.pdf').first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    await session.page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('.explorer-folders-view .monaco-list-row')];
        const pdf = rows.find((r) => r.querySelector('.label-name')?.textContent === 'guide.pdf');
        return !!pdf && [pdf, ...pdf.querySelectorAll('*')].some((el) => getComputedStyle(el, '::after').content.includes('✓'));
      },
      undefined,
      { timeout: 60_000 },
    );
    await session.screenshot('explorer badges');
  });

  it('re-syncs exactly the 3 changed, 1 deleted and 2 added files', async () => {
    proxy.reset();
    const dir = path.join(session.workspaceDir, 'handbook');
    writeFileSync(path.join(dir, 'notes/note-00.md'), '# Note 0\n\nRewritten.\n');
    writeFileSync(path.join(dir, 'notes/note-01.md'), '# Note 1\n\nRewritten too.\n');
    writeFileSync(path.join(dir, 'text/t-00.txt'), 'Changed text.\n');
    unlinkSync(path.join(dir, 'text/t-14.txt'));
    writeFileSync(path.join(dir, 'notes/new-a.md'), '# New A\n');
    writeFileSync(path.join(dir, 'notes/new-b.md'), '# New B\n');
    const pane = session.viewPane('Vector Stores');
    await session.openView();
    const store = pane.locator('.monaco-list-row', { hasText: STORE }).first();
    if ((await store.getAttribute('aria-expanded')) !== 'true') await store.click();
    const follow = pane.locator('.monaco-list-row', { hasText: 'Follows' }).first();
    await follow.waitFor({ state: 'visible', timeout: 30_000 });
    await runContextMenu(session.page, follow, commandLabel('docchat.sync.now'));
    await proxy.until(DETACH, 4);
    const paths = await waitForStore(storeId, 50);
    assert.ok(paths.includes('handbook/notes/new-a.md') && !paths.includes('handbook/text/t-14.txt'));
    assert.equal(proxy.count(UPLOAD), 5, `uploads: ${proxy.uploads.join(', ')}`);
    assert.equal(proxy.count(ATTACH), 5);
    assert.equal(proxy.count(DETACH), 4, 'three replaced versions and one deleted file');
    assert.deepEqual([...proxy.uploads].sort(), ['new-a.md', 'new-b.md', 'note-00.md', 'note-01.md', 't-00.txt']);
    await session.screenshot('re-synced');
  });

  it('opens each passage of two same-named files with the same text at its own path', async () => {
    // Both README.md files hold the same text, so only the recorded path can tell them apart.
    const opened: string[] = [];
    for (const index of [0, 1]) {
      await session.runCommand('View: Close All Editors');
      await session.runCommand(`DocChat: ${commandLabel('docchat.search')}`);
      await openStoreSearch(session.page, STORE);
      await quickInput(session.page).locator('input.input').fill('lemon tree watered Fridays');
      const result = quickInput(session.page).locator('.monaco-list-row', { hasText: /score \d\.\d\d/ });
      await result.nth(1).waitFor({ state: 'visible', timeout: 30_000 });
      for (const row of [0, 1]) assert.match((await result.nth(row).innerText()).replace(/\u200b/g, ''), /README\.md/);
      // The first result is the active item; Down moves to the second. Enter opens it.
      const input = quickInput(session.page).locator('input.input');
      if (index === 1) await input.press('ArrowDown');
      await input.press('Enter');
      await session.page.locator('.tabs-container .tab.active', { hasText: 'README.md' }).waitFor({ state: 'visible', timeout: 30_000 });
      const breadcrumbs = session.page.locator('.breadcrumbs-control', { hasText: 'README.md' }).first();
      await breadcrumbs.waitFor({ state: 'visible', timeout: 15_000 });
      const folder = /handbook (ops|team) README\.md/.exec((await breadcrumbs.innerText()).replace(/\s+/g, ' '))?.[1];
      assert.ok(folder, `breadcrumbs: ${await breadcrumbs.innerText()}`);
      opened.push(folder);
    }
    assert.deepEqual(opened.sort(), ['ops', 'team'], 'each passage opened its own file');
    await session.screenshot('passage in the right README');
  });

  it('resumes a sync interrupted by a window reload without uploading or attaching any file twice', async () => {
    proxy.reset();
    // The 5th upload and the 9th attach reach the service, but their answers never come back.
    const uploadActed = proxy.holdAnswer(UPLOAD, 5);
    const attachActed = proxy.holdAnswer(ATTACH, 9);
    const bulkId = (await backend.request<{ data: { id: string; name: string }[] }>('GET', '/v1/vector_stores?limit=100')).data.find(
      (s) => s.name === BULK_STORE,
    )!.id;
    await syncFromExplorer('bulk', BULK_STORE);
    await confirmPlan(/24 new/);
    await Promise.all([uploadActed, attachActed]);
    await session.screenshot('sync waiting on a lost answer');
    // The reloaded window also reads docchat.sync.watch, for the next test.
    const settingsFile = path.join(session.userDataDir, 'User/settings.json');
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, 'utf8')), 'docchat.sync.watch': true }, null, 2));
    await session.runCommand('Developer: Reload Window');
    await waitForWorkbench(session.page);
    // DocChat activates on first use, not at startup: the user's next look at DocChat resumes the
    // interrupted sync (and starts watching the followed folders).
    await session.openView();
    const paths = await waitForStore(bulkId, 24);
    assert.equal(new Set(paths).size, 24, 'one store file per path');
    const uploads = proxy.uploads.filter((name) => name.startsWith('b-'));
    assert.equal(uploads.length, 24, `uploads: ${uploads.join(', ')}`);
    assert.equal(new Set(uploads).size, 24, 'no file was uploaded twice');
    assert.equal(new Set(proxy.attaches).size, proxy.attaches.length, 'no file was attached twice');
    assert.equal(proxy.attaches.length, 24);
    const files = (await backend.request<{ data: { id: string; filename: string }[] }>('GET', '/v1/files?limit=10000')).data;
    assert.equal(files.filter((f) => f.filename.startsWith('b-')).length, 24, 'no orphan upload is left');
    await session.screenshot('resumed after reload');
  });

  it('syncs a folder into a store created for it, with no "created" notification over the sync\'s progress', async () => {
    const before = (await notificationTexts(session.page)).length;
    await syncFromExplorer('fresh', 'Create Vector Store…');
    // The name box suggests the folder's name; the metadata step creates the store.
    await session.answerQuickInput('fresh');
    await pickQuickItem(session.page, 'Create "fresh"');
    await confirmPlan(/Sync "workspace\/fresh" to "fresh": 2 new/);
    const texts = await pollUntil(
      async () => (await notificationTexts(session.page)).slice(before),
      (shown) => shown.some((t) => t.includes('synced "workspace/fresh" to "fresh"')),
      { timeoutMs: 120_000, what: "the sync's summary naming the new store" },
    );
    await session.screenshot('synced into a new store');
    assert.deepEqual(
      texts.filter((t) => t.includes('created the vector store')),
      [],
      `no "created" toast covers the sync's progress and its Cancel button; shown: ${JSON.stringify(texts)}`,
    );
  });

  it('re-syncs a saved file of a watched folder', async () => {
    // The previous test turned docchat.sync.watch on before reloading the window.
    await session.waitForOutput(/Watching "workspace\/handbook" for saved/, 60_000);
    proxy.reset();
    await session.page.keyboard.press('Control+P');
    await quickInput(session.page).locator('input.input').fill('note-05.md');
    await pickQuickItem(session.page, 'note-05.md');
    await session.page.locator('.tabs-container .tab.active', { hasText: 'note-05.md' }).waitFor({ state: 'visible' });
    await session.page.locator('.editor-instance .view-lines').first().click();
    await session.page.keyboard.press('Control+End');
    await session.page.keyboard.type('\nSaved from the editor.\n');
    await session.page.keyboard.press('Control+S');
    await proxy.until(DETACH, 1);
    assert.deepEqual(proxy.uploads, ['note-05.md']);
    assert.equal(proxy.count(ATTACH), 1);
    assert.equal(proxy.count(DETACH), 1, 'the old version is removed once the new one completed');
  });
});
