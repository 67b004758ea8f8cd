import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { captureFailures, commandTitle, launchVSCode, pollUntil, type VSCodeSession } from '../support/harness';

// How DocChat's settings read in VS Code's Settings editor: the view DocChat's own "Open Settings"
// command shows, and the table of contents (Extensions › DocChat). VS Code derives a setting's
// category from its key and trims the part that names the settings group; without that, every
// setting reads "Docchat › Documents: Url".

/** DocChat's sections of settings, as package.json titles them. */
const SECTIONS = ['Connection', 'Chat', 'Search', 'Stores and Files', 'Folder Sync', 'Local Mode', 'MCP Server', 'Network'];

interface RenderedSetting {
  key: string;
  group: string;
  category: string;
  label: string;
}

/**
 * The category and label of the `count` DocChat settings the Settings editor lists, scrolling through
 * its (virtual) list, and the id of the group each is rendered in.
 */
async function renderedSettings(page: Page, count: number): Promise<RenderedSetting[]> {
  const editor = page.locator('.settings-editor');
  const rows = editor.locator('.settings-tree-container .monaco-list-row .setting-item-contents[data-key^="docchat."]');
  await rows.first().waitFor({ state: 'visible', timeout: 30_000 });
  const seen = new Map<string, RenderedSetting>();
  // One read of the rendered rows: the list re-renders them while it scrolls.
  const read = async (): Promise<void> => {
    const rendered = await editor.evaluate((root) =>
      [...root.querySelectorAll('.settings-tree-container .monaco-list-row .setting-item-contents[data-key^="docchat."]')].map((row) => ({
        key: row.getAttribute('data-key') ?? '',
        id: row.getAttribute('data-id') ?? '',
        category: (row.querySelector('.setting-item-category')?.textContent ?? '').trim(),
        label: (row.querySelector('.setting-item-label')?.textContent ?? '').trim(),
      })),
    );
    for (const { key, id, category, label } of rendered) seen.set(key, { key, group: id.slice(0, -key.length - 1), category, label });
  };
  await read();
  await editor.locator('.settings-tree-container .monaco-list').hover();
  await pollUntil(
    async () => {
      await page.mouse.wheel(0, 300);
      return read();
    },
    () => seen.size >= count,
    { what: `all ${count} DocChat settings rendered (seen: ${[...seen.keys()].join(', ')})`, timeoutMs: 30_000 },
  );
  return [...seen.values()];
}

function describeSettings(settings: RenderedSetting[]): string {
  return settings.map((s) => `[${s.group}] ${s.category}${s.label}`).join(' | ');
}

function assertReadable(settings: RenderedSetting[]): void {
  console.log(`    ${describeSettings(settings)}`);
  const prefixed = settings.filter((s) => /docchat/i.test(s.category));
  assert.deepEqual(prefixed, [], `settings whose category repeats the extension's name: ${describeSettings(prefixed)}`);
}

async function tocRow(page: Page, label: string): Promise<Locator> {
  const row = page.locator('.settings-toc-container .monaco-list-row', { has: page.locator(`.settings-toc-entry:text-is("${label}")`) });
  await row.first().waitFor({ state: 'visible', timeout: 30_000 });
  return row.first();
}

describe('DocChat in the Settings editor (e2e)', function () {
  let session: VSCodeSession;
  /** How many DocChat settings this VS Code lists (it hides `advanced` ones from 1.1xx on). */
  let count = 0;

  before(async function () {
    session = await launchVSCode({ name: 'settings labels', viewport: { width: 1400, height: 1000 } });
  });

  captureFailures(() => session);

  after(async () => {
    await session?.close();
  });

  it('"DocChat: Open Settings" lists all settings under DocChat\'s titled sections in the table of contents', async () => {
    const { page } = session;
    await page.locator('.part.activitybar .action-label[aria-label^="DocChat"]').first().waitFor({ timeout: 30_000 });
    await session.runCommand(commandTitle('docchat.openSettings'));
    const found = await page.locator('.settings-editor .settings-count-widget').innerText();
    count = Number(/(\d+) Settings? Found/.exec(found)?.[1]);
    assert.ok(count >= 10, `the Settings editor says "${found}"`);
    // A search view renders every setting with its full category ("Docchat › Documents: Url") for
    // every extension; its table of contents shows where each belongs.
    const entries = await pollUntil(
      () => page.locator('.settings-toc-container .settings-toc-entry').allInnerTexts(),
      (texts) => SECTIONS.every((section) => texts.includes(section)),
      { what: `the sections ${SECTIONS.join(', ')} in the table of contents`, timeoutMs: 30_000 },
    );
    await renderedSettings(page, count);
    await session.screenshot('open settings command');
    assert.ok(entries.indexOf('DocChat') < entries.indexOf(SECTIONS[0]), `table of contents: ${entries.join(', ')}`);
  });

  it('Extensions › DocChat in the table of contents shows the settings in titled sections without the prefix', async () => {
    const { page } = session;
    await page.locator('.settings-editor .settings-header .action-label[aria-label^="Clear Settings Search"]').click();
    await pollUntil(
      () => page.locator('.settings-toc-container .settings-toc-entry').allInnerTexts(),
      (entries) => entries.includes('Commonly Used') && entries.includes('Extensions'),
      { what: 'the whole table of contents once the search is cleared' },
    );
    const extensions = await tocRow(page, 'Extensions');
    if ((await extensions.getAttribute('aria-expanded')) !== 'true') await extensions.locator('.monaco-tl-twistie').click();
    await (await tocRow(page, 'DocChat')).click();
    const settings = await renderedSettings(page, count);
    await session.screenshot('table of contents');
    assertReadable(settings);
    const shown = (key: string): string | undefined =>
      settings.find((s) => s.key === key) && describeSettings(settings.filter((s) => s.key === key));
    assert.match(shown('docchat.documents.url') ?? '', /\] Documents:Url$/);
    assert.match(shown('docchat.network.proxy') ?? '', /\] Proxy$/);
  });

  it("names the OCR languages in words and marks the project code as the company gateway's", async () => {
    const { page } = session;
    const editor = page.locator('.settings-editor');
    const describe = async (key: string): Promise<string> => {
      // The search box is a small editor: its lines take the click.
      await editor.locator('.settings-header .suggest-input-container .monaco-editor').first().click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(`@id:${key}`);
      const row = editor.locator(`.setting-item-contents[data-key="${key}"]`);
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      return (await row.locator('.setting-item-description').innerText()).trim();
    };
    const ocr = await describe('docchat.attach.ocrLanguages');
    await session.screenshot('ocr languages');
    // The list below shows the codes; the description says which language each is.
    assert.match(ocr, /eng English, ara Arabic, fas Persian, heb Hebrew/, ocr);
    const projectCode = await describe('docchat.gateway.projectCode');
    await session.screenshot('project code');
    assert.match(projectCode, /^Company gateway only\./, projectCode);
  });
});
