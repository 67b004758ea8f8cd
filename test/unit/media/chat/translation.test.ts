import * as assert from 'node:assert/strict';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { JSDOM } from 'jsdom';
import type { WebviewMessage } from '../../../../src/chatCore/protocol';
import { renderChatPage } from '../../../../src/features/chat/chatPage';

// The chat webview speaks the display language: the host puts VS Code's bundle on the page it
// renders (`renderChatPage`), and the webview's entry (`media/chat/main.ts`) hands it to
// `@vscode/l10n` before it builds anything. Run here on that page in a DOM (jsdom).

const MAIN = path.resolve(__dirname, '../../../../media/chat/main.ts');
const PLACEHOLDER = 'Ask a question, or use /web, /crawl, /research. Enter to send, Shift+Enter for a new line, Escape to stop.';

/** Runs the webview's entry on `html`; resolves to the page and what the webview posted. */
function startWebview(html: string): { dom: JSDOM; posted: WebviewMessage[]; restore: () => void } {
  const dom = new JSDOM(html, { pretendToBeVisual: true });
  const g = globalThis as Record<string, unknown>;
  const names = ['document', 'window', 'requestAnimationFrame', 'acquireVsCodeApi'] as const;
  const saved = Object.fromEntries(names.map((name) => [name, g[name]]));
  const posted: WebviewMessage[] = [];
  Object.assign(g, {
    document: dom.window.document,
    window: dom.window,
    requestAnimationFrame: dom.window.requestAnimationFrame.bind(dom.window),
    acquireVsCodeApi: () => ({ postMessage: (m: WebviewMessage) => posted.push(m), getState: () => undefined, setState: () => undefined }),
  });
  // esbuild bundles the stylesheet; here it is nothing.
  require.extensions['.css'] ??= (module) => void (module.exports = {});
  // DOMPurify binds to the window there is when it loads: this page's.
  delete require.cache[require.resolve('dompurify')];
  delete require.cache[MAIN];
  require(MAIN);
  return {
    dom,
    posted,
    restore: () => {
      Object.assign(g, saved);
      l10n.config({ contents: {} });
      dom.window.close();
    },
  };
}

describe('chat webview translations', () => {
  it("shows the sentences of the bundle the host puts on the page, and says the page's language", () => {
    const page = renderChatPage({
      cspSource: 'vscode-webview://test',
      scriptUri: 'chat.js',
      styleUris: [],
      language: 'de',
      l10nBundle: { Send: 'Senden', Conversation: 'Unterhaltung', [PLACEHOLDER]: 'Fragen Sie etwas – Eingabe sendet.' },
    });
    const { dom, posted, restore } = startWebview(page);
    try {
      const document = dom.window.document;
      assert.equal(document.documentElement.lang, 'de');
      assert.equal(document.querySelector('button.send')?.textContent, 'Senden');
      assert.equal(document.querySelector('.conversation-select')?.getAttribute('aria-label'), 'Unterhaltung');
      assert.equal(document.querySelector('textarea.composer-input')?.getAttribute('placeholder'), 'Fragen Sie etwas – Eingabe sendet.');
      // A sentence the bundle does not hold stays in English.
      assert.equal(document.querySelector('.model-select')?.getAttribute('aria-label'), 'Model');
      assert.deepEqual(posted, [{ type: 'ready' }]);
    } finally {
      restore();
    }
  });

  it('shows English when the host has no bundle (VS Code in English)', () => {
    const { dom, restore } = startWebview(renderChatPage({ cspSource: 'vscode-webview://test', scriptUri: 'chat.js', styleUris: [] }));
    try {
      assert.equal(dom.window.document.documentElement.lang, 'en');
      assert.equal(dom.window.document.querySelector('button.send')?.textContent, 'Send');
      assert.equal(dom.window.document.querySelector('textarea.composer-input')?.getAttribute('placeholder'), PLACEHOLDER);
    } finally {
      restore();
    }
  });
});
