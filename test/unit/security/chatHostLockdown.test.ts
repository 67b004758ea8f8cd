/**
 * The chat panel's lockdown, spelled out whole so that any change to it is a deliberate one: the
 * exact content security policy, the exact webview options, and the real ChatPanel's handling of
 * what it posts before and after the webview says `ready` and of what it logs for a message
 * outside the protocol. `vscode` is the only module faked.
 */
import * as assert from 'node:assert/strict';
import { contentSecurityPolicy, renderChatPage } from '../../../src/features/chat/chatPage';
import type * as ChatPanelModule from '../../../src/features/chat/chatPanel';
import type * as WebviewHtmlModule from '../../../src/features/chat/webviewHtml';
import { loadWithFakeVscode } from '../../support/fakeVscode';

const disposable = { dispose: () => undefined };
const fake = {
  EventEmitter: class {
    private listeners: ((e: unknown) => void)[] = [];
    event = (listener: (e: unknown) => void) => {
      this.listeners.push(listener);
      return disposable;
    };
    fire(e: unknown) {
      for (const l of this.listeners) l(e);
    }
    dispose() {}
  },
  Uri: {
    joinPath: (base: { path: string }, ...parts: string[]) => ({
      path: [base.path, ...parts].join('/'),
      toString: () => [base.path, ...parts].join('/'),
    }),
  },
  ViewColumn: { Beside: -2 },
  l10n: { bundle: undefined, t: (m: string) => m },
  env: { language: 'en' },
};

describe('chat panel lockdown, whole', () => {
  it('the content security policy is exactly this', () => {
    assert.equal(
      contentSecurityPolicy('https://cdn.example', 'N0NCE'),
      "default-src 'none'; style-src https://cdn.example; font-src https://cdn.example; img-src https://cdn.example data:; script-src 'nonce-N0NCE'; connect-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'",
    );
  });

  it('escapes what the page puts in its attributes', () => {
    const html = renderChatPage({
      cspSource: 'https://cdn.example',
      scriptUri: 'https://cdn.example/chat.js?a=1&b="2"<x>',
      styleUris: [],
      nonce: 'N0NCE',
      language: 'en"><script>alert(1)</script>',
    });
    assert.ok(html.includes('src="https://cdn.example/chat.js?a=1&amp;b=&quot;2&quot;&lt;x>"'), html);
    assert.ok(html.includes('lang="en&quot;>&lt;script>alert(1)&lt;/script>"'), html);
    assert.equal((html.match(/<script/g) ?? []).length, 1, 'no script but the bundle');
  });

  it('the webview options are exactly these', () => {
    const { webviewOptions } = loadWithFakeVscode<typeof WebviewHtmlModule>(
      fake,
      require.resolve('../../../src/features/chat/webviewHtml'),
    );
    const options = webviewOptions({ path: '/ext' } as never);
    assert.deepEqual(
      { ...options, localResourceRoots: options.localResourceRoots?.map((u) => (u as unknown as { path: string }).path) },
      {
        enableScripts: true,
        enableCommandUris: false,
        enableFindWidget: true,
        retainContextWhenHidden: true,
        localResourceRoots: ['/ext/dist/webview'],
      },
    );
  });

  describe('ChatPanel', () => {
    const { ChatPanel } = loadWithFakeVscode<typeof ChatPanelModule>(fake, require.resolve('../../../src/features/chat/chatPanel'));
    function open() {
      const posted: unknown[] = [];
      const warnings: string[] = [];
      const handled: unknown[] = [];
      let listener: ((m: unknown) => void) | undefined;
      let failPosts = false;
      const panel = {
        webview: {
          options: undefined as Record<string, unknown> | undefined,
          html: '',
          cspSource: 'https://cdn.example',
          asWebviewUri: (uri: { path: string }) => ({ toString: () => `https://cdn.example${uri.path}` }),
          onDidReceiveMessage: (l: (m: unknown) => void) => {
            listener = l;
            return disposable;
          },
          postMessage: async (m: unknown) => {
            if (failPosts) throw new Error('webview gone');
            posted.push(m);
            return true;
          },
        },
        onDidDispose: () => disposable,
        dispose: () => undefined,
        reveal: () => undefined,
      };
      const log = { warn: (m: string) => warnings.push(m), info() {}, debug() {}, error() {}, trace() {} };
      const snapshot = [{ type: 'state', n: 1 }];
      const chat = new ChatPanel(
        panel as never,
        { path: '/ext' } as never,
        { snapshot: () => snapshot as never, handle: (m) => handled.push(m) },
        log as never,
      );
      return { chat, posted, warnings, handled, send: (m: unknown) => listener!(m), failPosts: () => (failPosts = true), panel };
    }
    const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

    it('posts nothing before ready; on ready, the snapshot and only the pending focus requests', async () => {
      const t = open();
      t.chat.post({ type: 'streamDelta', requestId: 'r', text: 'old' } as never);
      t.chat.post({ type: 'focusComposer' });
      await settled();
      assert.deepEqual(t.posted, []);
      t.send({ type: 'ready' });
      await settled();
      assert.deepEqual(t.posted, [{ type: 'state', n: 1 }, { type: 'focusComposer' }]);
      t.chat.post({ type: 'focusComposer' });
      await settled();
      assert.equal(t.posted.length, 3, 'after ready, a post goes out at once');
      assert.deepEqual(t.handled, [], 'ready is the panel’s, not the controller’s');
    });

    it('sets the locked-down options and a page that loads only the bundle’s script and styles', () => {
      const t = open();
      assert.equal(t.panel.webview.options!['enableCommandUris' as never], false);
      const html = t.panel.webview.html;
      const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
      const styles = [...html.matchAll(/<link[^>]*href="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(scripts, ['https://cdn.example/ext/dist/webview/chat.js']);
      assert.deepEqual(styles, [
        'https://cdn.example/ext/dist/webview/codicons/codicon.css',
        'https://cdn.example/ext/dist/webview/chat.css',
      ]);
    });

    it('logs a failed post with its type', async () => {
      const t = open();
      t.send({ type: 'ready' });
      t.failPosts();
      t.chat.post({ type: 'focusComposer' });
      await settled();
      assert.equal(t.warnings.length, 1);
      assert.match(t.warnings[0]!, /Could not post focusComposer: Error: webview gone/);
    });

    it('logs a message outside the protocol by its type (at most 40 characters) or its kind', () => {
      const t = open();
      t.send({ type: `x${'y'.repeat(100)}` });
      t.send('ready');
      t.send(null);
      t.send({ kind: 'ready' });
      assert.deepEqual(t.handled, []);
      assert.deepEqual(t.warnings, [
        `Ignored a message from the chat webview that is not part of the protocol (x${'y'.repeat(39)}).`,
        'Ignored a message from the chat webview that is not part of the protocol (string).',
        'Ignored a message from the chat webview that is not part of the protocol (object).',
        'Ignored a message from the chat webview that is not part of the protocol (object).',
      ]);
    });
  });
});
