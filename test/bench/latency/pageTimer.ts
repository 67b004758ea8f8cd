/**
 * Times "input → shown on screen" in the workbench page itself: the input event's own timeStamp,
 * then a check in every animation frame for the expected rows; the end is taken in a task posted
 * from that frame, so after the paint that shows them. Nothing crosses the Playwright round trip.
 */
import type { Page } from 'playwright-core';

export type Expectation =
  /** A quick-pick row whose text (zero-width spaces removed) contains `text`. */
  | { kind: 'quickPickRow'; text: string }
  /** A tree row of the side bar labelled like `pattern` that is not in `known`. */
  | { kind: 'newTreeRow'; pattern: string; known: string[] };

/** Arms the timer: it starts at the next `event` (capture phase) and stops when `expect` is painted. */
// Plain JavaScript text: a bundler's helpers (e.g. esbuild's __name) do not exist in the page.
const ARM_TIMER = `({ event, expect }) => {
  const state = {};
  window.__docchatLatency = state;
  const shown = () => {
    if (expect.kind === 'quickPickRow') {
      const rows = document.querySelectorAll('.quick-input-widget .monaco-list-row');
      return [...rows].some((row) => (row.textContent || '').replace(/\u200b/g, '').includes(expect.text));
    }
    const pattern = new RegExp(expect.pattern);
    const known = new Set(expect.known);
    const labels = document.querySelectorAll('.part.sidebar .monaco-list-row .label-name');
    return [...labels].some((label) => {
      const text = (label.textContent || '').trim();
      return pattern.test(text) && !known.has(text);
    });
  };
  const check = () => {
    if (state.start !== undefined && shown()) {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => (state.end = performance.now());
      channel.port2.postMessage(undefined);
      return;
    }
    requestAnimationFrame(check);
  };
  window.addEventListener(event, (e) => { state.start = e.timeStamp; }, { capture: true, once: true });
  requestAnimationFrame(check);
}`;

/** Arms the timer: it starts at the next `event` (capture phase) and stops when `expect` is painted. */
export async function armTimer(page: Page, event: 'keydown' | 'pointerdown', expect: Expectation): Promise<void> {
  await page.evaluate(`(${ARM_TIMER})(${JSON.stringify({ event, expect })})`);
}

/** Waits for the armed timer; resolves to end − start (ms). */
export async function timerResult(page: Page, timeoutMs = 60_000): Promise<number> {
  const handle = await page.waitForFunction(
    () => {
      const s = (window as any).__docchatLatency;
      return s && s.end !== undefined ? s.end - s.start : undefined;
    },
    undefined,
    { timeout: timeoutMs, polling: 50 },
  );
  return (await handle.jsonValue()) as number;
}

/** Names of the note rows the side bar shows now. */
export async function visibleTreeLabels(page: Page, pattern: string): Promise<string[]> {
  return page.evaluate(
    `[...document.querySelectorAll('.part.sidebar .monaco-list-row .label-name')].map((l) => (l.textContent || '').trim()).filter((t) => new RegExp(${JSON.stringify(pattern)}).test(t))`,
  );
}
