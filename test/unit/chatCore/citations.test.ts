import * as assert from 'node:assert/strict';
import { citationAt, citedSources, citedStatements } from '../../../src/chatCore/citations';

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

describe('chat citations: what an answer says of each source', () => {
  it("gives the quoted sentences local-extractive wrote before each of a source's citations, in order", () => {
    const answer = [
      'From the supplied sources:',
      '',
      '- "Invoices are kept for ten years. They are archived in the vault." [2]',
      '- "Contracts are kept for six years." [1]',
      '- “Meeting notes are deleted after two years.” [2]',
      '',
      '_local-extractive: quoted from the sources, not generated._',
    ].join('\n');
    assert.deepEqual(citedStatements(answer, 2, 2), [
      'Invoices are kept for ten years. They are archived in the vault.',
      'Meeting notes are deleted after two years.',
    ]);
    assert.deepEqual(citedStatements(answer, 1, 2), ['Contracts are kept for six years.']);
  });

  it('gives the table or code block above a citation on a line of its own', () => {
    const table = '| setting | default |\n|---|---|\n| `pageSize` | `50` |';
    const answer = `From the supplied sources:\n\n- "A sentence." [1]\n\n${table}\n\n[2]\n\n_footer_`;
    assert.deepEqual(citedStatements(answer, 2, 2), [table]);
  });

  it("gives a model's own statement: its sentence up to the citation, after any earlier citation", () => {
    const answer = 'Backups run nightly. They are kept for thirty days [1] and restores need a ticket [2]. Both apply [1][2].';
    assert.deepEqual(citedStatements(answer, 1, 2), ['They are kept for thirty days', 'Both apply']);
    assert.deepEqual(citedStatements(answer, 2, 2), ['and restores need a ticket', 'Both apply']);
  });

  it('counts grouped citations and ignores links and numbers that name no source', () => {
    const answer = 'Kept ten years [1, 2]. See [1](https://example.com). Not [3].';
    assert.deepEqual(citedStatements(answer, 2, 2), ['Kept ten years']);
    assert.deepEqual(citedStatements(answer, 1, 2), ['Kept ten years']);
  });
});
