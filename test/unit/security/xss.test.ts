/**
 * A public-style XSS corpus (script tags, event handlers, javascript:/data: URLs, svg/math tricks,
 * markdown link and image tricks) streamed through the real chat webview bundle in headless
 * Chromium, as model output, as the user's question, and as source file names. For each payload:
 * no script runs (a global canary), no request leaves the page, and nothing but the protocol's
 * messages reaches the host (no runAction, links only http(s)). It runs twice: under the panel's
 * Content-Security-Policy, and without any CSP, so the sanitizer alone must hold too.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { renderChatPage } from '../../../src/features/chat/chatPage';
import { CHROMIUM_PATH } from '../../support/harness/paths';
import { CHROMIUM_ARGS } from '../../support/harness/vscode';
import { isOpenableLink } from '../../../src/chatCore/links';
import { parseWebviewMessage } from '../../../src/chatCore/protocol';

const ROOT = path.resolve(__dirname, '../../..');
const ORIGIN = 'https://webview.test';
const CORPUS: { name: string; payload: string }[] = JSON.parse(readFileSync(path.join(__dirname, 'fixtures/xss-corpus.json'), 'utf8'));
const NONCE = 'cnVudGltZW5vbmNl';

/** The page the chat panel serves (its HTML and policy), with this test's origin as the webview source. */
function page(csp: boolean): string {
  const html = renderChatPage({ cspSource: ORIGIN, scriptUri: `${ORIGIN}/chat.js`, styleUris: [`${ORIGIN}/chat.css`], nonce: NONCE });
  const policy = /<meta http-equiv="Content-Security-Policy"[^>]*>\n/;
  assert.match(html, policy, 'the panel page carries its policy');
  return csp ? html : html.replace(policy, '');
}

/** Runs before the bundle: the canary, and a fake VS Code webview API that records every post. */
const INIT = `
  window.__xssFired = 0;
  for (const name of ['alert', 'confirm', 'prompt', 'print']) window[name] = () => { window.__xssFired++; };
  window.open = () => { window.__xssFired++; return null; };
  window.__posted = [];
  const api = { postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))), getState: () => undefined, setState: () => undefined };
  window.acquireVsCodeApi = () => api;
`;

/** What clicking the answer's own links and buttons may post; a payload must add nothing else. */
const ALLOWED_TYPES = new Set(['ready', 'openLink', 'openSource', 'copyCode', 'insertCode', 'regenerate']);

function conversation(i: number, payload: string) {
  const now = 1_700_000_000_000;
  return {
    id: `c${i}`,
    title: payload.slice(0, 200),
    createdAt: now,
    updatedAt: now,
    options: { model: 'alpha-5-mini' },
    pendingContext: [],
    messages: [
      { id: `u${i}`, role: 'user', content: payload, createdAt: now },
      { id: `a${i}`, role: 'assistant', content: '', createdAt: now, status: 'streaming', requestId: `r${i}` },
    ],
  };
}

function sources(payload: string) {
  return [1, 2].map((number) => ({
    kind: 'passage',
    number,
    storeId: 'vs_1',
    storeName: payload,
    fileId: 'file-1',
    filename: payload,
    content: payload,
    score: 0.5,
  }));
}

/** Cuts the payload into deltas at a few points, so the incremental renderer sees partial markup. */
function deltas(payload: string): string[] {
  const cuts = [1, 3, 7, Math.floor(payload.length / 2), payload.length - 2]
    .filter((c) => c > 0 && c < payload.length)
    .sort((a, b) => a - b);
  const out: string[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts), payload.length]) {
    out.push(payload.slice(start, cut));
    start = cut;
  }
  return out.filter((d) => d !== '');
}

for (const csp of [true, false]) {
  describe(`chat webview under an XSS corpus (${csp ? "the panel's CSP" : 'no CSP: the sanitizer alone'})`, function () {
    this.timeout(120_000);
    let outDir: string;
    let browser: Browser;
    let context: BrowserContext;
    let tab: Page;
    const requests: string[] = [];

    before(async function () {
      if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
      // The webview bundle is built from the current sources with esbuild.mjs's options.
      outDir = await mkdtemp(path.join(os.tmpdir(), 'docchat-xss-'));
      const { targets } = (await import(pathToFileURL(path.join(ROOT, 'esbuild.mjs')).href)) as { targets: esbuild.BuildOptions[] };
      const webview = targets.find((t) => 'chat' in (t.entryPoints as Record<string, string>))!;
      await esbuild.build({
        ...webview,
        outdir: outDir,
        minify: false,
        sourcemap: false,
        loader: { ...webview.loader, '.ttf': 'file' },
        logLevel: 'silent',
      });
      const assets: Record<string, [string, string]> = {
        '/index.html': [page(csp), 'text/html'],
        '/chat.js': [await readFile(path.join(outDir, 'chat.js'), 'utf8'), 'text/javascript'],
        // Loaded by the panel at the first code block with a language: payloads in code get highlighted too.
        '/highlight.js': [await readFile(path.join(outDir, 'highlight.js'), 'utf8'), 'text/javascript'],
        '/chat.css': [await readFile(path.join(outDir, 'chat.css'), 'utf8'), 'text/css'],
      };
      browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: CHROMIUM_ARGS,
      });
      context = await browser.newContext();
      // The panel's own highlight.js is no request of a payload's.
      context.on('request', (r) => r.url() !== `${ORIGIN}/highlight.js` && requests.push(r.url()));
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        const asset = url.origin === ORIGIN ? assets[url.pathname] : undefined;
        if (asset) await route.fulfill({ status: 200, contentType: asset[1], body: asset[0] });
        else await route.abort();
      });
      await context.addInitScript(INIT);
      tab = await context.newPage();
      await tab.goto(`${ORIGIN}/index.html`);
      await tab.waitForFunction(() => (window as any).__posted.some((m: { type: string }) => m.type === 'ready'));
      requests.length = 0;
    });
    after(async () => {
      await browser?.close();
      await rm(outDir, { recursive: true, force: true });
    });

    it('renders a harmless answer through the same path (the harness itself works)', async () => {
      const i = -1;
      await tab.evaluate(
        (messages) => messages.forEach((m) => window.postMessage(m, '*')),
        [
          { type: 'state', conversation: conversation(i, 'hello'), conversations: [], projectCode: 'NA' },
          { type: 'streamStart', requestId: `r${i}`, messageId: `a${i}`, sources: [] },
          { type: 'streamDelta', requestId: `r${i}`, text: 'Plain **bold** and [a link](https://example.com).' },
          { type: 'streamDone', requestId: `r${i}`, stopped: false },
        ],
      );
      await tab.waitForFunction(() => document.querySelector('strong')?.textContent === 'bold');
      await tab.evaluate(() => (document.querySelector('[data-href]') as HTMLElement).click());
      const posted = await tab.evaluate(() => (window as any).__posted);
      assert.deepEqual(posted.at(-1), { type: 'openLink', href: 'https://example.com' });
      // The canary itself works: a script that runs is noticed.
      assert.equal(await tab.evaluate(() => (window.alert('probe'), (window as any).__xssFired)), 1);
      await tab.evaluate(() => ((window as any).__xssFired = 0));
    });

    CORPUS.forEach(({ name, payload }, i) => {
      it(`${name}: no script, no request, no foreign message`, async () => {
        await tab.evaluate(() => ((window as any).__posted = []));
        requests.length = 0;
        const messages = [
          {
            type: 'state',
            conversation: conversation(i, payload),
            conversations: [{ id: `c${i}`, title: payload, updatedAt: 1 }],
            projectCode: payload,
          },
          { type: 'streamStart', requestId: `r${i}`, messageId: `a${i}`, sources: sources(payload) },
          ...deltas(payload).map((text) => ({ type: 'streamDelta', requestId: `r${i}`, text })),
          { type: 'streamDone', requestId: `r${i}`, stopped: false, finishReason: 'stop' },
        ];
        await tab.evaluate((list) => list.forEach((m) => window.postMessage(m, '*')), messages);
        await tab.waitForFunction((id) => document.querySelector(`article[data-message-id="${id}"]`) !== null, `a${i}`);
        // Click everything a user could click in the answer and its sources, hover everything.
        await tab.evaluate(() => {
          for (const el of document.querySelectorAll<HTMLElement>(
            'main a, main button, main [data-href], main [data-citation], main [role=link]',
          )) {
            el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
            el.click();
          }
        });
        // Whatever the clicks started (a load and its onerror/onload handlers) ends before the checks.
        await tab.waitForLoadState('networkidle');
        await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        const fired = await tab.evaluate(() => (window as any).__xssFired);
        assert.equal(fired, 0, 'a script of the payload ran');
        assert.deepEqual(requests, [], 'a request left the page');
        const posted: unknown[] = await tab.evaluate(() => (window as any).__posted);
        for (const message of posted) {
          const parsed = parseWebviewMessage(message);
          assert.ok(parsed, `not a protocol message: ${JSON.stringify(message)}`);
          assert.ok(ALLOWED_TYPES.has(parsed.type), `the answer posted ${parsed.type}`);
          if (parsed.type === 'openLink') assert.ok(isOpenableLink(parsed.href), `a link to ${parsed.href} was offered to the host`);
        }
        assert.equal(
          await tab.evaluate(
            () =>
              document.querySelectorAll(
                'main script, main iframe, main object, main embed, main img, main svg, main math, main form, main style, main link, main meta, main base',
              ).length,
          ),
          0,
        );
        assert.equal(
          await tab.evaluate(() =>
            [...document.querySelectorAll('main *')].some((el) =>
              [...el.attributes].some((a) => /^on/i.test(a.name) || /^\s*(javascript|data|vbscript|command|vscode|file):/i.test(a.value)),
            ),
          ),
          false,
          'no handler attribute or dangerous URL survived',
        );
      });
    });
  });
}
