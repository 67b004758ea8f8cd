import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { HostMessage } from '../../src/chatCore/protocol';
import { deliver, loadTheme, PanelBrowser, THEME_FILES } from '../support/a11y/panelPage';
import { ANSWER, SOURCES, answer, question, stateMessage } from '../support/a11y/panelStates';

// What a screen reader and a keyboard user get from the chat panel while it works: the live region,
// aria-busy, focus when controls go away, the slash menu's ARIA state, reduced motion, focus rings.
// The built webview bundle in Chromium with VS Code's captured theme variables (see panelPage.ts).

const lightPlus = () => loadTheme('light-plus');

const pending = () => answer({ id: 'a2', content: '', status: 'pending', requestId: 'r2', usage: undefined, sources: undefined });

/** Streams `text` in small pieces, each as its own host message (several per frame, as in use). */
async function stream(page: Page, requestId: string, text: string, piece = 9): Promise<void> {
  const deltas: HostMessage[] = [];
  for (let i = 0; i < text.length; i += piece) deltas.push({ type: 'streamDelta', requestId, text: text.slice(i, i + piece) });
  for (let i = 0; i < deltas.length; i += 12) await deliver(page, ...deltas.slice(i, i + 12));
}

/** Counts the characters of text added to the live region from now on. */
async function countAnnounced(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __announced: string[] };
    w.__announced = [];
    const region = document.querySelector('[aria-live="polite"].announcer')!;
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'characterData') w.__announced.push(r.target.textContent ?? '');
        r.addedNodes.forEach((n) => w.__announced.push(n.textContent ?? ''));
      }
    }).observe(region, { childList: true, subtree: true, characterData: true });
  });
}

const announced = (page: Page) => page.evaluate(() => (window as unknown as { __announced: string[] }).__announced);
const answerPlainText = (page: Page, id: string) =>
  page.$eval(`article[data-message-id="${id}"] .markdown-body`, (e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim());
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement as HTMLElement | null;
    return e === document.body || !e ? 'body' : `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`;
  });

describe('Chat panel for screen readers and the keyboard', function () {
  const panels = PanelBrowser.perSuite();

  it('announces each finished block once while streaming, sets aria-busy, and never rebuilds finished blocks', async () => {
    const page = await panels().open(lightPlus());
    try {
      await deliver(page, stateMessage([question(), answer({ id: 'a1' }), question('u2', 'And contracts?'), pending()]));
      await countAnnounced(page);
      await deliver(page, { type: 'streamStart', requestId: 'r2', messageId: 'a2', sources: SOURCES });
      assert.equal(await page.getAttribute('article[data-message-id="a2"]', 'aria-busy'), 'true');
      await stream(page, 'r2', ANSWER.slice(0, 300));
      // The blocks finished so far: they must be the very same nodes at the end.
      await page.evaluate(() => {
        const body = document.querySelector('article[data-message-id="a2"] .markdown-body')!;
        (window as unknown as { __early: Element[] }).__early = [...body.children].slice(0, -1);
      });
      const early = await page.evaluate(() => (window as unknown as { __early: Element[] }).__early.length);
      assert.ok(early >= 2, `blocks finished after 300 characters: ${early}`);
      const midway = (await announced(page)).join(' ');
      assert.ok(midway.includes('Invoices are kept for'), `announced midway: ${midway}`);
      await stream(page, 'r2', ANSWER.slice(300));
      await deliver(page, { type: 'streamDone', requestId: 'r2', stopped: false });

      const kept = await page.evaluate(() => (window as unknown as { __early: Element[] }).__early.every((e) => e.isConnected));
      assert.ok(kept, 'a finished block was rebuilt');
      assert.equal(await page.getAttribute('article[data-message-id="a2"]', 'aria-busy'), null);
      const said = await announced(page);
      const saidChars = said.join('').replace(/\s+/g, '').length;
      const textChars = (await answerPlainText(page, 'a2')).replace(/\s+/g, '').length;
      process.stderr.write(
        `      live region: ${saidChars} characters announced for an answer of ${textChars} (${(saidChars / textChars).toFixed(2)}×)\n`,
      );
      // Every character of the answer once, plus "Answer complete." — never the growing block again.
      assert.ok(saidChars >= textChars, `announced ${saidChars} of ${textChars} characters`);
      assert.ok(saidChars <= textChars + 40, `announced ${saidChars} characters for ${textChars}: text was repeated`);
      assert.equal(said.at(-1), 'Answer complete.');
    } finally {
      await page.close();
    }
  });

  it('announces the answer once, when done, if the user prefers that (docchat.chat.announceAnswers)', async () => {
    const page = await panels().open(lightPlus());
    try {
      await deliver(page, {
        ...(stateMessage([question('u2', 'And contracts?'), pending()]) as Extract<HostMessage, { type: 'state' }>),
        announce: 'whenDone',
      });
      await countAnnounced(page);
      await deliver(page, { type: 'streamStart', requestId: 'r2', messageId: 'a2', sources: SOURCES });
      await stream(page, 'r2', ANSWER);
      assert.deepEqual(await announced(page), []);
      await deliver(page, { type: 'streamDone', requestId: 'r2', stopped: false });
      const said = await announced(page);
      assert.equal(said.length, 2, said.join('\n'));
      assert.equal(said[0], await answerPlainText(page, 'a2'));
      assert.equal(said[1], 'Answer complete.');
    } finally {
      await page.close();
    }
  });

  it('adds only the new messages when a question is sent (earlier ones are not inserted again)', async () => {
    const page = await panels().open(lightPlus());
    try {
      await deliver(page, stateMessage([question(), answer({ id: 'a1' })]));
      await page.evaluate(() => {
        const w = window as unknown as { __changes: { added: string[]; removed: number } };
        w.__changes = { added: [], removed: 0 };
        new MutationObserver((records) => {
          for (const r of records) {
            r.addedNodes.forEach((n) => w.__changes.added.push((n as HTMLElement).dataset?.messageId ?? n.nodeName));
            w.__changes.removed += r.removedNodes.length;
          }
        }).observe(document.querySelector('.messages')!, { childList: true });
      });
      await deliver(page, stateMessage([question(), answer({ id: 'a1' }), question('u2', 'And contracts?'), pending()]));
      const changes = await page.evaluate(() => (window as unknown as { __changes: { added: string[]; removed: number } }).__changes);
      assert.deepEqual(changes, { added: ['u2', 'a2'], removed: 0 });
    } finally {
      await page.close();
    }
  });

  it('keeps the focus on a sensible control when Send, Stop, Regenerate or a chip goes away', async () => {
    const page = await panels().open(lightPlus());
    try {
      await deliver(page, stateMessage([question(), answer({ id: 'a1' })], { pendingContext: [SOURCES[0]!, SOURCES[1]!, SOURCES[2]!] }));

      // A chip's remove button: the focus moves to the next chip's, then to the last one left.
      await page.focus('.pending-context .chip:nth-child(2) .chip-remove');
      await page.keyboard.press('Enter');
      await deliver(page, stateMessage([question(), answer({ id: 'a1' })], { pendingContext: [SOURCES[0]!, SOURCES[2]!] }));
      assert.equal(await focused(page), 'button.chip-remove');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Remove Policy page');
      await page.keyboard.press('Enter');
      await deliver(page, stateMessage([question(), answer({ id: 'a1' })], { pendingContext: [SOURCES[0]!] }));
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Remove retention.md');
      await page.keyboard.press('Enter');
      await deliver(page, stateMessage([question(), answer({ id: 'a1' })]));
      assert.equal(await focused(page), 'textarea.composer-input');

      // Send: the answer starts, Send hides, Stop (in its place) takes the focus.
      await page.keyboard.type('And contracts?');
      await page.focus('button.send');
      await page.keyboard.press('Enter');
      const posted = await page.evaluate(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.map((m) => m.type));
      assert.ok(posted.includes('send'), posted.join());
      await deliver(page, stateMessage([question(), answer({ id: 'a1' }), question('u2', 'And contracts?'), pending()]));
      assert.equal(await focused(page), 'button.text-button.stop');

      // Stop: the answer ends, Stop hides, the composer takes the focus for the next question.
      await page.keyboard.press('Enter');
      await deliver(page, { type: 'streamDone', requestId: 'r2', stopped: true });
      assert.equal(await focused(page), 'textarea.composer-input');

      // Regenerate: the answer is replaced by a new one that streams; Stop takes the focus.
      await deliver(
        page,
        stateMessage([
          question(),
          answer({ id: 'a1' }),
          question('u2', 'And contracts?'),
          answer({ id: 'a2', content: 'Six years.', status: 'stopped' }),
        ]),
      );
      await page.focus('button.regenerate');
      await page.keyboard.press('Enter');
      await deliver(page, stateMessage([question(), answer({ id: 'a1' }), question('u2', 'And contracts?'), pending()]));
      assert.equal(await focused(page), 'button.text-button.stop');
    } finally {
      await page.close();
    }
  });

  it('exposes the slash menu as a combobox with a listbox, its state and the chosen option', async () => {
    const page = await panels().open(lightPlus());
    try {
      await deliver(page, stateMessage([]));
      const input = 'textarea.composer-input';
      const aria = () =>
        page.$eval(input, (e) => ({
          role: e.getAttribute('role'),
          expanded: e.getAttribute('aria-expanded'),
          controls: e.getAttribute('aria-controls'),
          active: e.getAttribute('aria-activedescendant'),
        }));
      assert.deepEqual(await aria(), { role: 'combobox', expanded: 'false', controls: 'slash-commands', active: null });
      await page.focus(input);
      await page.keyboard.type('/');
      const open = await aria();
      assert.equal(open.expanded, 'true');
      assert.equal(await page.$eval('#slash-commands', (e) => e.getAttribute('role')), 'listbox');
      const first = await page.$eval('#slash-commands [role="option"]', (e) => e.id);
      assert.equal(open.active, first);
      await page.keyboard.press('ArrowDown');
      const second = await page.$$eval('#slash-commands [role="option"]', (list) =>
        list.map((e) => ({ id: e.id, selected: e.getAttribute('aria-selected') })),
      );
      assert.equal((await aria()).active, second[1]!.id);
      assert.deepEqual(
        second.map((o) => o.selected),
        ['false', 'true', ...second.slice(2).map(() => 'false')],
      );
      await page.keyboard.press('Escape');
      assert.deepEqual(await aria(), { role: 'combobox', expanded: 'false', controls: 'slash-commands', active: null });
    } finally {
      await page.close();
    }
  });

  const motionCases: Array<[string, { reducedMotion?: 'reduce'; extraClasses?: string[] }]> = [
    ['prefers-reduced-motion', { reducedMotion: 'reduce' }],
    ["VS Code's vscode-reduce-motion class", { extraClasses: ['vscode-reduce-motion'] }],
  ];
  for (const [label, options] of motionCases) {
    it(`stops the "Generating…" spinner under ${label}`, async () => {
      const spinner = async (page: Page) => {
        await deliver(page, stateMessage([question(), pending()]), { type: 'streamStart', requestId: 'r2', messageId: 'a2', sources: [] });
        return page.$eval('.phase .codicon-modifier-spin', (e) => getComputedStyle(e).animationName);
      };
      const normal = await panels().open(lightPlus());
      const reduced = await panels().open(lightPlus(), options);
      try {
        assert.notEqual(await spinner(normal), 'none', 'the spinner should spin without the preference');
        assert.equal(await spinner(reduced), 'none');
      } finally {
        await normal.close();
        await reduced.close();
      }
    });
  }

  it('draws keyboard focus rings at 3:1 or more against the panel in every theme', async () => {
    for (const file of THEME_FILES) {
      const page = await panels().open(loadTheme(file));
      try {
        await deliver(page, stateMessage([question(), answer({ id: 'a1' })], { pendingContext: [SOURCES[0]!] }));
        await assertFocusRings(page, file, [
          'button.skip-to-composer',
          'button.skip-to-top',
          'button.send',
          'button.regenerate',
          '.code-action[data-action="copy"]',
          // The Sources list's one Tab stop (its first source).
          '.sources .source-link[tabindex="0"]',
          '.chip-remove',
          'select.model-select',
          'textarea.composer-input',
        ]);
        // The inline error box has its own background: the ring of its buttons is drawn on it.
        const failed = answer({
          id: 'a1',
          content: '',
          status: 'error',
          error: { kind: 'auth', message: 'The language-model gateway rejected the credentials.', actions: ['setGatewayApiKey', 'retry'] },
        });
        await deliver(page, stateMessage([question(), failed]));
        await assertFocusRings(page, file, ['button.action-setGatewayApiKey', 'button.action-retry']);
      } finally {
        await page.close();
      }
    }
  });
});

async function assertFocusRings(page: Page, file: string, selectors: string[]): Promise<void> {
  for (const selector of selectors) {
    await page.focus(selector);
    // Focus that came from the keyboard (Shift+Tab and back), so :focus-visible applies.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const ring = await page.evaluate((named) => {
      // The ring of the element named, which must be the one the keyboard focused.
      const e = document.querySelector(named) as HTMLElement;
      if (e !== document.activeElement) {
        return { notFocused: `${document.activeElement?.tagName} ${document.activeElement?.className}` };
      }
      if (!e.matches(':focus-visible')) return { notFocused: 'focused without :focus-visible' };
      const style = getComputedStyle(e);
      // The colour the ring is drawn on: the element's own background for a ring inside it,
      // its parent's for one outside; translucent backgrounds composited over their ancestors'.
      const layers: number[][] = [];
      for (let n: Element | null = parseFloat(style.outlineOffset) < 0 ? e : e.parentElement; n; n = n.parentElement) {
        const [r, g, b, a = 1] = (getComputedStyle(n).backgroundColor.match(/[\d.]+/g) ?? []).map(Number);
        if (a! > 0) layers.push([r!, g!, b!, a!]);
        if (a === 1) break;
      }
      let under = [255, 255, 255];
      for (const [r, g, b, a] of layers.reverse()) {
        under = [r! * a! + under[0]! * (1 - a!), g! * a! + under[1]! * (1 - a!), b! * a! + under[2]! * (1 - a!)];
      }
      return {
        style: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
        color: style.outlineColor,
        background: `rgb(${under.join(', ')})`,
      };
    }, selector);
    if ('notFocused' in ring) assert.fail(`${file} ${selector}: the keyboard focus is not on it (${ring.notFocused})`);
    const background = ring.background;
    const ratio = contrast(ring.color, background);
    assert.notEqual(ring.style, 'none', `${file} ${selector}: no focus ring`);
    assert.ok(ring.width >= 1, `${file} ${selector}: ring ${ring.width}px`);
    assert.ok(ratio >= 3, `${file} ${selector}: focus ring ${ring.color} on ${background} is ${ratio.toFixed(2)}:1`);
  }
}

function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
