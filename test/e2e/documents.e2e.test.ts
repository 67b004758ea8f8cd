import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  openWorkspaceFile,
  pickQuickItem,
  treeRow,
  runContextMenu,
  commandLabel,
  commandTitle,
  captureFailures,
  launchVSCode,
  startBackendProcess,
  treeItemLabels,
  type BackendProcess,
  type VSCodeSession,
  openStoreSearch,
} from '../support/harness';

// The everyday documents workflow in a real VS Code against the embedded backend: create a store,
// attach the open file and watch it complete, set metadata and see it in the tooltip, search and
// open a passage. Plus the sign-in welcome of a configured remote service.

const STORES_VIEW = 'Vector Stores';
const STORE = 'e2e-handbook';

// A long first section pushes the "Rollback" passage well below line 1 of the file.
const FILLER = Array.from(
  { length: 40 },
  (_, i) => `Paragraph ${i + 1} of the background section describes the build system in general terms.`,
).join('\n\n');
const GUIDE = `# Deploy guide\n\n${FILLER}\n\n## Rollback\n\nTo roll back a release, run the rollback pipeline with the previous tag and watch the canary dashboards.\n`;
const ONCALL = 'On-call handbook. The pager rotation changes every Monday at noon; hand over open incidents in the channel.\n';

const quickInput = (page: Page) => page.locator('.quick-input-widget');

/**
 * Picks "Add pair…" and waits for the key=value box that replaces the list: typing before it is
 * shown would go into the list's filter and be lost.
 */
async function addPair(page: Page): Promise<void> {
  await pickQuickItem(page, 'Add pair…');
  await quickInput(page).locator('.quick-input-title', { hasText: 'add a pair' }).waitFor({ state: 'visible', timeout: 15_000 });
}

/** Waits until the input box's validation message says `expected` (it updates as you type). */
async function validationMessage(page: Page, expected: RegExp): Promise<string> {
  const message = quickInput(page).locator('.quick-input-message', { hasText: expected });
  await message.waitFor({ state: 'visible', timeout: 30_000 });
  return message.innerText();
}

/** Opens the search picker of the test store (through the store picker) and types a query. */
async function searchStore(session: VSCodeSession, query: string): Promise<void> {
  await session.runCommand(commandTitle('docchat.search'));
  await openStoreSearch(session.page, STORE);
  await quickInput(session.page).locator('input.input').fill(query);
}

async function hoverText(page: Page, target: Locator, expected: RegExp): Promise<string> {
  const hover = page.locator('.monaco-hover, .workbench-hover');
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.mouse.move(5, 5);
    await target.hover();
    try {
      await hover.filter({ hasText: expected }).first().waitFor({ state: 'visible', timeout: 10_000 });
      return hover.first().innerText();
    } catch {
      // The hover may not open on the first move; try again.
    }
  }
  throw new Error(`no hover matching ${expected}`);
}

describe('Documents workflow (e2e, Local mode)', function () {
  let session: VSCodeSession;
  let pane: Locator;

  before(async function () {
    session = await launchVSCode({
      name: 'documents workflow',
      settings: { 'docchat.attach.skipOcr': 'never', 'workbench.hover.delay': 200 },
      workspaceFiles: { 'docs/deploy-guide.md': GUIDE, 'docs/oncall.txt': ONCALL },
    });
    await session.openView();
    pane = session.viewPane(STORES_VIEW);
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  it('shows the empty-state welcome in Local mode and creates a store, validating the name as it is typed', async () => {
    const create = pane.locator('.welcome-view-content .monaco-button', { hasText: 'Create Vector Store' });
    await create.waitFor({ state: 'visible', timeout: 90_000 });
    await session.screenshot('local mode empty state');
    await session.page.locator('.statusbar', { hasText: /DocChat: Local/ }).waitFor({ state: 'visible', timeout: 15_000 });

    await create.click();
    const input = quickInput(session.page).locator('input.input');
    await input.waitFor({ state: 'visible' });
    await input.fill('bad name!');
    await validationMessage(session.page, /letters, digits, hyphens/);
    await session.screenshot('store name validation');
    await input.fill('x'.repeat(64));
    await validationMessage(session.page, /1 to 63 characters/);
    await input.fill(STORE);
    await input.press('Enter');
    // Optional metadata: the first item creates the store right away.
    await pickQuickItem(session.page, `Create "${STORE}"`);
    await treeRow(pane, STORE).waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('store created');
    assert.ok((await treeItemLabels(pane)).includes(STORE));
  });

  it('attaches the open file and shows it reaching "completed"', async () => {
    await openWorkspaceFile(session.page, 'deploy-guide.md');
    await session.runCommand(commandTitle('docchat.attachCurrentFile'));
    await pickQuickItem(session.page, STORE);
    const store = treeRow(pane, STORE);
    await store.waitFor({ state: 'visible' });
    if ((await store.first().getAttribute('aria-expanded')) !== 'true') await store.first().click();
    const file = treeRow(pane, 'deploy-guide.md');
    await file.waitFor({ state: 'visible', timeout: 30_000 });
    await file.locator('.codicon-check').waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('file attached and completed');
    await session.page
      .locator('.notification-list-item-message', { hasText: 'Attached "deploy-guide.md" to "e2e-handbook"' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });

    // A second file, for the virtual-document case below.
    await openWorkspaceFile(session.page, 'oncall.txt');
    await session.runCommand(commandTitle('docchat.attachCurrentFile'));
    await pickQuickItem(session.page, STORE);
    await treeRow(pane, 'oncall.txt').locator('.codicon-check').waitFor({ state: 'visible', timeout: 60_000 });
  });

  it('copies a store ID from the context menu', async () => {
    await session.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(session.url).origin });
    await runContextMenu(session.page, treeRow(pane, STORE), 'Copy ID');
    // Reads the clipboard once a frame until the copy lands (the command writes it asynchronously).
    let copied = '';
    for (const deadline = Date.now() + 15_000; !copied && Date.now() < deadline;) {
      copied = await session.page.evaluate(
        async () => (await navigator.clipboard.readText()) || new Promise<string>((resolve) => requestAnimationFrame(() => resolve(''))),
      );
    }
    assert.match(copied, /^vs_\w+$/);
    const tooltip = await hoverText(session.page, treeRow(pane, STORE).first(), /ID:/);
    assert.ok(tooltip.includes(copied), 'the copied ID is the one in the tooltip');
  });

  it('sets store-file metadata, refusing an entry over a limit without losing the others, and shows it in the tooltip', async () => {
    const file = treeRow(pane, 'deploy-guide.md');
    await runContextMenu(session.page, file, commandLabel('docchat.setStoreFileMetadata'));
    await addPair(session.page);
    const input = quickInput(session.page).locator('input.input');
    await input.fill('team=platform');
    await input.press('Enter');
    await addPair(session.page);
    await input.fill(`${'k'.repeat(65)}=too long`);
    await validationMessage(session.page, /Keys may be at most 64 characters \(this one has 65\)/);
    await session.screenshot('metadata key over the limit');
    await input.press('Enter'); // refused: the box stays open with the message
    await validationMessage(session.page, /at most 64 characters/);
    await input.fill('reviewed=2024-05');
    await input.press('Enter');
    const list = quickInput(session.page);
    await list.locator('.monaco-list-row', { hasText: 'team' }).waitFor({ state: 'visible' });
    await list.locator('.monaco-list-row', { hasText: 'reviewed' }).waitFor({ state: 'visible' });
    await session.screenshot('metadata editor with two pairs');
    await pickQuickItem(session.page, /^.*Save/);
    const text = await hoverText(session.page, file.first(), /platform/);
    assert.match(text, /team/);
    assert.match(text, /reviewed/);
    await session.screenshot('metadata in the tooltip');
  });

  it('searches as you type and opens the passage in the workspace file at its sentence that meets the query', async () => {
    await session.page.keyboard.press('Escape');
    await searchStore(session, 'rollback pipeline');
    const result = quickInput(session.page).locator('.monaco-list-row', { hasText: /score \d\.\d\d/ });
    await result.first().waitFor({ state: 'visible', timeout: 30_000 });
    const first = await result.first().innerText();
    assert.match(first, /deploy-guide\.md/, 'the first result is from deploy-guide.md');
    assert.doesNotMatch(first, /[\u200b-\u200f\u2060\ufeff]/, 'no invisible characters for screen readers to read');
    assert.match(first, /rollback/i, 'the snippet shows the match');
    await session.screenshot('search results');
    await result.first().click();
    await session.page.locator('.tabs-container .tab.active', { hasText: 'deploy-guide.md' }).waitFor({ state: 'visible' });
    // The cursor lands on the passage's sentence that meets the query, not at the passage's start
    // (its section's heading or a line of the filler before it).
    const line = GUIDE.split('\n').findIndex((text) => text.startsWith('To roll back')) + 1;
    const position = session.page.locator('.statusbar-item[id="status.editor.selection"]', { hasText: new RegExp(`Ln ${line},`) });
    await position.waitFor({ state: 'visible', timeout: 15_000 });
    await session.screenshot('passage in the workspace file');
  });

  it('adds a result to the chat and reveals its file in the tree from the result buttons', async () => {
    await session.runCommand('View: Close All Editors');
    await searchStore(session, 'canary dashboards');
    const result = quickInput(session.page)
      .locator('.monaco-list-row', { hasText: /score \d\.\d\d/ })
      .first();
    await result.waitFor({ state: 'visible', timeout: 30_000 });
    await result.hover();
    await result.locator('.action-label[aria-label="Add to Chat"]').click();
    await session.page.locator('.statusbar', { hasText: 'added to the chat' }).waitFor({ state: 'visible', timeout: 15_000 });
    // The chat opens with the passage as a chip above the composer; then it is closed.
    const chat = session.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await chat.locator('.pending-context .chip').first().waitFor({ state: 'visible', timeout: 30_000 });
    await session.screenshot('passage added to the chat');
    await session.runCommand('View: Close All Editors');

    await searchStore(session, 'canary dashboards');
    await result.waitFor({ state: 'visible', timeout: 30_000 });
    await result.hover();
    await result.locator('.action-label[aria-label="Reveal in Vector Stores"]').click();
    const row = treeRow(pane, 'deploy-guide.md').first();
    await session.page.waitForFunction(
      () => document.querySelector('.part.sidebar .monaco-list-row.selected[aria-label^="deploy-guide.md"]') !== null,
      undefined,
      { timeout: 15_000 },
    );
    assert.equal(await row.getAttribute('aria-selected'), 'true');
    await session.screenshot('result revealed in the tree');
  });

  it('opens a passage without a workspace file in a read-only docchat: document', async () => {
    rmSync(path.join(session.workspaceDir, 'docs/oncall.txt'));
    await session.runCommand('View: Close All Editors');
    await searchStore(session, 'pager rotation');
    const result = quickInput(session.page).locator('.monaco-list-row', { hasText: /score \d\.\d\d/ });
    await result.first().waitFor({ state: 'visible', timeout: 30_000 });
    await result.first().click();
    const tab = session.page.locator('.tabs-container .tab.active', { hasText: 'oncall.txt.md' });
    await tab.waitFor({ state: 'visible', timeout: 30_000 });
    const editor = session.page.locator('.editor-instance .monaco-editor').first();
    const editorText = await editor.locator('.view-lines').innerText();
    assert.match(editorText.replace(/\u00a0/g, ' '), /pager rotation/);
    await editor.locator('.view-lines').click();
    await session.page.keyboard.type('typed into the passage');
    // The editor handled the keys and refused them: VS Code says so next to the cursor. Only then is
    // the text read, so a writable document could not pass by being read before the typing landed.
    await editor.locator('.monaco-editor-overlaymessage', { hasText: /read-only/i }).waitFor({ state: 'visible', timeout: 15_000 });
    const after = await editor.locator('.view-lines').innerText();
    assert.equal(after, editorText, 'the passage document is read-only: the typing changed nothing');
    await session.screenshot('passage in a virtual document');
  });
});

describe('Sign-in welcome (e2e, remote documents service)', function () {
  let session: VSCodeSession | undefined;
  let backend: BackendProcess | undefined;

  after(async () => {
    await session?.close();
    await backend?.stop();
  });

  it('offers sign-in, takes the token in a password box, then shows the empty state', async function () {
    backend = await startBackendProcess({ token: 'e2e-welcome-token' });
    session = await launchVSCode({ name: 'sign-in welcome', settings: { 'docchat.documents.url': backend.url } });
    await session.openView();
    const pane = session.viewPane(STORES_VIEW);
    const signIn = pane.locator('.welcome-view-content .monaco-button', { hasText: 'Set Documents Token' });
    await signIn.waitFor({ state: 'visible', timeout: 90_000 });
    // The status bar follows the same connection change, but VS Code sends a status bar item's
    // text on a later turn than a context key: waited for, not read at once.
    await session.page.locator('.statusbar', { hasText: /DocChat: Signed out/ }).waitFor({ state: 'visible', timeout: 15_000 });
    await session.screenshot('signed out welcome');
    await signIn.click();
    const input = quickInput(session.page).locator('input.input');
    await input.waitFor({ state: 'visible' });
    assert.equal(await input.getAttribute('type'), 'password', 'the token is typed into a password box');
    await input.fill(backend.token);
    await input.press('Enter');
    await pane
      .locator('.welcome-view-content .monaco-button', { hasText: 'Create Vector Store' })
      .waitFor({ state: 'visible', timeout: 30_000 });
    const host = new URL(backend.url).host;
    await session.page
      .locator('.statusbar', { hasText: new RegExp(`DocChat: ${host.replace(/\./g, '\\.')}`) })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await session.screenshot('signed in, no stores yet');
  });
});
