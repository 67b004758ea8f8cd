import * as assert from 'node:assert/strict';
import { citationAt, citedSources } from '../../../src/chatCore/citations';

describe('chat citations: mapping [n] to numbered sources', () => {
  it('finds single and grouped citations in order of first mention, without duplicates', () => {
    assert.deepEqual(citedSources('Ten years [2]. Six [1, 3]. Again [2][1].', 3), [2, 1, 3]);
  });

  it('ignores numbers outside the sources and bracketed text that is not a citation', () => {
    assert.deepEqual(citedSources('[0] [4] [1a] [ 1 ] [] [x] [1.5] [12345]', 3), []);
    assert.deepEqual(citedSources('Only [2] counts, not [7].', 3), [2]);
  });

  it('rejects a group when any of its numbers is out of range', () => {
    assert.equal(citationAt('[1, 9]', 0, 3), undefined);
  });

  it('treats [n](url) and [n]: as markdown links / definitions, not citations', () => {
    assert.equal(citationAt('[1](https://example.com)', 0, 3), undefined);
    assert.equal(citationAt('[1]: https://example.com', 0, 3), undefined);
  });

  it('cites nothing when the answer has no sources', () => {
    assert.deepEqual(citedSources('Ten years [1].', 0), []);
  });

  it('reports the length of the citation text', () => {
    assert.deepEqual(citationAt('see [1, 2] here', 4, 2), { numbers: [1, 2], length: 6 });
  });

  it('maps the citations the local extractive model writes', () => {
    const answer = 'From the supplied sources:\n\n- "Invoices are kept for ten years." [1]\n- "Contracts for six." [2]\n';
    assert.deepEqual(citedSources(answer, 2), [1, 2]);
  });
});
