import * as assert from 'node:assert/strict';
import { shownUrl } from '../../../src/common/shownUrl';

describe('service URLs as DocChat shows, logs and keys them', () => {
  it('keep the origin and path, never the query or fragment (it may hold a key)', () => {
    assert.equal(shownUrl('https://gw.example.com/llm/v1?subscription-key=s3cr3t#x'), 'https://gw.example.com/llm/v1');
    assert.equal(shownUrl('https://docs.example.com/'), 'https://docs.example.com');
    assert.equal(shownUrl('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
    // Not a URL: cut at its query all the same.
    assert.equal(shownUrl('https://[bad/path?key=s3cr3t'), 'https://[bad/path');
  });
});
