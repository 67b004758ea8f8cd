import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  commandLabel,
  commandTitle,
  enterSecret,
  launchVSCode,
  manifest,
  newErrors,
  pollUntil,
  repoRoot,
  runCommand,
  runContextMenu,
  startBackendProcess,
  type BackendProcess,
  type VSCodeSession,
  openStoreSearch,
} from '../support/harness';

// What someone who has never seen DocChat meets in the first minutes, from the install `npm start`
// makes (the build copied as the .vsix's files), not only from the .vsix the other tests install.

/** `%key%` placeholders of package.nls.json left untranslated anywhere in the workbench's DOM. */
async function untranslatedKeys(page: Page): Promise<string[]> {
  const keys = new Set(Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8'))));
  const found = await page.evaluate(() => {
    const texts: string[] = [document.body.innerText];
    for (const element of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
      for (const attribute of ['aria-label', 'title', 'placeholder']) texts.push(element.getAttribute(attribute) ?? '');
    }
    return [...new Set(texts.join('\n').match(/%[\w.-]+%/g) ?? [])];
  });
  return found.filter((k) => keys.has(k.slice(1, -1)));
}

const STORES_VIEW = 'Vector Stores';
const STORE = 'demo'; // the store --seed-demo makes
// A long first section pushes the passage well below the top of the file.
const GUIDE = [
  '# Deploy guide',
  '',
  ...Array.from({ length: 30 }, (_, i) => `Step ${i + 1} of the preparation checks the build and the configuration.`),
  '',
  '## Rollback',
  '',
  'Roll back a failed release with the pipeline: run the rollback job and watch the canary dashboards.',
  '',
].join('\n');

function quickInput(page: Page): Locator {
  return page.locator('.quick-input-widget');
}

function treeRow(pane: Locator, label: string): Locator {
  return pane.locator('.monaco-list-row', { has: pane.page().locator('.label-name', { hasText: new RegExp(`^${label}$`) }) });
}

/** Answers a modal confirmation (VS Code's dialog) with its button `label`. */
async function confirmDialog(page: Page, label: string): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 15_000 });
  await dialog.locator('.monaco-button', { hasText: new RegExp(`^${label}$`) }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
}

/** Whole-line decorations an extension put in the visible editor (VS Code names their classes `ced-…`). */
function passageHighlight(page: Page): Locator {
  return page.locator('.editor-group-container.active .monaco-editor .view-overlays [class*="ced-"]');
}

/**
 * A documents service in front of the backend that forwards everything, and answers every DELETE
 * with 405 once `refuseDeletes` is set (a service without deletion).
 */
async function startRefusingProxy(target: string): Promise<{ url: string; refuseDeletes: boolean; close(): Promise<void> }> {
  const state = { refuseDeletes: false };
  const server = http.createServer((req, res) => {
    if (state.refuseDeletes && req.method === 'DELETE') {
      res.writeHead(405, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Method Not Allowed', type: 'invalid_request_error' } }));
      return;
    }
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

describe('a newcomer in npm start (e2e)', function () {
  let session: VSCodeSession | undefined;

  afterEach(async function () {
    const unexpected = session ? newErrors(session) : [];
    if (session && this.currentTest?.state === 'failed') {
      await session.screenshot('failure').catch(() => undefined);
      console.log(`DocChat output channel:\n${session.outputChannel()}`);
    }
    await session?.close();
    session = undefined;
    if (this.currentTest?.state === 'passed' && unexpected.length > 0) {
      throw new Error(`"${this.currentTest.title}" left errors behind:\n${unexpected.join('\n')}`);
    }
  });

  it('shows real text, no %key%, in the activity bar, the palette and the walkthrough', async function () {
    session = await launchVSCode({ name: this.test!.fullTitle(), installAsNpmStart: true, useDocChat: false });
    const { page } = session;
    const activityTitle = manifest.contributes.viewsContainers.activitybar[0].title as string;
    // DocChat's container, titled by its real name or by its untranslated key.
    const container = page.locator(
      `.part.activitybar .action-label[aria-label^="${activityTitle}"], .part.activitybar .action-label[aria-label*="%viewsContainers."]`,
    );
    await container.first().waitFor({ timeout: 30_000 });
    assert.deepEqual(await untranslatedKeys(page), [], 'the activity bar shows %key% strings');
    await session.openView();
    await session.screenshot('view');
    assert.deepEqual(await untranslatedKeys(page), [], 'the view shows %key% strings');

    // The palette lists DocChat's commands by their real titles.
    const openChat = commandTitle('docchat.chat.open');
    await page.locator('.monaco-workbench').focus();
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input.input').fill('>docchat');
    const rows = page.locator('.quick-input-widget .monaco-list-row .label-name');
    await rows.first().waitFor({ timeout: 15_000 });
    await session.screenshot('palette');
    assert.deepEqual(await untranslatedKeys(page), [], 'the palette shows %key% strings');
    await page.locator('.quick-input-widget input.input').fill(`>${openChat}`);
    await rows.filter({ hasText: openChat }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');

    await runCommand(page, commandTitle('docchat.openWalkthrough'));
    const walkthrough = page.locator('.gettingStartedContainer');
    const firstStep = manifest.contributes.walkthroughs[0].steps[0].title as string;
    await walkthrough.locator('.getting-started-step', { hasText: firstStep }).first().waitFor({ timeout: 30_000 });
    // A step's buttons come from its description's command links, which only the real text has.
    await pollUntil(
      () => walkthrough.locator('.getting-started-step.expanded .monaco-button').count(),
      (buttons) => buttons > 0,
      { what: 'the expanded walkthrough step shows its buttons' },
    );
    await session.screenshot('walkthrough');
    assert.deepEqual(await untranslatedKeys(page), [], 'the workbench shows %key% strings');
  });

  it('opens Settings from the signed-out message on the tab that lists the URL settings (Remote, in code-server)', async function () {
    session = await launchVSCode({ name: this.test!.fullTitle(), settings: { 'docchat.documents.url': 'http://127.0.0.1:9' } });
    const { page } = session;
    await session.openView();
    const pane = session.viewPane(STORES_VIEW);
    await pane.locator('.welcome-view-content a', { hasText: 'Documents URL setting' }).click();
    const editor = page.locator('.settings-editor');
    await editor.waitFor({ state: 'visible', timeout: 30_000 });
    await editor.locator('.setting-item', { hasText: 'Documents: Url' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('settings at the documents URL');
    assert.equal(await editor.locator('.no-results-message:visible').count(), 0, 'the settings editor says No Settings Found');
  });

  it('does not open the walkthrough over the chat a newcomer opened first; it opens with the view once the chat is closed', async function () {
    session = await launchVSCode({
      name: this.test!.fullTitle(),
      settings: { 'workbench.welcomePage.walkthroughs.openOnInstall': true },
      useDocChat: false,
    });
    const { page } = session;
    // The walkthrough's tab is "Welcome" in VS Code 1.139 ("Walkthrough: …" before); no other
    // welcome page opens (the harness sets no startup editor).
    const walkthroughTab = page.locator('.tabs-container .tab', { hasText: /^\s*(Welcome|Walkthrough)/ });
    // DocChat's contributions are registered once its activity-bar item is there.
    await page.locator('.part.activitybar .action-label[aria-label^="DocChat"]').first().waitFor({ timeout: 30_000 });
    await runCommand(page, commandTitle('docchat.chat.open'));
    await page.locator('.tabs-container .tab.active', { hasText: 'DocChat' }).waitFor({ timeout: 30_000 });
    await session.openView();
    const pane = session.viewPane(STORES_VIEW);
    // DocChat is up and its view shows what it loaded: the walkthrough would have opened by now.
    await pane.getByText('No vector stores yet', { exact: false }).first().waitFor({ timeout: 60_000 });
    await session.screenshot('chat first');
    assert.equal(await walkthroughTab.count(), 0, 'the walkthrough opened over the chat');

    await runCommand(page, 'View: Close All Editors');
    await page.locator('.part.activitybar .action-label[aria-label^="Explorer"]').click();
    await session.openView();
    await walkthroughTab.first().waitFor({ timeout: 30_000 });
    await session.screenshot('walkthrough with the view');
  });

  describe('with a store of files', function () {
    let backend: BackendProcess | undefined;
    let proxy: Awaited<ReturnType<typeof startRefusingProxy>> | undefined;
    let seedDir: string;

    before(async function () {
      seedDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-newcomer-seed-'));
      writeFileSync(path.join(seedDir, 'deploy-guide.md'), GUIDE);
      for (const name of ['attempt-1.md', 'attempt-2.md', 'notes.md']) {
        writeFileSync(path.join(seedDir, name), `# ${name}\n\nA short note.\n`);
      }
      backend = await startBackendProcess({ token: 'newcomer-token', args: ['--no-rate-limits', '--seed-demo', seedDir] });
      proxy = await startRefusingProxy(backend.url);
    });

    after(async () => {
      await proxy?.close();
      await backend?.stop();
      rmSync(seedDir, { recursive: true, force: true });
    });

    async function start(name: string): Promise<{ page: Page; pane: Locator }> {
      session = await launchVSCode({
        name,
        settings: { 'docchat.documents.url': proxy!.url },
        workspaceFiles: { 'deploy-guide.md': GUIDE },
        // Long enough that only an edit or Escape can have cleared a highlight.
        env: { DOCCHAT_PASSAGE_HIGHLIGHT_MS: '600000' },
      });
      await enterSecret(session.page, 'docchat.setDocumentsToken', backend!.token);
      const pane = session.viewPane(STORES_VIEW);
      await treeRow(pane, STORE).first().click();
      await treeRow(pane, 'notes.md').first().waitFor({ timeout: 60_000 });
      return { page: session.page, pane };
    }

    it('saves a typed key=value pair with Enter and confirms the save', async function () {
      const { page, pane } = await start(this.test!.fullTitle());
      await runContextMenu(page, treeRow(pane, 'deploy-guide.md'), commandLabel('docchat.setStoreFileMetadata'));
      const input = quickInput(page).locator('input.input');
      await input.waitFor({ state: 'visible' });
      await input.fill('project=falcon');
      await quickInput(page).locator('.monaco-list-row', { hasText: 'project=falcon' }).first().waitFor();
      await session!.screenshot('typed pair');
      await input.press('Enter');
      // The list comes back with the pair, Save first.
      await quickInput(page).locator('.monaco-list-row', { hasText: 'falcon' }).first().waitFor({ timeout: 15_000 });
      await session!.screenshot('pair added');
      await input.press('Enter');
      const storeId = (await backend!.request<{ data: Array<{ id: string }> }>('GET', '/v1/vector_stores')).data[0]!.id;
      await pollUntil(
        () => backend!.request<{ data: Array<{ metadata?: Record<string, string> }> }>('GET', `/v1/vector_stores/${storeId}/files`),
        (files) => files.data.some((f) => f.metadata?.project === 'falcon'),
        { what: 'the typed pair is saved', timeoutMs: 30_000 },
      );
      // The confirmation: a toast, or (once it has timed out) the notification centre.
      await runCommand(page, 'Notifications: Show Notifications');
      await page
        .locator('.notifications-center .notification-list-item-message', { hasText: /saved \d+ metadata pairs of "deploy-guide\.md"/ })
        .first()
        .waitFor({ timeout: 15_000 });
      await session!.screenshot('save confirmed');
    });

    it('clears the passage highlight with Escape and with an edit', async function () {
      const { page } = await start(this.test!.fullTitle());
      const openPassage = async () => {
        await runCommand(page, commandTitle('docchat.search'));
        await openStoreSearch(page, STORE);
        await quickInput(page).locator('input.input').fill('rollback canary dashboards');
        const result = quickInput(page).locator('.monaco-list-row', { hasText: 'deploy-guide.md' });
        await result.first().waitFor({ timeout: 30_000 });
        await result.first().click();
        await page.locator('.tabs-container .tab.active', { hasText: 'deploy-guide.md' }).waitFor();
        await passageHighlight(page).first().waitFor({ timeout: 15_000 });
      };
      await openPassage();
      await session!.screenshot('passage highlighted');
      await page.keyboard.press('Escape');
      await passageHighlight(page).first().waitFor({ state: 'detached', timeout: 15_000 });
      await session!.screenshot('after Escape');

      await openPassage();
      await page.keyboard.type('x');
      await passageHighlight(page).first().waitFor({ state: 'detached', timeout: 15_000 });
      await session!.screenshot('after an edit');
    });

    it('removes a file from the store (with Undo), deletes a file and the store, each confirmed; a service that answers 405 gets the sentence', async function () {
      const { page, pane } = await start(this.test!.fullTitle());
      await runContextMenu(page, treeRow(pane, 'attempt-1.md'), commandLabel('docchat.removeFromStore'));
      await session!.screenshot('remove confirmation');
      await confirmDialog(page, 'Remove');
      await treeRow(pane, 'attempt-1.md').first().waitFor({ state: 'detached', timeout: 15_000 });
      const removed = page.locator('.notification-toast', { hasText: 'removed "attempt-1.md"' });
      await removed.first().waitFor({ timeout: 15_000 });
      await session!.screenshot('removed, with Undo');
      await removed.first().locator('.monaco-button', { hasText: 'Undo' }).click();
      await treeRow(pane, 'attempt-1.md').first().waitFor({ timeout: 30_000 });
      // Attached again, it converts again: wait until the tree shows it done, or the refresh that
      // shows it would close the next row's context menu without running its command.
      await treeRow(pane, 'attempt-1.md').first().locator('.codicon-check').waitFor({ state: 'visible', timeout: 60_000 });

      await runContextMenu(page, treeRow(pane, 'attempt-2.md'), commandLabel('docchat.deleteFile'));
      await confirmDialog(page, 'Delete File');
      await treeRow(pane, 'attempt-2.md').first().waitFor({ state: 'detached', timeout: 15_000 });
      const files = await backend!.request<{ data: Array<{ filename: string }> }>('GET', '/v1/files');
      assert.ok(!files.data.some((f) => f.filename === 'attempt-2.md'), 'the deleted file is still in the service');

      proxy!.refuseDeletes = true;
      await runContextMenu(page, treeRow(pane, 'notes.md'), commandLabel('docchat.removeFromStore'));
      await confirmDialog(page, 'Remove');
      await page.locator('.notification-toast', { hasText: 'this service does not support deletion' }).first().waitFor({ timeout: 15_000 });
      await session!.screenshot('service without deletion');
      assert.equal(await treeRow(pane, 'notes.md').count(), 1, 'the refused file left the tree');
      proxy!.refuseDeletes = false;

      await runContextMenu(page, treeRow(pane, STORE), commandLabel('docchat.deleteStore'));
      await confirmDialog(page, 'Delete Store');
      await treeRow(pane, STORE).first().waitFor({ state: 'detached', timeout: 15_000 });
      await session!.screenshot('store deleted');
      const stores = await backend!.request<{ data: unknown[] }>('GET', '/v1/vector_stores');
      assert.deepEqual(stores.data, []);
    });
  });
});
