import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  answerDone,
  askInChat,
  captureFailures,
  chatPanel,
  commandTitle,
  launchVSCode,
  manifest,
  openWorkspaceFile,
  pickQuickItem,
  seedDemoStore,
  treeRow,
  type VSCodeSession,
  openStoreSearch,
} from '../support/harness';

// The everyday path in one window, short enough to run on every VS Code DocChat supports (`npm
// test` runs it on the oldest supported version as well): DocChat installed from the .vsix with
// VS Code's command line as a user installs it, the view shows the Local-mode demo store, the open
// file is attached to it, a search finds its passage, and the chat answers from it.

const GUIDE =
  '# Deploy guide\n\n## Rollback\n\nTo roll back a release, run the rollback pipeline with the previous tag and watch the canary dashboards.\n';
const STORE = 'demo';

describe('Smoke test: view, attach, search, chat (e2e, Local mode)', function () {
  let session: VSCodeSession;

  before(async function () {
    session = await launchVSCode({
      name: 'smoke test',
      installWithCommandLine: true,
      workspaceFiles: { 'docs/deploy-guide.md': GUIDE },
      prepare: ({ userDataDir }) => seedDemoStore(userDataDir),
    });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  it('is installed from the .vsix by the VS Code command line', () => {
    const [docChat] = session.extensions;
    assert.match(docChat!.source, /docchat\.vsix \(--install-extension\)$/);
    // VS Code's installer records what it installed; an unpacked copy would not be listed.
    const installed = JSON.parse(readFileSync(path.join(session.extensionsDir, 'extensions.json'), 'utf8')) as Array<{
      identifier: { id: string };
      version: string;
      relativeLocation: string;
    }>;
    const entry = installed.find((e) => e.identifier.id === docChat!.id);
    assert.ok(entry, `extensions.json lists ${docChat!.id}: ${JSON.stringify(installed)}`);
    assert.equal(entry.version, manifest.version);
    assert.equal(path.join(session.extensionsDir, entry.relativeLocation), docChat!.dir);
  });

  it('shows the demo store in the DocChat view', async () => {
    await session.openView();
    await treeRow(session.viewPane('Vector Stores'), STORE).waitFor({ state: 'visible', timeout: 120_000 });
    await session.page.locator('.statusbar', { hasText: /DocChat: Local/ }).waitFor({ state: 'visible', timeout: 15_000 });
    await session.screenshot('view with the demo store');
  });

  it('attaches the open file and shows it completed', async () => {
    await openWorkspaceFile(session.page, 'deploy-guide.md');
    await session.runCommand(commandTitle('docchat.attachCurrentFile'));
    await pickQuickItem(session.page, STORE);
    const pane = session.viewPane('Vector Stores');
    const store = treeRow(pane, STORE).first();
    if ((await store.getAttribute('aria-expanded')) !== 'true') await store.click();
    await treeRow(pane, 'deploy-guide.md').locator('.codicon-check').waitFor({ state: 'visible', timeout: 60_000 });
    await session.screenshot('file attached');
  });

  it('finds the passage with a search', async () => {
    await session.runCommand(commandTitle('docchat.search'));
    const quickInput = await openStoreSearch(session.page, STORE);
    await quickInput.locator('input.input').fill('rollback pipeline');
    const result = quickInput.locator('.monaco-list-row', { hasText: /score \d\.\d\d/ }).first();
    await result.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await result.innerText(), /deploy-guide\.md/);
    await session.screenshot('search result');
    await session.closeQuickInput();
  });

  it('answers a question in the chat panel, citing the attached file', async () => {
    await session.runCommand(commandTitle('docchat.chat.open'));
    const chat = chatPanel(session.page);
    await chat.locator('.store-select option:checked', { hasText: STORE }).waitFor({ state: 'attached', timeout: 60_000 });
    const answer = await askInChat(chat, 'How do I roll back a release?');
    await answerDone(chat, answer);
    const text = await answer.locator('.markdown-body').innerText();
    assert.match(text, /rollback pipeline/i, text);
    const sources = await answer.locator('.sources .source').allInnerTexts();
    assert.ok(
      sources.some((source) => source.includes('deploy-guide.md')),
      `the answer cites deploy-guide.md: ${sources.join(' | ')}`,
    );
    await session.screenshot('chat answer');
  });
});
