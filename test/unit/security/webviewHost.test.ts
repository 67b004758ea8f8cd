/**
 * The chat webview cannot make the host do anything outside the protocol: the real ChatPanel
 * receives hostile messages (unknown types, commands outside the allow-list, extra fields,
 * prototype pollution, wrong types, oversized values) and hands none of them to the controller;
 * the protocol's own messages still get through. The panel's HTML and options are the locked-down
 * ones. `vscode` is the only module faked (a panel whose webview records what happens).
 */
import * as assert from 'node:assert/strict';
import { loadWithFakeVscode } from '../../support/fakeVscode';
import { isOpenableLink } from '../../../src/chatCore/links';

interface FakeWebview {
  options: any;
  html: string;
  cspSource: string;
  posted: unknown[];
  listener?: (message: unknown) => void;
}

function fakeVscode() {
  class EventEmitter {
    private listeners: ((e: unknown) => void)[] = [];
    event = (listener: (e: unknown) => void) => {
      this.listeners.push(listener);
      return { dispose: () => undefined };
    };
    fire(e: unknown) {
      for (const l of this.listeners) l(e);
    }
    dispose() {}
  }
  const Uri = {
    joinPath: (base: { path: string }, ...parts: string[]) => ({
      path: [base.path, ...parts].join('/'),
      toString() {
        return `file://${this.path}`;
      },
    }),
  };
  // English: no translations loaded, so l10n.t only fills in its placeholders.
  const l10n = {
    bundle: undefined,
    t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_m, i: string) => String(args[Number(i)])),
  };
  return { EventEmitter, Uri, ViewColumn: { Beside: -2 }, window: {}, commands: {}, l10n, env: { language: 'en' } };
}

describe('chat host: only the protocol gets through', () => {
  const vscode = fakeVscode();
  const { ChatPanel } = loadWithFakeVscode<typeof import('../../../src/features/chat/chatPanel')>(
    vscode,
    require.resolve('../../../src/features/chat/chatPanel'),
  );
  const handled: unknown[] = [];
  const warnings: string[] = [];
  const webview: FakeWebview = { options: undefined, html: '', cspSource: 'vscode-webview://fake', posted: [] };
  const panel = {
    webview: {
      set options(value: unknown) {
        webview.options = value;
      },
      get options() {
        return webview.options;
      },
      set html(value: string) {
        webview.html = value;
      },
      get html() {
        return webview.html;
      },
      cspSource: webview.cspSource,
      asWebviewUri: (uri: { path: string }) => ({ toString: () => `vscode-webview://fake${uri.path}` }),
      onDidReceiveMessage: (listener: (m: unknown) => void) => {
        webview.listener = listener;
        return { dispose: () => undefined };
      },
      postMessage: async (m: unknown) => {
        webview.posted.push(m);
        return true;
      },
    },
    onDidDispose: () => ({ dispose: () => undefined }),
    dispose: () => undefined,
    visible: true,
    reveal: () => undefined,
  };
  const log = { warn: (m: string) => warnings.push(m), info() {}, debug() {}, error() {}, trace() {} };
  new ChatPanel(panel as never, { path: '/ext' } as never, { snapshot: () => [], handle: (m) => handled.push(m) }, log as never);
  const send = (message: unknown) => webview.listener!(message);

  it('locks the webview down: CSP from default-src none with a nonce, no command URIs, one resource root', () => {
    assert.equal(webview.options.enableCommandUris, false);
    assert.deepEqual(
      webview.options.localResourceRoots.map((u: { path: string }) => u.path),
      ['/ext/dist/webview'],
    );
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(webview.html)?.[1] ?? '';
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.match(csp, /connect-src 'none'/);
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    for (const script of webview.html.match(/<script[^>]*>/g) ?? []) assert.ok(script.includes(`nonce="${nonce}"`), script);
  });

  const hostile: [string, unknown][] = [
    ['a string', 'ready'],
    ['null', null],
    ['an array', [{ type: 'ready' }]],
    ['a number', 42],
    ['an unknown type', { type: 'executeCommand', command: 'workbench.action.terminal.new', args: [] }],
    ['a command outside the allow-list', { type: 'runAction', action: 'workbench.action.reloadWindow' }],
    ['a command id as action', { type: 'runAction', action: 'docchat.signOut' }],
    ['a link with an extra field', { type: 'openLink', href: 'https://example.com', command: 'vscode.open' }],
    ['prototype pollution', JSON.parse('{"type":"send","text":"hi","__proto__":{"isAdmin":true}}')],
    ['constructor pollution', JSON.parse('{"type":"newChat","constructor":{"prototype":{"x":1}}}')],
    ['a question of the wrong type', { type: 'send', text: { toString: 'x' } }],
    ['an oversized question', { type: 'send', text: 'x'.repeat(100_001) }],
    ['an oversized link', { type: 'openLink', href: `https://example.com/${'a'.repeat(9000)}` }],
    ['a type with a different case', { type: 'Ready' }],
    ['a type with a trailing space', { type: 'ready ' }],
    ['a numeric id', { type: 'openConversation', conversationId: 7 }],
    ['a negative index', { type: 'removeContext', index: -1 }],
    ['a NaN source number', { type: 'openSource', messageId: 'm', number: Number.NaN }],
    ['a temperature of Infinity', { type: 'setOptions', temperature: Number.POSITIVE_INFINITY, maxCompletionTokens: null }],
  ];

  it('ignores (and logs, briefly) every message outside the protocol', () => {
    handled.length = 0;
    warnings.length = 0;
    for (const [, message] of hostile) send(message);
    assert.deepEqual(handled, [], 'no hostile message reached the controller');
    assert.equal(warnings.length, hostile.length, 'each one was logged');
    for (const w of warnings) assert.ok(w.length < 200, `a short log line: ${w.slice(0, 100)}…`);
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined, 'no prototype was polluted');
  });

  it('passes the protocol messages through', () => {
    handled.length = 0;
    send({ type: 'ready' });
    send({ type: 'send', text: 'How long are invoices kept?' });
    send({ type: 'runAction', action: 'showOutput' });
    send({ type: 'openLink', href: 'https://example.com/a' });
    assert.deepEqual(
      handled.map((m) => (m as { type: string }).type),
      ['send', 'runAction', 'openLink'],
    );
  });

  // The check ChatController.openLink makes before it hands a link to the browser. That the
  // controller makes it is tested on the real controller in the extension host:
  // test/vscode/suite/chat/chatController.test.ts ("opens an https link from the webview, …").
  it('isOpenableLink accepts http(s) links only, whatever the webview sends', () => {
    for (const href of ['https://example.com', 'http://example.com/x']) assert.equal(isOpenableLink(href), true, href);
    for (const href of [
      'command:workbench.action.terminal.new',
      'vscode://settings',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,x',
      'mailto:a@b.c',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
    ]) {
      assert.equal(isOpenableLink(href), false, href);
    }
  });
});
