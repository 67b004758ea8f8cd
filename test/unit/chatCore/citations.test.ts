import * as assert from 'node:assert/strict';
import { citationAt, citedSources, citedStatements, sourceListMarkdown } from '../../../src/chatCore/citations';
import MarkdownIt from 'markdown-it';

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

  it('gives the block above to every citation of a group on a line of its own', () => {
    const table = '| setting | default |\n|---|---|\n| `pageSize` | `50` |';
    const answer = `${table}\n\n[1][2]`;
    assert.deepEqual(citedStatements(answer, 1, 2), [table]);
    assert.deepEqual(citedStatements(answer, 2, 2), [table]);
  });

  // The inputs of these tests are large enough that a quadratic reading would run for minutes,
  // past the suite's timeout; read in linear time, they take milliseconds.
  it('reads an answer with tens of thousands of citations on one line in linear time', () => {
    const together = `Kept ten years ${'[1]'.repeat(50_000)}`;
    const apart = 'Kept ten years [1] '.repeat(50_000);
    assert.equal(citedStatements(together, 1, 1).length, 50_000);
    assert.equal(citedStatements(apart, 1, 1).length, 50_000);
  });

  it('finds the block above a citation in linear time after a long run of spaces', () => {
    const answer = `Kept${' '.repeat(600_000)}ten years.\n[1]`;
    assert.deepEqual(citedStatements(answer, 1, 1), [`Kept${' '.repeat(600_000)}ten years.`]);
  });

  it('leaves out [n] in code, which the answer shows as code, so the clicked citation is found', () => {
    const answer = [
      'Use `items[1]` for the second item [2].',
      '',
      '```ts',
      'const first = items[1];',
      '```',
      '',
      '[1]',
      '',
      'Arrays start at zero [1].',
    ].join('\n');
    assert.deepEqual(citedStatements(answer, 1, 2), ['```ts\nconst first = items[1];\n```', 'Arrays start at zero']);
    assert.deepEqual(citedStatements(answer, 2, 2), ['Use `items[1]` for the second item']);
  });
});

describe('chat citations: the Sources list under an answer', () => {
  /** The list as a reader sees it: rendered as Markdown (CommonMark numbers an ordered list from its first item). */
  function rendered(markdown: string): string[] {
    const html = new MarkdownIt().render(markdown);
    return [...html.matchAll(/<li>(.*?)<\/li>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
  }

  it('shows each source under the number its citations use, whatever order they were cited in', () => {
    const list = sourceListMarkdown([
      { n: 3, markdown: '[README.md](command:open?3)' },
      { n: 2, markdown: '[guide.md](command:open?2)' },
      { n: 1, markdown: '[CHANGELOG.md](command:open?1)' },
    ]);
    assert.deepEqual(rendered(list), ['[1] CHANGELOG.md', '[2] guide.md', '[3] README.md']);
    assert.doesNotMatch(new MarkdownIt().render(list), /<ol/);
  });

  it('keeps the numbers of sources cited with gaps ([1] and [4])', () => {
    const list = sourceListMarkdown([
      { n: 4, markdown: 'four' },
      { n: 1, markdown: 'one' },
    ]);
    assert.deepEqual(rendered(list), ['[1] one', '[4] four']);
  });

  it('names the section of each passage when known, so passages of one file tell apart', () => {
    const list = sourceListMarkdown([
      { n: 2, markdown: '[README.md](command:open?2)', heading: 'DocChat > Usage > Folder sync', store: 'demo' },
      { n: 1, markdown: '[README.md](command:open?1)', heading: 'DocChat > Local mode', store: 'demo' },
      { n: 3, markdown: '[notes.txt](command:open?3)', store: 'demo' },
    ]);
    assert.deepEqual(rendered(list), ['[1] README.md › Local mode · demo', '[2] README.md › Folder sync · demo', '[3] notes.txt · demo']);
  });

  it('shows a section or store name as text, never as Markdown', () => {
    const list = sourceListMarkdown([{ n: 1, markdown: 'a.md', heading: 'Use *[x](y)* here', store: 'my_store' }]);
    assert.deepEqual(rendered(list), ['[1] a.md › Use *[x](y)* here · my_store']);
  });
});
