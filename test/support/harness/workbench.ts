import type { Frame, FrameLocator, Locator, Page } from 'playwright-core';
import { commandLabel, commandTitle, manifest } from './manifest';

// Page-level helpers for the VS Code workbench. Selectors are DOM classes that VS Code 1.104 and
// the newest tested version share.

const QUICK_INPUT = '.quick-input-widget';

export async function waitForWorkbench(page: Page, timeoutMs = 90_000): Promise<void> {
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * Opens the command palette and runs the command whose label is exactly `title`. VS Code closes a
 * quick input when focus leaves it (a view or the secondary side bar opening as the window starts
 * up), so a palette that closes before the command is chosen is opened again, up to three times.
 */
export async function runCommand(page: Page, title: string): Promise<void> {
  const widget = page.locator(QUICK_INPUT);
  const row = widget.locator('.monaco-list-row').filter({
    has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
  });
  for (let attempt = 1; ; attempt++) {
    await closeQuickInput(page);
    await page.locator('.monaco-workbench').focus();
    await page.keyboard.press('F1');
    await widget.waitFor({ state: 'visible', timeout: 30_000 });
    const typed = await widget
      .locator('input.input')
      .fill(`>${title}`, { timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (!typed && attempt < 3 && !(await widget.isVisible())) continue; // closed before it was typed in
    // The row, or the palette closing under it, whichever comes first; neither in 30 s: the palette
    // is open and does not offer the command.
    await Promise.race([
      row.first().waitFor({ state: 'visible', timeout: 30_000 }),
      widget.waitFor({ state: 'hidden', timeout: 30_000 }),
    ]).catch(() => undefined);
    if (await row.first().isVisible()) {
      try {
        await row.first().click({ timeout: 10_000 });
        return;
      } catch (error) {
        if ((await widget.isVisible()) || attempt >= 3) throw error;
        continue; // the palette closed as it was clicked
      }
    }
    if (!(await widget.isVisible())) {
      if (attempt < 3) continue;
      throw new Error(`The command palette closed ${attempt} times before "${title}" could be chosen.`);
    }
    const offered = await widget.locator('.monaco-list-row .label-name').allInnerTexts();
    await closeQuickInput(page);
    throw new Error(`Command "${title}" is not in the command palette. Offered: ${JSON.stringify(offered)}`);
  }
}

/** Clicks the first row of the open quick pick that shows `text`, once it is there. */
export async function pickQuickItem(page: Page, text: string | RegExp): Promise<void> {
  const row = page.locator(QUICK_INPUT).locator('.monaco-list-row', { hasText: text });
  await row.first().waitFor({ state: 'visible', timeout: 30_000 });
  await row.first().click();
}

/**
 * After "Search Vector Store…": picks `store` when the list of stores shows (with one store it
 * does not: the search box opens at once), then waits for that store's search box.
 */
export async function openStoreSearch(page: Page, store: string): Promise<Locator> {
  const quick = page.locator(QUICK_INPUT);
  const searchBox = quick.locator('.quick-input-title', { hasText: `Search "${store}"` });
  // A store's row (its database icon), never a search result that names the store.
  const storeRow = quick.locator('.monaco-list-row', { hasText: store, has: page.locator('.codicon-database') }).first();
  await searchBox.or(storeRow).first().waitFor({ state: 'visible', timeout: 30_000 });
  if (!(await searchBox.isVisible())) await storeRow.click();
  await searchBox.waitFor({ state: 'visible', timeout: 30_000 });
  return quick;
}

/** Opens a workspace file by name with Quick Open; resolves once its tab is the active one. */
export async function openWorkspaceFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Control+P');
  await page.locator(QUICK_INPUT).waitFor({ state: 'visible' });
  await page.locator(QUICK_INPUT).locator('input.input').fill(name);
  await pickQuickItem(page, name);
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ state: 'visible', timeout: 20_000 });
}

/** The row of a tree view whose label is exactly `label`. */
export function treeRow(pane: Locator, label: string): Locator {
  return pane.locator('.monaco-list-row', { has: pane.page().locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
}

/** Types `value` into the open input box / quick pick and accepts it with Enter. */
export async function answerQuickInput(page: Page, value: string): Promise<void> {
  const widget = page.locator(QUICK_INPUT);
  await widget.waitFor({ state: 'visible', timeout: 30_000 });
  const input = widget.locator('input.input');
  await input.fill(value);
  await input.press('Enter');
}

export async function closeQuickInput(page: Page): Promise<void> {
  const widget = page.locator(QUICK_INPUT);
  if (await widget.isVisible()) {
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => undefined);
  }
}

/** Shows a view container of the activity bar (e.g. "DocChat") without toggling it closed. */
export async function openViewContainer(page: Page, title: string): Promise<Locator> {
  const tab = page.locator('.part.activitybar li.action-item').filter({
    has: page.locator(`.action-label[aria-label^="${title}"]`),
  });
  await tab.first().waitFor({ state: 'visible', timeout: 30_000 });
  if ((await tab.first().getAttribute('aria-selected')) !== 'true') await tab.first().click();
  await page.mouse.move(700, 450); // away from the activity bar, so no hover covers the view
  const sidebar = page.locator('.part.sidebar');
  await sidebar
    .locator('.composite.title')
    .filter({ hasText: new RegExp(title, 'i') })
    .waitFor({ state: 'visible', timeout: 15_000 });
  return sidebar;
}

/** The body of a view in the side bar, by the view's name (or the container's, for a lone view). */
export function viewPane(page: Page, viewName: string): Locator {
  return page
    .locator('.part.sidebar .pane')
    .filter({
      has: page.locator(`.pane-header[aria-label*="${viewName}" i]`),
    })
    .locator('.pane-body');
}

/** Visible tree rows of a view, as shown (label text). */
export async function treeItemLabels(pane: Locator): Promise<string[]> {
  return pane.locator('.monaco-list-row .label-name').allInnerTexts();
}

/**
 * Records the text of every notification the workbench shows, as a toast or in the notification
 * centre, from the page's load on: one that hides again, or that the notification centre takes
 * from the toasts, is still counted. Identical texts count once, as the workbench shows them once.
 * Installed in the browser context before the workbench loads (`BrowserContext.addInitScript`);
 * plain JavaScript source, because the test runner's compiler adds helpers to functions that do
 * not exist in the page.
 */
export const RECORD_NOTIFICATIONS_SCRIPT = `(() => {
  if (window.top !== window) return; // webview frames show no notifications
  const seen = (window.__docchatNotifications = []);
  const selector = '.notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message';
  const collect = () => {
    for (const message of document.querySelectorAll(selector)) {
      const text = (message.textContent || '').trim();
      if (text && !seen.includes(text)) seen.push(text);
    }
  };
  const start = () => {
    // Every batch of changes: the toasts' container itself is created with the first notification.
    new MutationObserver(collect).observe(document.body, { childList: true, subtree: true, characterData: true });
    collect();
  };
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
})();`;

/** Every notification text shown since the page loaded (see RECORD_NOTIFICATIONS_SCRIPT), in order of appearance. */
export async function notificationTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => [...((window as unknown as { __docchatNotifications?: string[] }).__docchatNotifications ?? [])]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Runs an item of a row's context menu (right click, then Enter on the hovered item; retried while the menu is slow). */
export async function runContextMenu(page: Page, row: Locator, item: string): Promise<void> {
  const entry = page.locator('.context-view .action-label', { hasText: item });
  for (let attempt = 0; attempt < 3; attempt++) {
    await row.first().click({ button: 'right' });
    try {
      await entry.first().waitFor({ state: 'visible', timeout: 10_000 });
      // Menu items run on Enter once hovered (a synthetic click only highlights them).
      await entry.first().hover();
      await page.keyboard.press('Enter');
      // A busy machine can take a while to close the menu; the command runs when it does.
      await entry.first().waitFor({ state: 'hidden', timeout: 15_000 });
      return;
    } catch {
      // The command ran and asks for confirmation: Escape would answer that dialog, not the menu.
      if (await page.locator('.monaco-dialog-box').isVisible()) return;
      await page.keyboard.press('Escape');
    }
  }
  throw new Error(`the context menu has no "${item}"`);
}

/** The chat panel's webview document (VS Code nests it in two iframes), once its composer is there. */
export async function chatWebviewFrame(page: Page, timeoutMs = 60_000): Promise<Frame> {
  const composer = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame').locator('#app .composer-input');
  await composer.waitFor({ state: 'attached', timeout: timeoutMs });
  const frame = await (await composer.elementHandle())?.ownerFrame();
  if (!frame) throw new Error('the chat webview has no document');
  return frame;
}

/** Each editor group's tab labels, left to right, the active tab of a group marked " (active)". */
export function editorTabsByGroup(page: Page): Promise<string[][]> {
  // While the window reloads there is no workbench to read: no groups yet.
  return page
    .locator('.editor-group-container')
    .evaluateAll((groups) =>
      groups.map((g) =>
        [...g.querySelectorAll('.tab')].map((t) => `${(t.textContent ?? '').trim()}${t.classList.contains('active') ? ' (active)' : ''}`),
      ),
    )
    .catch((error: unknown) => {
      if (/context was destroyed|navigat/i.test(String(error))) return [];
      throw error;
    });
}

/** The chat panel's webview document as a locator: it finds the panel again after a reload. */
export function chatPanel(page: Page): FrameLocator {
  // DocChat's own webview: the walkthrough's media is a webview of VS Code's.
  return page.frameLocator(`iframe.webview.ready[src*="extensionId=${manifest.publisher}.${manifest.name}"]`).frameLocator('#active-frame');
}

/** Sends `question` from the chat composer; resolves to the article of its answer (the conversation's next one). */
export async function askInChat(chat: Frame | FrameLocator, question: string, timeoutMs = 60_000): Promise<Locator> {
  const answers = chat.locator('article.assistant');
  const index = await answers.count();
  const input = chat.locator('textarea.composer-input');
  await input.click();
  await input.fill(question);
  await input.press('Enter');
  const answer = answers.nth(index);
  await answer.waitFor({ state: 'attached', timeout: timeoutMs });
  return answer;
}

/** Waits until `answer` is complete (Retry and Regenerate keep its position); fails at once, with its text, if it ends in an error. */
export async function answerDone(chat: Frame | FrameLocator, answer: Locator, timeoutMs = 90_000): Promise<void> {
  const ended = answer.and(chat.locator('article[data-status="done"], article[data-status="error"]'));
  await ended.waitFor({ timeout: timeoutMs });
  if ((await answer.getAttribute('data-status')) === 'error') {
    throw new Error(`the answer ended in an error: ${await answer.innerText()}`);
  }
}

/**
 * Runs a "Set …" secret command (`docchat.setDocumentsToken`, `docchat.setGatewayApiKey`) and types
 * `value` into its password box, once that box has replaced the closing command palette.
 */
export async function enterSecret(page: Page, command: string, value: string): Promise<void> {
  await runCommand(page, commandTitle(command));
  await page
    .locator(`${QUICK_INPUT} .quick-input-title`, { hasText: commandLabel(command) })
    .waitFor({ state: 'visible', timeout: 15_000 });
  await answerQuickInput(page, value);
}

/** Clicks Retry on `answer`'s inline error; resolves once the answer is being answered again. */
export async function retryAnswer(chat: Frame | FrameLocator, answer: Locator, timeoutMs = 60_000): Promise<void> {
  await answer.locator('.inline-error .action-retry').click();
  await answer.and(chat.locator('article:not([data-status="error"])')).waitFor({ timeout: timeoutMs });
}
