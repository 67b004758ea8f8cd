import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { testResultsRoot } from '../support/harness';
import { deliver, loadTheme, PanelBrowser } from '../support/a11y/panelPage';
import { question, stateMessage } from '../support/a11y/panelStates';

// The chat's notices at the widths a side panel has, in the colours VS Code gives the webview: the
// "store no longer exists" notice keeps its Choose a Store button on one line (the sentence wraps,
// or the button goes below it). Screenshots go to test-results/chat-notices/.

const WIDTHS = [380, 521];
const THEMES = ['light-plus', 'dark-plus', 'hc-dark'] as const;

describe('Chat panel notices (Chromium, panel widths, three themes)', function () {
  let panels: PanelBrowser;
  const shots = path.join(testResultsRoot, 'chat-notices');

  before(async () => {
    panels = await PanelBrowser.launch();
    mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await panels?.close();
  });

  for (const themeFile of THEMES) {
    for (const width of WIDTHS) {
      it(`keeps "Choose a Store" on one line in the deleted-store notice at ${width} px (${themeFile})`, async () => {
        const page = await panels.open(loadTheme(themeFile));
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
});
