import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { captureFailures, launchVSCode, pollUntil, seedDemoStore, type VSCodeSession } from '../support/harness';

// `@docchat` in VS Code's own Chat view, in a window without GitHub Copilot (Local mode, the
// demo store). VS Code runs a Chat request only with a model picked in the Chat view's picker
// (without Copilot there is no default model, and the only mode is Agent, whose picker lists only
// models that take tools): DocChat's Local-mode model must be there, and once picked, @docchat
// answers instead of "Language model unavailable".

function chatInputToolbar(page: Page): Locator {
  return page.locator('.chat-input-toolbars');
}

/** The rows of the action widget (the model picker's dropdown) that is open. */
function pickerRows(page: Page): Locator {
  return page.locator('.action-widget .monaco-list-row');
}

describe("@docchat in VS Code's Chat view without Copilot (e2e, Local mode)", function () {
  let session: VSCodeSession;

  before(async function () {
    session = await launchVSCode({
      name: 'docchat in the chat view without copilot',
      // The harness turns VS Code's AI features off elsewhere; here they are what is tested.
      settings: { 'chat.disableAIFeatures': false },
      prepare: ({ userDataDir }) => seedDemoStore(userDataDir),
    });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  it("lists DocChat's local-extractive in the Chat view's model picker", async () => {
    const { page } = session;
    await session.openView();
    await session.runCommand('View: Toggle Chat');
    const toolbar = chatInputToolbar(page);
    await toolbar.waitFor({ state: 'visible', timeout: 60_000 });
    const picker = toolbar.locator('.model-picker-split .action-label, .model-picker-split').first();
    // The picker lists what DocChat describes once VS Code has asked it: opened again until it does.
    const local = pickerRows(page).filter({ hasText: 'local-extractive' });
    await pollUntil(
      async () => {
        await picker.click();
        await pickerRows(page).first().waitFor({ state: 'visible', timeout: 30_000 });
        if (await local.count()) return [];
        const rows = await pickerRows(page).allInnerTexts();
        await page.keyboard.press('Escape');
        await pickerRows(page).first().waitFor({ state: 'hidden', timeout: 30_000 });
        return rows;
      },
      (rows) => rows.length === 0,
      { what: 'local-extractive in the model picker', timeoutMs: 60_000, intervalMs: 1000 },
    );
    await session.screenshot('model picker with local-extractive');
    await local.first().click();
    await toolbar.filter({ hasText: 'local-extractive' }).waitFor({ state: 'visible', timeout: 15_000 });
  });

  it('@docchat answers with local-extractive and says so, instead of "Language model unavailable"', async () => {
    const { page } = session;
    const input = page.locator('.interactive-input-editor .monaco-editor').first();
    await input.click();
    await page.keyboard.type('@docchat How do I attach a whole folder?');
    await page.keyboard.press('Enter');
    const response = page.locator('.interactive-response').last();
    // The whole closing sentence: VS Code's Chat view shows a streamed answer a few words at a time.
    const ended = response.filter({ hasText: /Answered by local-extractive through DocChat's [\w -]+\.|Language model unavailable/i });
    await ended.waitFor({ state: 'visible', timeout: 120_000 });
    const text = await response.innerText();
    await session.screenshot('docchat answered in the chat view');
    assert.doesNotMatch(text, /Language model unavailable/);
    assert.match(text, /Answered by local-extractive through DocChat's Local mode\./);
    // Which sources are cited follows the demo documents; that it cites one of the demo store is the point.
    assert.match(text, /\[\d+\]/, 'the answer cites its sources');
    assert.match(text, /\.md(?: › [^\n]+)? · demo/, 'a source of the demo store is listed, with its section when known');
    // Each source is listed under the number its citations use: the numbers a reader sees in the
    // Sources list (an ordered list would number its items from the first one on) are the cited ones.
    const [answerText] = text.split(/\nSources\n/);
    const cited = [...new Set([...answerText!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
    const listed = await response.locator('li', { hasText: /· demo/ }).evaluateAll((items) =>
      items.map((item, index) => {
        const list = item.parentElement;
        if (list?.tagName === 'OL') return Number((list as HTMLOListElement).start || 1) + index;
        return Number(/^\s*\[(\d+)\]/.exec(item.textContent ?? '')?.[1] ?? NaN);
      }),
    );
    assert.deepEqual(listed, cited, `the Sources list shows ${listed.join(', ')} for citations ${cited.join(', ')}`);
    // A citation in the answer is a link: it opens its source with what it quotes highlighted.
    const citation = response.locator('a', { hasText: /^\[\d+\]$/ }).last(); // the last: in view below the answer
    const n = Number(/\d+/.exec(await citation.innerText())![0]);
    const source = await response
      .locator('li', { hasText: new RegExp(`^\\s*\\[${n}\\]`) })
      .locator('a')
      .first()
      .innerText();
    await citation.click();
    await page.locator('.tabs-container .tab.active', { hasText: source.split('/').pop()! }).waitFor({ state: 'visible', timeout: 30_000 });
    await page
      .locator('.editor-group-container.active .monaco-editor .view-overlays [class*="ced-"]')
      .first()
      .waitFor({ state: 'attached', timeout: 30_000 });
    await session.screenshot('citation opened at its quote');
  });

  it("lists DocChat's two tool groups in the Chat view's tools picker under distinct names", async () => {
    const { page } = session;
    await page.locator('.chat-input-toolbars .action-label[aria-label^="Configure Tools"]').first().click();
    const quick = page.locator('.quick-input-widget');
    await quick.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 15_000 });
    // The groups are the rows with a checkbox and no description: Built-In, each MCP server, each extension.
    const groups = await pollUntil(
      // Each row's accessible name (its text also holds the icon's label).
      () =>
        quick
          .locator('.monaco-list-row')
          .evaluateAll((rows) => rows.map((row) => (row.getAttribute('aria-label') ?? '').replace(/\s+/g, ' ').trim())),
      (rows) => rows.filter((row) => row.startsWith('DocChat')).length >= 2,
      { what: "DocChat's tool groups in the tools picker", timeoutMs: 30_000 },
    );
    await session.screenshot('tools picker');
    await page.keyboard.press('Escape');
    const docChat = groups.filter((row) => row.startsWith('DocChat'));
    // The #docchatSearch tool's group is the extension's ("DocChat", which an extension cannot
    // rename); the MCP server's is its title, then its label as the row's description.
    assert.equal(docChat.length, 2, `groups: ${groups.join(' | ')}`);
    assert.ok(docChat.includes('DocChat'), `groups: ${groups.join(' | ')}`);
    assert.ok(
      docChat.some((row) => /^DocChat Documents\b.*DocChat Documents \(MCP\)$/.test(row)),
      `groups: ${groups.join(' | ')}`,
    );
  });

  it('@docchat /search lists every result under a heading that is a link, with no raw link text, and a heading opens its passage', async () => {
    const { page } = session;
    const input = page.locator('.interactive-input-editor .monaco-editor').first();
    await input.click();
    // The input keeps the participant of the last request ("@docchat "): typed over.
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('@docchat /search default maxResults');
    await page.keyboard.press('Enter');
    const response = page.locator('.interactive-response').last();
    await response.filter({ hasText: /passages? in .* match/ }).waitFor({ state: 'visible', timeout: 120_000 });
    // Each result's line ends with its score: wait until the last result is there, then count them.
    const count = Number(/(\d+) passages? in/.exec(await response.innerText())?.[1] ?? '1');
    const scores = response.locator('p', { hasText: /· score \d\.\d\d/ });
    await pollUntil(
      () => scores.count(),
      (n) => n === count,
      { what: `${count} result headings`, timeoutMs: 30_000 },
    );
    // …and the excerpt under the last one, which the Chat view shows after its heading.
    await pollUntil(
      () => response.locator('blockquote').count(),
      (n) => n === count,
      { what: `${count} result excerpts`, timeoutMs: 30_000 },
    );
    await session.screenshot('docchat search results in the chat view');
    const text = await response.innerText();
    assert.doesNotMatch(text, /command:|%5B|%7B|\]\(/, 'no link shows as raw text');
    const headings = await scores.evaluateAll((rows) =>
      rows.map((row) => {
        const link = row.querySelector('a');
        return { text: row.textContent ?? '', link: link?.textContent ?? '' };
      }),
    );
    headings.forEach((heading, i) => assert.match(heading.link, new RegExp(`^${i + 1}\\. \\S`), `result ${i + 1}: ${heading.text}`));
    // The excerpt under a heading is plain text: no markdown marks left over.
    const quotes = await response.locator('blockquote').allInnerTexts();
    assert.equal(quotes.length, count);
    for (const quote of quotes) assert.doesNotMatch(quote, /\*\*|!\[|\]\(|^#+ /, quote);
    // A heading opens its file at the passage, highlighted.
    const first = headings[0]!.link.replace(/^\d+\. /, '');
    await scores.first().locator('a').click();
    const tab = page.locator('.tabs-container .tab.active', { hasText: first.split('/').pop()! });
    await tab.waitFor({ state: 'visible', timeout: 30_000 });
    // The passage's lines carry DocChat's whole-line decoration (drawn in the editor's overlay rows).
    await page
      .locator('.editor-group-container.active .monaco-editor .view-overlays [class*="ced-"]')
      .first()
      .waitFor({ state: 'attached', timeout: 30_000 });
    await session.screenshot('search result opened at its passage');
  });
});
