import * as assert from 'node:assert/strict';
import { citationAt, citationSpans, citedSources, citedStatements, sourceListMarkdown } from '../../../src/chatCore/citations';
import fc from 'fast-check';
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

/** The citations markdown shows as text (not code), in order: what VS Code's chat markdown links. */
function shownAsText(markdown: string): number[] {
  const out: number[] = [];
  for (const t of new MarkdownIt().parse(markdown, {})) {
    if (t.type !== 'inline' || !t.children) continue;
    let run = '';
    const flush = () => {
      for (const m of run.matchAll(/\[(\d+)\]/g)) out.push(Number(m[1]));
      run = '';
    };
    for (const c of t.children) {
      if (c.type === 'text') run += c.content;
      else flush();
    }
    flush();
  }
  return out;
}

/**
 * An answer as models write them, from random choices: paragraphs with inline code, lists nested
 * at their items' content column, indented and fenced code (in lists too, a fence sometimes left
 * open), headings, quotes and tab-indented lines; each citation a new number.
 */
function answerOf(choices: number[]): string {
  let i = 0;
  let n = 0;
  const pick = (k: number) => (choices[i++ % choices.length] ?? 0) % k;
  const cite = () => `[${++n}]`;
  const pad = (col: number) => ' '.repeat(col);
  const lines: string[] = [];
  const blocks = (col: number, depth: number, count: number) => {
    for (let b = 0; b < count; b++) {
      if (b > 0 && pick(2)) lines.push('');
      switch (pick(depth >= 2 ? 5 : 7)) {
        case 0:
          lines.push(`${pad(col)}Some text ${cite()} and \`x${cite()}\` end.`);
          if (pick(3) === 0) lines.push(`${pad(pick(2) ? col : 0)}carried on ${cite()}.`);
          break;
        case 1:
          lines.push('', `${pad(col + 4)}code ${cite()}`);
          if (pick(2)) lines.push(`${pad(col + 4 + pick(3))}more ${cite()}`);
          lines.push('');
          break;
        case 2: {
          const fence = pick(2) ? '```' : '~~~';
          lines.push(`${pad(col)}${fence}${pick(2) ? 'ts' : ''}`, `${pad(col + pick(2) * 2)}code ${cite()}`);
          if (pick(4)) lines.push(`${pad(col)}${fence}`);
          break;
        }
        case 3:
          lines.push(col === 0 ? `## Title ${cite()}` : `${pad(col)}> quoted ${cite()}`);
          break;
        case 4:
          lines.push('', `${pick(2) ? '\t' : pad(col + 4)}tabbed ${cite()}`, '');
          break;
        default: {
          const marker = pick(2) ? '- ' : '1. ';
          const items = 1 + pick(2);
          for (let it = 0; it < items; it++) {
            lines.push(`${pad(col)}${marker}item ${cite()}`);
            if (pick(2)) blocks(col + marker.length, depth + 1, 1 + pick(2));
          }
          if (pick(2)) lines.push('');
        }
      }
    }
  };
  blocks(0, 0, 1 + pick(5));
  return lines.join('\n');
}

describe('chat citations: what markdown shows as code', () => {
  it('finds the citations markdown-it shows as text, in answers with lists, indented and fenced code', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 60 }), (choices) => {
        const text = answerOf(choices);
        assert.deepEqual(
          citationSpans(text, 999).flatMap((s) => s.numbers),
          shownAsText(text),
          text,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves out a citation in indented code, but not in a list item's continued paragraph", () => {
    const answer = [
      'Run it [1].',
      '',
      '    npm test [2]',
      '',
      '- Step one [3]',
      '',
      '    still step one [4]',
      '',
      '        code of step one [5]',
    ].join('\n');
    assert.deepEqual(
      citationSpans(answer, 9).flatMap((s) => s.numbers),
      [1, 3, 4],
    );
  });
});
