import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { HostMessage } from '../../src/chatCore/protocol';
import { testResultsRoot } from '../support/harness';
import { deliver, loadAxe, loadTheme, PanelBrowser, runAxe } from '../support/a11y/panelPage';
import { answer, question, stateMessage } from '../support/a11y/panelStates';

// The chat as a narrow column (beside an editor, with VS Code's Chat view in the secondary
// side bar: about 373 px; 320 px at the least): the header's controls wrap onto more rows instead
// of cutting the model's or the store's name, nothing overlaps or leaves the panel, the keyboard
// order stays, and a long "Searched for" query wraps instead of being cut. Light, dark and high
// contrast. Screenshots go to test-results/chat-narrow/.

const WIDTHS = [320, 373];
const THEMES = ['light-plus', 'dark-plus', 'hc-dark'] as const;
const QUERY = 'How do I create a vector store and attach a folder of spreadsheets to it?';

const models: HostMessage = {
  type: 'models',
  catalog: {
    loading: false,
    defaultModel: 'local-extractive',
    models: [
      { id: 'local-extractive', kind: 'completion' },
      { id: 'llama-3.1-8b-instruct-q4', kind: 'completion' },
    ],
  },
};
const stores: HostMessage = {
  type: 'stores',
  catalog: {
    loading: false,
    complete: true,
    stores: [
      { id: 'vs_1', name: 'handbook' },
      { id: 'vs_2', name: 'demo' },
    ],
  },
};

/** The header in the grounded state (a store, an answer with its query) or with no grounding. */
async function show(page: Page, grounded: boolean): Promise<void> {
  const options = grounded
    ? { model: 'local-extractive', vectorStoreId: 'vs_1', vectorStoreName: 'handbook' }
    : { model: 'local-extractive', vectorStoreId: null };
  await deliver(
    page,
    models,
    stores,
    stateMessage([question('u1', 'How do I create a store?'), answer({ searchQuery: QUERY })], {
      title: 'How do I create a store?',
      options: options as never,
    }),
  );
}

interface SelectFit {
  label: string;
  text: string;
  width: number;
  needed: number;
  title: string;
}

/** Each header select's width against what a select showing only its current option needs. */
function selectFits(page: Page): Promise<SelectFit[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLSelectElement>('.toolbar select')]
      .filter((s) => s.getClientRects().length > 0)
      .map((select) => {
        const text = select.selectedOptions[0]?.text ?? '';
        // The same control with the current option alone, at its natural width: what it needs to
        // show that option whole.
        const probe = select.cloneNode(false) as HTMLSelectElement;
        probe.append(new Option(text));
        probe.style.cssText = 'position:absolute; left:0; top:0; width:auto; min-width:0; max-width:none; flex:none; field-sizing:fixed';
        probe.setAttribute('aria-hidden', 'true');
        select.parentElement!.append(probe);
        const needed = probe.getBoundingClientRect().width;
        probe.remove();
        return {
          label: select.getAttribute('aria-label') ?? '',
          text,
          width: select.getBoundingClientRect().width,
          needed,
          title: select.title,
        };
      }),
  );
}

interface Box {
  name: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The header's controls, where they are, and the panel's width. */
function headerControls(page: Page): Promise<{ panel: number; scrollWidth: number; boxes: Box[] }> {
  return page.evaluate(() => {
    const boxes = [...document.querySelectorAll<HTMLElement>('.toolbar :is(select, button, .picker > .codicon)')]
      .filter((e) => e.getClientRects().length > 0 && !e.closest('.options-panel, .notices'))
      .map((e) => {
        const r = e.getBoundingClientRect();
        const name = e.getAttribute('aria-label') ?? e.className;
        return { name, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      });
    return { panel: document.documentElement.clientWidth, scrollWidth: document.documentElement.scrollWidth, boxes };
  });
}

const overlap = (a: Box, b: Box) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

describe('Chat panel in a narrow column (Chromium, 320 and 373 px, three themes)', function () {
  const panels = PanelBrowser.perSuite();
  const shots = path.join(testResultsRoot, 'chat-narrow');

  before(() => mkdirSync(shots, { recursive: true }));

  for (const themeFile of THEMES) {
    for (const width of WIDTHS) {
      it(`shows the model and store names whole, wraps the header and "Searched for" at ${width} px (${themeFile})`, async () => {
        const page = await panels().open(loadTheme(themeFile));
        try {
          await page.setViewportSize({ width, height: 640 });
          for (const grounded of [true, false]) {
            await show(page, grounded);
            const state = grounded ? 'grounded' : 'no-grounding';
            await page.screenshot({ path: path.join(shots, `${state}-${width}px-${themeFile}.png`) });

            const fits = await selectFits(page);
            assert.equal(fits.length, 3, `the header's selects: ${JSON.stringify(fits)}`);
            for (const fit of fits) {
              assert.ok(fit.width >= fit.needed - 0.5, `"${fit.label}" cuts "${fit.text}" (${state}): ${JSON.stringify(fit)}`);
            }
            // A conversation's title can be longer than any row: its tooltip names it whole.
            const conversation = fits.find((f) => f.label === 'Conversation')!;
            assert.equal(conversation.title, conversation.text, 'the conversation select names its title in its tooltip');
            const model = fits.find((f) => f.label === 'Model')!;
            assert.equal(model.text, 'local-extractive');
            const store = fits.find((f) => f.label === 'Vector store for grounding')!;
            assert.equal(store.text, grounded ? 'handbook' : 'No grounding (no vector store)');

            const { panel, scrollWidth, boxes } = await headerControls(page);
            assert.ok(scrollWidth <= panel, `the panel scrolls sideways: ${scrollWidth} > ${panel}`);
            for (const box of boxes) {
              assert.ok(box.left >= -0.5 && box.right <= panel + 0.5, `"${box.name}" leaves the panel (${state}): ${JSON.stringify(box)}`);
            }
            for (let i = 0; i < boxes.length; i++) {
              for (let j = i + 1; j < boxes.length; j++) {
                assert.ok(!overlap(boxes[i]!, boxes[j]!), `"${boxes[i]!.name}" overlaps "${boxes[j]!.name}" (${state})`);
              }
            }
          }

          // Two conversations with one long title: New Chat and Delete keep the conversation's row,
          // and the part of the label that tells them apart (when each started) comes first.
          const long = 'Can I use DocChat in a folder I have not trusted, and what works there then?';
          const twin = stateMessage([question('u1', long), answer()], { title: long }) as Extract<HostMessage, { type: 'state' }>;
          await deliver(page, models, stores, {
            ...twin,
            conversations: [
              { id: twin.conversation.id, title: long, createdAt: Date.UTC(2026, 10, 28, 5, 15, 8), updatedAt: 2, questions: 1 },
              { id: 'c9', title: long, createdAt: Date.UTC(2026, 10, 28, 5, 15, 3), updatedAt: 1, questions: 1 },
            ],
          });
          const row = await page.evaluate(() => {
            const select = document.querySelector<HTMLSelectElement>('.conversation-select')!;
            return {
              select: select.getBoundingClientRect().top,
              newChat: document.querySelector('[aria-label="New Chat"]')!.getBoundingClientRect().top,
              remove: document.querySelector('[aria-label="Delete Conversation"]')!.getBoundingClientRect().top,
              label: select.selectedOptions[0]?.text ?? '',
              tooltip: select.title,
            };
          });
          assert.ok(
            Math.abs(row.newChat - row.select) < 4 && Math.abs(row.remove - row.select) < 4,
            `the actions left the row: ${JSON.stringify(row)}`,
          );
          assert.ok(!row.label.startsWith(long) && row.label.includes(long), `the start time comes first: ${row.label}`);
          assert.equal(row.tooltip, row.label, 'the tooltip names the conversation whole');
          await page.screenshot({ path: path.join(shots, `same-title-${width}px-${themeFile}.png`) });

          // An earlier answer's query is text: it wraps beside its icon, which is not left alone on a line.
          await deliver(
            page,
            models,
            stores,
            stateMessage([
              question('u1', 'How do I create a store?'),
              answer({ searchQuery: QUERY }),
              question('u2', 'and a folder?'),
              { ...answer(), id: 'a2' },
            ]),
          );
          const earlier = await page.evaluate(() => {
            const line = document.querySelector('.searched-for:not(.editable)')!;
            const iconBox = line.querySelector('.codicon')!.getBoundingClientRect();
            const text = line.querySelector('span:not(.codicon)')!;
            const textBox = text.getBoundingClientRect();
            return { iconTop: iconBox.top, iconBottom: iconBox.bottom, textTop: textBox.top, text: text.textContent };
          });
          assert.ok(earlier.text?.includes(QUERY), JSON.stringify(earlier));
          assert.ok(earlier.textTop < earlier.iconBottom, `the icon is alone on its line: ${JSON.stringify(earlier)}`);

          // The last answer's query is editable: all of it is shown, wrapped, none scrolled away.
          await show(page, true);
          const searched = page.locator('.searched-for-input');
          await searched.waitFor({ state: 'visible' });
          assert.equal(await searched.inputValue(), QUERY);
          const field = await searched.evaluate((e: HTMLInputElement | HTMLTextAreaElement) => {
            const r = e.getBoundingClientRect();
            return {
              scrollWidth: e.scrollWidth,
              clientWidth: e.clientWidth,
              scrollHeight: e.scrollHeight,
              clientHeight: e.clientHeight,
              right: r.right,
              panel: document.documentElement.clientWidth,
            };
          });
          assert.ok(field.scrollWidth <= field.clientWidth, `"Searched for" is cut sideways: ${JSON.stringify(field)}`);
          assert.ok(field.scrollHeight <= field.clientHeight + 1, `"Searched for" is cut: ${JSON.stringify(field)}`);
          assert.ok(field.right <= field.panel + 0.5, `"Searched for" leaves the panel: ${JSON.stringify(field)}`);
          await searched.scrollIntoViewIfNeeded();
          await page.screenshot({ path: path.join(shots, `searched-for-${width}px-${themeFile}.png`) });

          // The keyboard goes through the header in the order it always has, each control ringed.
          await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
          const order: string[] = [];
          for (let i = 0; i < 8; i++) {
            await page.keyboard.press('Tab');
            order.push(
              await page.evaluate(() => {
                const e = document.activeElement as HTMLElement;
                const ring = getComputedStyle(e);
                return `${e.getAttribute('aria-label') ?? e.textContent}${ring.outlineStyle === 'solid' && parseFloat(ring.outlineWidth) >= 1 ? '' : ' (no ring)'}`;
              }),
            );
          }
          assert.deepEqual(order, [
            'Conversation',
            'New Chat',
            'Delete Conversation',
            'Model',
            'Refresh Model List',
            'Vector store for grounding',
            'Refresh Vector Stores',
            'Conversation options',
          ]);
          await page.screenshot({ path: path.join(shots, `focus-${width}px-${themeFile}.png`) });

          // Contrast and the rest of WCAG AA hold in the narrow layout.
          await loadAxe(page);
          const serious = (await runAxe(page)).filter((f) => f.impact === 'serious' || f.impact === 'critical');
          assert.deepEqual(
            serious.map((f) => `${f.id}: ${f.nodes.map((n) => n.target).join(', ')}`),
            [],
          );
        } finally {
          await page.close();
        }
      });
    }
  }

  it('scrolls a wide table of an answer on its own at 320 px, not the transcript', async () => {
    const page = await panels().open(loadTheme('dark-plus'));
    try {
      await page.setViewportSize({ width: 320, height: 640 });
      const table = [
        '| setting | default | meaning |',
        '|---|---|---|',
        '| `docchat.network.proxyAuthorization` | `null` | the `Proxy-Authorization` header sent to `docchat.network.proxy` |',
        "| `docchat.network.proxyStrictSSL` | `true` | check the proxy's certificate against `docchat.network.caFiles` |",
      ].join('\n');
      await deliver(
        page,
        models,
        stores,
        stateMessage(
          [question('u1', 'and where do I put the token?'), answer({ content: `From the supplied sources:\n\n${table}\n\n[1]` })],
          {
            title: 'Tokens',
            options: { model: 'local-extractive', vectorStoreId: 'vs_1', vectorStoreName: 'handbook' } as never,
          },
        ),
      );
      const sizes = await page.evaluate(() => {
        const messages = document.querySelector('.messages')!;
        const rendered = document.querySelector<HTMLElement>('.markdown-body table')!;
        return {
          messages: { scroll: messages.scrollWidth, client: messages.clientWidth },
          table: { scroll: rendered.scrollWidth, client: rendered.clientWidth },
          page: { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth },
        };
      });
      await page.screenshot({ path: path.join(shots, 'wide-table-320px-dark-plus.png') });
      assert.ok(sizes.messages.scroll <= sizes.messages.client, `the transcript scrolls sideways: ${JSON.stringify(sizes)}`);
      assert.ok(sizes.page.scroll <= sizes.page.client, `the panel scrolls sideways: ${JSON.stringify(sizes)}`);
      assert.ok(sizes.table.scroll > sizes.table.client, `the table is not cut but scrolls: ${JSON.stringify(sizes)}`);
    } finally {
      await page.close();
    }
  });

  it('keeps the header, the answers and the question box in a centred column of at most 950 px in a 2,400 px editor', async () => {
    const page = await panels().open(loadTheme('light-plus'));
    try {
      await page.setViewportSize({ width: 2400, height: 900 });
      const long = 'Sync Folder to Vector Store… keeps a store in step with a workspace folder: it shows the plan before it acts. '.repeat(
        6,
      );
      await deliver(
        page,
        models,
        stores,
        stateMessage([question('u1', 'How do I sync a folder?'), answer({ content: `From the supplied sources:\n\n- "${long}" [1]` })], {
          title: 'Sync',
          options: { model: 'local-extractive', vectorStoreId: 'vs_1', vectorStoreName: 'handbook' } as never,
        }),
      );
      const boxes = await page.evaluate(() => {
        const [text, input, header] = ['.message .markdown-body', '.composer-input', '.toolbar-row']
          .map((selector) => document.querySelector(selector)!.getBoundingClientRect())
          .map((r) => ({ left: r.left, right: r.right, width: r.width }));
        return { page: document.documentElement.clientWidth, text: text!, input: input!, header: header! };
      });
      await page.screenshot({ path: path.join(shots, 'wide-2400px-light-plus.png') });
      for (const [name, b] of [
        ['answer text', boxes.text],
        ['question box', boxes.input],
        ['header', boxes.header],
      ] as const) {
        assert.ok(b.width <= 950 && b.width >= 900, `${name} is ${b.width} px wide: ${JSON.stringify(boxes)}`);
        // Centred: as much room on the left as on the right (within the scroll bar's width).
        assert.ok(Math.abs(b.left - (boxes.page - b.right)) <= 24, `${name} is not centred: ${JSON.stringify(boxes)}`);
      }
    } finally {
      await page.close();
    }
  });
});
