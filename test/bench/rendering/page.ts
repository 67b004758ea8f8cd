/**
 * The page the chat bundle runs in: a fake `acquireVsCodeApi`, a `message` listener registered
 * before the bundle's and one after it (together they time each message's handling), and a
 * long-task observer. `window.__bench` drives it from Playwright.
 */
export function benchPageHtml(chatJs: string, chatCss: string): string {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><link rel="stylesheet" href="${chatCss}">
<script>
  window.__bench = { posted: [], longTasks: [], handling: [], start: 0, resolve: undefined };
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__bench.posted.push(m),
    getState: () => undefined,
    setState: () => undefined,
  });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  window.addEventListener('message', () => { window.__bench.start = performance.now(); });
</script></head>
<body><div id="app" aria-busy="true"></div>
<script src="${chatJs}"></script>
<script>
  window.addEventListener('message', () => {
    const b = window.__bench;
    b.handling.push(performance.now() - b.start);
    const resolve = b.resolve;
    b.resolve = undefined;
    resolve?.();
  });
  /** Posts one message as the host would (its own task) and waits until the app has handled it. */
  window.__bench.deliver = (message) =>
    new Promise((resolve) => {
      window.__bench.resolve = resolve;
      window.postMessage(message, '*');
    });
  window.__bench.reset = () => {
    window.__bench.handling = [];
    window.__bench.longTasks = [];
  };
</script>
</body></html>`;
}
