import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { testResultsRoot } from '../support/harness';
import type { ChatSource } from '../../src/chatCore/protocol';
import { deliver, loadAxe, loadTheme, PanelBrowser, runAxe } from '../support/a11y/panelPage';
import { answer, question, SOURCES, stateMessage } from '../support/a11y/panelStates';

// The chat's notices at the widths a side panel has, in the colours VS Code gives the webview: the
// "store no longer exists" notice keeps its Choose a Store button on one line (the sentence wraps,
// or the button goes below it); a source's "not quoted in the answer" tag stays on one line.
// Screenshots go to test-results/chat-notices/.

const WIDTHS = [380, 521];
const THEMES = ['light-plus', 'dark-plus', 'hc-dark'] as const;
const SOURCE_THEMES = ['light-plus', 'dark-plus', 'hc-dark', 'hc-light'] as const;

describe('Chat panel notices and sources (Chromium, panel widths, light, dark and high-contrast themes)', function () {
  const panels = PanelBrowser.perSuite();
  const shots = path.join(testResultsRoot, 'chat-notices');

  before(() => mkdirSync(shots, { recursive: true }));

  for (const themeFile of THEMES) {
    for (const width of WIDTHS) {
      it(`keeps "Choose a Store" on one line in the deleted-store notice at ${width} px (${themeFile})`, async () => {
        const page = await panels().open(loadTheme(themeFile));
        try {
          await page.setViewportSize({ width, height: 700 });
          await deliver(
            page,
            {
              type: 'models',
              catalog: { loading: false, defaultModel: 'local-extractive', models: [{ id: 'local-extractive', kind: 'completion' }] },
            },
            // Every store is listed and the chat's store is not among them: it was deleted.
            { type: 'stores', catalog: { loading: false, complete: true, stores: [{ id: 'vs_1', name: 'handbook' }] } },
            stateMessage([question()], {
              options: { model: 'local-extractive', vectorStoreId: 'vs_gone', vectorStoreName: 'Release notes 2024' },
            }),
          );
          const notice = page.locator('.notice.store-gone');
          await notice.waitFor({ state: 'visible' });
          const button = notice.locator('button.choose-store');
          const layout = await button.evaluate((b) => {
            const lineHeight = parseFloat(getComputedStyle(b).lineHeight) || 18;
            const label = b.querySelector('span:last-child') as HTMLElement;
            const box = b.getBoundingClientRect();
            const panel = document.querySelector('.notice.store-gone')!.getBoundingClientRect();
            return { labelHeight: label.getBoundingClientRect().height, lineHeight, right: box.right, panelRight: panel.right };
          });
          await page.screenshot({ path: path.join(shots, `store-gone-${width}px-${themeFile}.png`) });
          assert.ok(layout.labelHeight < layout.lineHeight * 1.5, `the button's label wraps: ${JSON.stringify(layout)}`);
          assert.ok(layout.right <= layout.panelRight + 0.5, `the button overflows the notice: ${JSON.stringify(layout)}`);
          assert.equal((await button.innerText()).trim(), 'Choose a Store');
        } finally {
          await page.close();
        }
      });
    }
  }

  // A source the answer does not quote says so after its name; at the width of a narrow side panel
  // the tag goes whole onto its own line under the name instead of wrapping into a block beside it.
  const NARROW = 342;
  const NAMED_SOURCES: ChatSource[] = [
    ...SOURCES.slice(0, 1),
    { ...(SOURCES[1] as ChatSource & { kind: 'passage' }), filename: 'CONTRIBUTING.md' },
    { ...(SOURCES[1] as ChatSource & { kind: 'passage' }), number: 3, fileId: 'f3', filename: 'backend.md' },
    {
      ...(SOURCES[1] as ChatSource & { kind: 'passage' }),
      number: 4,
      fileId: 'f4',
      filename: 'a-very-long-file-name-without-any-spaces-from-the-release-notes-archive.md',
    },
  ];
  for (const themeFile of SOURCE_THEMES) {
    it(`lays out the "not quoted in the answer" tag on one line at ${NARROW} px (${themeFile})`, async () => {
      const page = await panels().open(loadTheme(themeFile));
      try {
        await page.setViewportSize({ width: NARROW, height: 700 });
        await deliver(
          page,
          stateMessage([question(), answer({ content: 'Invoices are kept for ten years [1].', sources: NAMED_SOURCES })]),
        );
        const sources = page.locator('.sources');
        await sources.waitFor({ state: 'visible' });
        await sources.scrollIntoViewIfNeeded();
        const rows = await page.locator('.source').evaluateAll((items) =>
          items.map((li) => {
            const tag = li.querySelector('.source-uncited') as HTMLElement | null;
            const title = li.querySelector('.source-title')!.getBoundingClientRect();
            const list = li.closest('ol')!.getBoundingClientRect();
            return {
              name: li.querySelector('.source-title')!.textContent,
              tag: tag && {
                ...tag.getBoundingClientRect().toJSON(),
                lineHeight: parseFloat(getComputedStyle(tag).lineHeight) || parseFloat(getComputedStyle(tag).fontSize) * 1.25,
              },
              title: title.toJSON(),
              link: li.querySelector('.source-link')!.getBoundingClientRect().toJSON(),
              listRight: list.right,
            };
          }),
        );
        await sources.screenshot({ path: path.join(shots, `sources-${NARROW}px-${themeFile}.png`) });
        assert.equal(rows.filter((r) => r.tag).length, 3, 'three sources are not quoted');
        for (const row of rows) {
          const where = JSON.stringify(row);
          assert.ok(row.link.right <= row.listRight + 0.5, `the source overflows the list: ${where}`);
          if (!row.tag) continue;
          assert.ok(row.tag.height < row.tag.lineHeight * 1.5, `the tag wraps: ${where}`);
          // Beside the name only when the name is one line; else whole, under it.
          const besideOneLineName =
            Math.abs(row.tag.top - row.title.top) < row.tag.lineHeight && row.title.height < row.tag.lineHeight * 1.7;
          assert.ok(besideOneLineName || row.tag.top >= row.title.bottom - 0.5, `the tag sits beside a wrapped name: ${where}`);
        }
        await loadAxe(page);
        const contrast = (await runAxe(page)).filter((f) => f.id === 'color-contrast');
        assert.deepEqual(contrast, [], 'AA contrast');
      } finally {
        await page.close();
      }
    });
  }
});
