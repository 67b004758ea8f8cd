/**
 * `npm run docs:images`: the pictures of the README, taken from the real DocChat in the real VS Code
 * (code-server and Chromium, driven the way the end-to-end tests drive it: test/support/harness).
 * A fresh profile in Local mode and a small handbook workspace: the handbook folder is synced into
 * a new store, then the store's tree, a search, a grounded answer, VS Code's Chat view and the MCP
 * configuration are shown, each in the default theme the README shows it in. Writes
 * media/readme/<name>-<theme>.png; rerun it after a change to the UI and commit what changed.
 *
 *   npm run docs:images                  every picture
 *   npm run docs:images -- chat search   some of them (the handbook is synced first every time)
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import {
  answerDone,
  askInChat,
  chatPanel,
  closeQuickInput,
  commandLabel,
  commandTitle,
  launchVSCode,
  openWorkspaceFile,
  pickQuickItem,
  repoRoot,
  runContextMenu,
  treeRow,
  type VSCodeSession,
} from '../test/support/harness';

const OUT_DIR = path.join(repoRoot, 'media/readme');
const STORE = 'handbook';
/** Small enough to keep the pictures light, wide enough for the side bar, an editor and the chat. */
const VIEWPORT = { width: 1200, height: 720 };

type Theme = 'light' | 'dark';
/** VS Code's default light and dark themes, as the Color Theme picker describes them. */
const THEMES: Record<Theme, { label: RegExp; bodyClass: string }> = {
  light: { label: /Default Light/, bodyClass: 'vs' },
  dark: { label: /Default Dark/, bodyClass: 'vs-dark' },
};

const HANDBOOK: Record<string, string> = {
  'handbook/deploy-guide.md': `# Deploy guide

## Releasing

Releases leave from the \`main\` branch. Tag the commit (\`v2.4.0\`), and the release pipeline builds,
signs and publishes it to the staging environment first.

## Rollback

To roll back a release, run the rollback pipeline with the previous tag and watch the canary
dashboards for ten minutes. If error rates stay above 2 %, page the on-call engineer.

## Feature flags

New features ship dark behind a flag. Turn a flag on for 5 % of users first, then 50 %, then everyone.
`,
  'handbook/on-call.md': `# On-call

## Rotation

Each engineer is on call for one week, Monday 09:00 to Monday 09:00. Swap shifts in the rota
spreadsheet and tell the team channel.

## Paging

A page must be acknowledged within 15 minutes. Escalate to the secondary after 30 minutes without an
acknowledgement.

## After an incident

Write the incident review within two working days: timeline, impact, root cause, and follow-ups.
`,
  'handbook/onboarding.md': `# Onboarding

## First week

Get your laptop from IT, join the team channel and pair with your buddy on a small fix.

## Access

Request access to the build system, the staging environment and the dashboards through the service
portal. Production access comes after your first on-call shadow week.
`,
  'handbook/expenses.md': `# Expenses

Submit receipts within thirty days. Book trains when the trip is under four hours; flights need your
manager's approval.
`,
};

interface Shot {
  name: string;
  theme: Theme;
  take(session: VSCodeSession): Promise<void>;
}

let currentTheme: Theme | undefined;

async function useTheme(session: VSCodeSession, theme: Theme): Promise<void> {
  if (currentTheme === theme) return;
  await session.runCommand('Preferences: Color Theme');
  await pickQuickItem(session.page, THEMES[theme].label);
  await session.page.locator(`.monaco-workbench.${THEMES[theme].bodyClass}`).waitFor({ state: 'attached', timeout: 30_000 });
  currentTheme = theme;
}

/** Closes what a picture before left open: notifications, quick input, editors, the panel. */
async function tidy(session: VSCodeSession): Promise<void> {
  await closeQuickInput(session.page);
  await session.runCommand('Notifications: Clear All Notifications');
  await session.runCommand('View: Close All Editors');
  if (await session.page.locator('.part.auxiliarybar').isVisible()) await session.runCommand('View: Hide Secondary Side Bar');
}

function explorerRow(page: Page, name: string): Locator {
  return page.locator('.explorer-folders-view .monaco-list-row', {
    has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }),
  });
}

/** Creates the handbook store and syncs the handbook folder into it; resolves once every file is synced. */
async function syncHandbook(session: VSCodeSession): Promise<void> {
  const { page } = session;
  const pane = session.viewPane('Vector Stores');
  const create = pane.locator('.welcome-view-content .monaco-button', { hasText: 'Create Vector Store' });
  await create.waitFor({ state: 'visible', timeout: 120_000 });
  await create.click();
  await session.answerQuickInput(STORE);
  await pickQuickItem(page, `Create "${STORE}"`);
  await treeRow(pane, STORE).waitFor({ state: 'visible', timeout: 60_000 });

  await session.runCommand('View: Show Explorer');
  await runContextMenu(page, explorerRow(page, 'handbook'), commandLabel('docchat.sync.folder'));
  await pickQuickItem(page, STORE);
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 120_000 });
  await dialog.locator('.monaco-button', { hasText: /^Sync$/ }).click();
  await explorerRow(page, 'handbook').first().click();
  // Every file of the folder carries the synced badge (✓) once the sync is done.
  const names = Object.keys(HANDBOOK).map((file) => path.posix.basename(file));
  await page.waitForFunction(
    (expected) => {
      const rows = [...document.querySelectorAll('.explorer-folders-view .monaco-list-row')];
      return expected.every((name) => {
        const row = rows.find((r) => r.querySelector('.label-name')?.textContent === name);
        return !!row && [row, ...row.querySelectorAll('*')].some((el) => getComputedStyle(el, '::after').content.includes('✓'));
      });
    },
    names,
    { timeout: 180_000 },
  );
}

const SHOTS: Shot[] = [
  {
    name: 'sync',
    theme: 'dark',
    async take(session) {
      await session.runCommand('View: Show Explorer');
      await openWorkspaceFile(session.page, 'deploy-guide.md');
      await explorerRow(session.page, 'deploy-guide.md').first().hover();
    },
  },
  {
    name: 'stores',
    theme: 'light',
    async take(session) {
      await openWorkspaceFile(session.page, 'on-call.md');
      await session.openView();
      const pane = session.viewPane('Vector Stores');
      const store = treeRow(pane, STORE).first();
      if ((await store.getAttribute('aria-expanded')) !== 'true') await store.click();
      await treeRow(pane, 'deploy-guide.md').locator('.codicon-check').waitFor({ state: 'visible', timeout: 60_000 });
      await session.page.mouse.move(0, VIEWPORT.height - 1);
    },
  },
  {
    name: 'search',
    theme: 'light',
    async take(session) {
      await openWorkspaceFile(session.page, 'deploy-guide.md');
      await session.runCommand(commandTitle('docchat.search'));
      await pickQuickItem(session.page, STORE);
      const quickInput = session.page.locator('.quick-input-widget');
      await quickInput.locator('input.input').fill('roll back a release');
      await quickInput
        .locator('.monaco-list-row', { hasText: /score \d\.\d\d/ })
        .first()
        .waitFor({ state: 'visible', timeout: 60_000 });
    },
  },
  {
    name: 'chat',
    theme: 'dark',
    async take(session) {
      await openWorkspaceFile(session.page, 'deploy-guide.md');
      await session.runCommand(commandTitle('docchat.chat.open'));
      const chat = chatPanel(session.page);
      await chat.locator('.store-select option:checked', { hasText: STORE }).waitFor({ state: 'attached', timeout: 60_000 });
      const answer = await askInChat(chat, 'How do I roll back a release?');
      await answerDone(chat, answer);
      await answer.locator('.sources .source').first().waitFor({ state: 'visible' });
      await chat.locator('textarea.composer-input').blur();
    },
  },
  {
    name: 'mcp',
    theme: 'dark',
    async take(session) {
      const { page } = session;
      await session.runCommand(commandTitle('docchat.copyMcpConfiguration'));
      await pickQuickItem(page, /Claude Code/);
      await page.locator('.notifications-toasts .notification-toast', { hasText: /on the clipboard/ }).waitFor({ state: 'visible' });
      const json = await page.evaluate(() => navigator.clipboard.readText());
      if (!json.includes('mcp-server.js')) throw new Error(`the clipboard holds no MCP server configuration: ${json}`);
      // Where Claude Code reads it: the configuration, pasted into the workspace's .mcp.json.
      writeFileSync(path.join(session.workspaceDir, '.mcp.json'), json);
      await openWorkspaceFile(page, '.mcp.json');
      await page
        .locator('.editor-group-container .monaco-editor .view-lines', { hasText: 'mcp-server.js' })
        .first()
        .waitFor({ state: 'visible' });
      await session.runCommand('Notifications: Show Notifications');
      await page.locator('.notifications-center', { hasText: /on the clipboard/ }).waitFor({ state: 'visible' });
    },
  },
  {
    // @docchat in VS Code's Chat view, offering its commands. An answer there needs a language
    // model VS Code itself lets the Chat view use, which it offers only after a Copilot sign-in.
    name: 'chat-view',
    theme: 'light',
    async take(session) {
      const { page } = session;
      await openWorkspaceFile(page, 'deploy-guide.md');
      await session.runCommand('Chat: Open Chat');
      const input = page.locator('.interactive-input-part .monaco-editor').first();
      await input.waitFor({ state: 'visible', timeout: 30_000 });
      await input.click();
      await page.keyboard.type('@docchat /');
      await page
        .locator('.suggest-widget .monaco-list-row', { hasText: /search/ })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
    },
  },
];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const shots = wanted.length ? SHOTS.filter((s) => wanted.includes(s.name)) : SHOTS;
  const unknown = wanted.filter((name) => !SHOTS.some((s) => s.name === name));
  if (unknown.length) throw new Error(`no picture named ${unknown.join(', ')}; the pictures are ${SHOTS.map((s) => s.name).join(', ')}`);
  mkdirSync(OUT_DIR, { recursive: true });
  const session = await launchVSCode({
    name: 'docs images',
    viewport: VIEWPORT,
    workspaceFiles: HANDBOOK,
    settings: { 'docchat.sync.removeDeleted': 'never', 'chat.disableAIFeatures': false },
  });
  try {
    await syncHandbook(session);
    for (const shot of shots) {
      await tidy(session);
      await useTheme(session, shot.theme);
      await shot.take(session);
      const file = path.join(OUT_DIR, `${shot.name}-${shot.theme}.png`);
      writeFileSync(file, await session.page.screenshot());
      console.log(`[docs:images] ${path.relative(repoRoot, file)} (${Math.round(statSync(file).size / 1024)} KB)`);
    }
  } catch (error) {
    await session.screenshot('failed').then((file) => console.error(`[docs:images] the window when it failed: ${file}`));
    throw error;
  } finally {
    await session.close();
  }
}

main().catch((error: unknown) => {
  console.error(`[docs:images] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
