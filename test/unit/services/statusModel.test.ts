import * as assert from 'node:assert/strict';
import { presentStatus } from '../../../src/services/statusModel';

describe('status bar text', () => {
  it('says Local, the remote host, Signed out, or an error', () => {
    assert.match(presentStatus({ kind: 'local', url: 'http://127.0.0.1:4000' }, 0).text, /DocChat: Local$/);
    assert.match(
      presentStatus({ kind: 'remote', url: 'https://docs.example.com', host: 'docs.example.com' }, 0).text,
      /docs\.example\.com$/,
    );
    const signedOut = presentStatus({ kind: 'signedOut', url: 'https://docs.example.com', host: 'docs.example.com' }, 0);
    assert.match(signedOut.text, /Signed out/);
    assert.equal(signedOut.command, 'docchat.setDocumentsToken');
    assert.equal(presentStatus({ kind: 'error', message: 'port in use' }, 0).tooltip, 'port in use');
    assert.match(presentStatus({ kind: 'starting' }, 0).text, /Starting/);
  });

  it('says Not started before DocChat was used, and opens its view rather than starting anything else', () => {
    const idle = presentStatus({ kind: 'idle' }, 0);
    assert.equal(idle.text, '$(comment-discussion) DocChat: Not started');
    assert.match(idle.tooltip, /starts when you use it/);
    assert.equal(idle.command, 'docchat.stores.focus');
    assert.equal(idle.warning, false);
  });

  it('says Rate-limited with the seconds left, whatever the mode', () => {
    const p = presentStatus({ kind: 'local', url: 'http://127.0.0.1:4000' }, 12);
    assert.match(p.text, /Rate-limited \(12 s\)/);
    assert.equal(p.warning, true);
  });
});
