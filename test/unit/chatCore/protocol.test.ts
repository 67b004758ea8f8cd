import * as assert from 'node:assert/strict';
import { isOpenableLink } from '../../../src/chatCore/links';
import { parseWebviewMessage } from '../../../src/chatCore/protocol';

describe('chat protocol: messages from the webview', () => {
  const valid: unknown[] = [
    { type: 'ready' },
    { type: 'send', text: 'How long are invoices kept?' },
    // Gateway tools travel as questions; the host routes them by their slash command.
    { type: 'send', text: '/research solar power' },
    { type: 'send', text: '/crawl https://example.com/a https://example.com/b' },
    { type: 'stop' },
    { type: 'stop', requestId: 'r-1' },
    { type: 'regenerate', messageId: 'm-1' },
    { type: 'newChat' },
    { type: 'openConversation', conversationId: 'c-1' },
    { type: 'deleteConversation', conversationId: 'c-1' },
    { type: 'setModel', model: 'alpha-5-mini' },
    { type: 'setOptions', temperature: 0.7, maxCompletionTokens: 512 },
    { type: 'setOptions', temperature: null, maxCompletionTokens: null },
    { type: 'setVectorStore', storeId: 'vs_1' },
    { type: 'setVectorStore', storeId: null },
    { type: 'searchAgain', messageId: 'm-1', query: 'rate limiter limits' },
    { type: 'refreshModels' },
    { type: 'refreshStores' },
    { type: 'removeContext', index: 0 },
    { type: 'openLink', href: 'https://example.com' },
    { type: 'openSource', messageId: 'm-1', number: 2 },
    { type: 'openSource', messageId: 'm-1', number: 2, citation: 1 },
    { type: 'copyCode', code: 'let a = 1;' },
    { type: 'insertCode', code: '' },
    { type: 'runAction', action: 'setGatewayApiKey' },
    { type: 'runAction', action: 'setDocumentsToken' },
    { type: 'runAction', action: 'showOutput' },
  ];
  for (const message of valid) {
    it(`accepts ${JSON.stringify(message)}`, () => {
      assert.deepEqual(parseWebviewMessage(message), message);
    });
  }

  const invalid: Array<[string, unknown]> = [
    ['not an object', 'ready'],
    ['null', null],
    ['an unknown type', { type: 'executeCommand', command: 'workbench.action.terminal.new' }],
    ['a command outside the allow-list', { type: 'runAction', action: 'workbench.action.reloadWindow' }],
    ['an extra field', { type: 'ready', extra: true }],
    ['an empty question', { type: 'send', text: '   ' }],
    ['a question of the wrong type', { type: 'send', text: 42 }],
    ['an over-long question', { type: 'send', text: 'x'.repeat(100_001) }],
    ['a temperature above 2', { type: 'setOptions', temperature: 2.5, maxCompletionTokens: null }],
    ['a fractional token limit', { type: 'setOptions', temperature: null, maxCompletionTokens: 1.5 }],
    ['a missing option', { type: 'setOptions', temperature: 1 }],
    ['a source number 0', { type: 'openSource', messageId: 'm', number: 0 }],
    ['a negative citation index', { type: 'openSource', messageId: 'm', number: 1, citation: -1 }],
    ['a negative context index', { type: 'removeContext', index: -1 }],
    ['an empty id', { type: 'regenerate', messageId: '' }],
    ['an empty search query', { type: 'searchAgain', messageId: 'm-1', query: '  ' }],
    ['a search query over the service limit', { type: 'searchAgain', messageId: 'm-1', query: 'x'.repeat(10_001) }],
    ['a prototype-polluting payload', JSON.parse('{"type":"ready","__proto__":{"polluted":true}}')],
  ];
  for (const [what, message] of invalid) {
    it(`ignores ${what}`, () => {
      assert.equal(parseWebviewMessage(message), undefined);
    });
  }

  it('trims the question it accepts', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: '  hi \n' }), { type: 'send', text: 'hi' });
  });
});

describe('chat protocol: links the host may open', () => {
  for (const href of ['https://example.com/a?b=c', 'http://intranet.example/wiki', 'HTTPS://EXAMPLE.COM']) {
    it(`opens ${href}`, () => assert.equal(isOpenableLink(href), true));
  }
  for (const href of [
    'command:workbench.action.terminal.new',
    'command:docchat.signOut?%5B%5D',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'vscode://file/etc/passwd',
    'vscode-webview://x/index.html',
    'data:text/html,<script>alert(1)</script>',
    'mailto:someone@example.com',
    '//example.com/relative',
    '/relative/path',
    'https://',
    'not a url',
  ]) {
    it(`refuses ${href}`, () => assert.equal(isOpenableLink(href), false));
  }
});
