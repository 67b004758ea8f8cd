import * as assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import { contentSecurityPolicy, createNonce, renderChatPage } from '../../../../src/features/chat/chatPage';

const CSP_SOURCE = 'https://abc.vscode-cdn.net';

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('chat webview page: lockdown', () => {
  it('starts from default-src none and allows scripts only by nonce', () => {
    const policy = directives(contentSecurityPolicy(CSP_SOURCE, 'n0nce'));
    assert.deepEqual(policy.get('default-src'), ["'none'"]);
    assert.deepEqual(policy.get('script-src'), ["'nonce-n0nce'"]);
    assert.deepEqual(policy.get('style-src'), [CSP_SOURCE]);
    assert.deepEqual(policy.get('img-src'), [CSP_SOURCE, 'data:'], 'no remote images');
    assert.deepEqual(policy.get('connect-src'), ["'none'"]);
    for (const values of policy.values()) {
      assert.ok(!values.some((v) => /unsafe-|^\*$|^https?:$/.test(v)), `too open: ${values.join(' ')}`);
    }
  });

  it('makes a fresh random nonce for every page', () => {
    const nonces = new Set(Array.from({ length: 50 }, createNonce));
    assert.equal(nonces.size, 50);
    for (const nonce of nonces) assert.ok(Buffer.from(nonce, 'base64').length >= 16);
  });

  it('loads exactly one script, carrying the CSP nonce, and only the given assets', () => {
    const html = renderChatPage({
      cspSource: CSP_SOURCE,
      scriptUri: `${CSP_SOURCE}/dist/webview/chat.js`,
      styleUris: [`${CSP_SOURCE}/dist/webview/chat.css`],
    });
    const document = new JSDOM(html).window.document;
    const scripts = Array.from(document.querySelectorAll('script'));
    assert.equal(scripts.length, 1);
    const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]')!.getAttribute('content')!;
    assert.deepEqual(directives(csp).get('script-src'), [`'nonce-${scripts[0]!.getAttribute('nonce')}'`]);
    const urls = [...document.querySelectorAll('[src], [href]')].map((e) => e.getAttribute('src') ?? e.getAttribute('href'));
    assert.deepEqual(urls, [`${CSP_SOURCE}/dist/webview/chat.css`, `${CSP_SOURCE}/dist/webview/chat.js`]);
    assert.equal(document.querySelector('[onload], [onerror], [style]'), null);
  });
});
