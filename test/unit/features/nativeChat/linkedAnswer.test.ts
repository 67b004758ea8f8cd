import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { sourceListMarkdown } from '../../../../src/chatCore/citations';
import { LinkedAnswer, unlinkedAnswer } from '../../../../src/features/nativeChat/linkedAnswer';

/** `@docchat`'s answer in VS Code's Chat view, its citations links as it streams (linkedAnswer.ts). */
describe("@docchat's streamed answer with linked citations", () => {
  const link = (n: number, label: string, statement: string) => `<${label}→${n}:${statement}>`;

  /** Streams `parts` and returns what was shown after each, and everything shown. */
  function stream(parts: readonly string[], sources = 3) {
    const answer = new LinkedAnswer(sources, link);
    const shown = parts.map((part) => answer.push(part));
    shown.push(answer.end());
    return { shown, all: shown.join(''), answer };
  }

  it('links each citation to its source with the sentence it stands behind', () => {
    const { all, answer } = stream(['Invoices are kept for ten years [1]. Notes go after two years [2].']);
    assert.equal(
      all,
      'Invoices are kept for ten years <[1]→1:Invoices are kept for ten years>. Notes go after two years <[2]→2:Notes go after two years>.',
    );
    assert.equal(answer.answer, 'Invoices are kept for ten years [1]. Notes go after two years [2].');
  });

  it('gives the same markdown wherever the stream splits the text', () => {
    const text =
      '"A quoted sentence." [1]\n\nA table:\n\n| a | b |\n| - | - |\n\n[2, 3]\n\nAnd `code [1]` stays [3]. So does ``a [1]``` b`` [2] and [1,\n2].';
    const whole = stream([text]).all;
    for (let at = 1; at < text.length; at++) {
      assert.equal(stream([text.slice(0, at), text.slice(at)]).all, whole, `split at ${at}: ${JSON.stringify(text.slice(at - 3, at + 3))}`);
    }
    // Character by character too.
    assert.equal(stream([...text]).all, whole);
    assert.match(whole, /^"A quoted sentence\." <\[1\]→1:A quoted sentence\.>/);
    assert.match(whole, /\\\[<2→2:\| a \| b \|\n\| - \| - \|>, <3→3:\| a \| b \|\n\| - \| - \|>\\\]/);
    assert.match(whole, /`code \[1\]` stays <\[3\]→3:And `code \[1\]` stays>\./);
    assert.match(whole, /So does ``a \[1\]``` b`` <\[2\]→2:So does ``a \[1\]``` b``> and \\\[<1→1:and>, <2→2:and>\\\]\.$/);
  });

  it("leaves indented code alone, however the stream splits it, and links a list item's continued paragraph", () => {
    const text = 'Run it [1].\n\n    npm test [2]\n\n- Step one [3]\n\n    still step one [1]\n\n        code [2]\n\n  ```\n  fenced [3]';
    const whole = stream([text]).all;
    for (let at = 1; at < text.length; at++) assert.equal(stream([text.slice(0, at), text.slice(at)]).all, whole, `split at ${at}`);
    assert.equal(stream([...text]).all, whole);
    assert.deepEqual(
      [...whole.matchAll(/<\[(\d)\]→/g)].map((m) => Number(m[1])),
      [1, 3, 1],
    );
    assert.match(whole, /\n {4}npm test \[2\]\n/);
    assert.match(whole, /\n {8}code \[2\]\n/);
  });

  it('gives the same markdown for generated answers however the stream is cut (lists, code, quotes, tables)', () => {
    const piece = fc.constantFrom(
      '- ',
      '1. ',
      '    ',
      '  ',
      '\t',
      '```',
      '~~~',
      '\n',
      '\n\n',
      'text [1]',
      ' [2]',
      '`c [3]`',
      '> q [1]',
      '## h [2]',
      '| a | b |',
      'x',
      '[',
      '1',
      ']',
      '`',
      ':',
      '](command',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 25 }), fc.array(fc.nat(), { maxLength: 4 }), (pieces, cuts) => {
        const text = pieces.join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const parts = [...points, text.length].map((end, i) => text.slice(i ? points[i - 1] : 0, end));
        assert.equal(stream(parts).all, stream([text]).all, JSON.stringify({ text, points }));
      }),
      { numRuns: 3000 },
    );
  });

  it('closes a code block left open inside a list item within that item, so the Sources list after it is no code', () => {
    for (const text of ['1. Install:\n\n   ```bash\n   npm i [1]', '- a [1]\n  - b [2]\n\n    ```\n    code [1]', '```\ncode [1]']) {
      const shown = stream([text]).all;
      const html = new MarkdownIt().render(`${shown}\n\n**Sources**\n\n- \\[1\\] README.md`);
      assert.match(html, /<strong>Sources<\/strong>/, JSON.stringify(shown));
      assert.doesNotMatch(html, /<code>[^<]*Sources/, JSON.stringify(shown));
    }
  });

  it('shows text as it arrives, holding back only an unfinished citation, a possible link text, and inline code not yet closed', () => {
    const { shown } = stream(['Kept for ten years ', '[', '1', ']', ' and more', ' `open [2', '] code`', ' end.']);
    assert.deepEqual(shown, [
      'Kept for ten years ',
      '',
      '',
      '',
      '<[1]→1:Kept for ten years> and more',
      ' ',
      // A closing run of backticks may still grow ("`" then "``"): shown with what follows it.
      '',
      '`open [2] code` end.',
      '',
    ]);
  });

  it('leaves alone what is not a citation of a source: a markdown link, a number past the sources, fenced code', () => {
    const { all } = stream(['See [1](https://example.com) and [9] and\n```\nlist[1]\n```\ndone [1].']);
    assert.equal(all, 'See [1](https://example.com) and [9] and\n```\nlist[1]\n```\ndone <[1]→1:done>.');
  });

  it('closes a code block the answer leaves open, so nothing shown after it becomes code', () => {
    assert.equal(stream(['Run:\n```bash\nnpm test']).all, 'Run:\n```bash\nnpm test\n```\n');
    assert.equal(stream(['Run:\n~~~~\nnpm test\n']).all, 'Run:\n~~~~\nnpm test\n~~~~\n');
    assert.equal(stream(['Run:\n```\nnpm test\n```\n']).all, 'Run:\n```\nnpm test\n```\n');
  });

  it("breaks every command: address of the model's text, however it is split, and leaves other links and words alone", () => {
    const text =
      'Click [here](command:workbench.action.terminal.sendSequence?x), <COMMAND:evil>, [a]( <command:b>)\n\n[r]: command:c\n\n' +
      'Read [the docs](https://example.com/a:b). Run this command: npm test [1].';
    const whole = stream([text]).all;
    for (let at = 1; at < text.length; at++) assert.equal(stream([text.slice(0, at), text.slice(at)]).all, whole, `split at ${at}`);
    assert.doesNotMatch(whole, /(?:\]\(\s*<?|<|\]:\s*<?)command:/i, whole);
    assert.equal((whole.match(/command\u200b:/gi) ?? []).length, 4);
    assert.match(whole, /\[the docs\]\(https:\/\/example\.com\/a:b\)\. Run this command: npm test <\[1\]→1:/);
  });

  it('does not link a bracket that is escaped or in a link address', () => {
    const { all } = stream(['See \\[1] and [docs](https://x/?f[1]=2) but [1].']);
    assert.equal(all, 'See \\[1] and [docs](https://x/?f[1]=2) but <[1]→1:See \\[1] and [docs](https://x/?f[1]=2) but>.');
  });

  it('gives back the plain answer from what was shown, for the next turn', () => {
    const real = new LinkedAnswer(
      3,
      (n, label) => `[${label.replace(/[[\]]/g, (c) => `\\${c}`)}](command:docchat.participant.openPassage?%5B${n}%5D "Open the passage")`,
    );
    const text = 'One [1]. Two [2, 3]. A [link](command:x) and `[1]`.';
    const shown = real.push(text) + real.end();
    assert.notEqual(shown, text);
    assert.equal(unlinkedAnswer(shown), text.replace('(command:', '(command:'));
  });

  it('leaves the Sources list out of the plain answer, and keeps a list the answer wrote', () => {
    const list = sourceListMarkdown([
      {
        n: 1,
        markdown: '[README.md](command:docchat.participant.openPassage?%5B%7B%22id%22%3A1%7D%5D "Open the passage")',
        heading: 'Usage > Sync',
        store: 'demo',
      },
      { n: 2, markdown: '[guide.md](command:docchat.participant.openPassage?%5B2%5D "Open the passage")' },
    ]);
    const answer = 'Steps:\n\n- Open the folder [1].\n- Run **Sync** [2].';
    assert.equal(unlinkedAnswer(`${answer}\n\n**Sources**\n\n${list}`), answer);
    assert.equal(unlinkedAnswer(`${answer}\n\n**Sources**\n\n${list}\n`), answer);
    assert.equal(unlinkedAnswer(answer), answer);
    // As @docchat shows it: what it searched for first, its note on the model last.
    const searched = '*Searched for: attach a folder*\n\n';
    const note = "\n\n*Answered by local-extractive through DocChat's Local mode\\.*";
    assert.equal(unlinkedAnswer(`${searched}${answer}\n\n**Sources**\n\n${list}${note}`), `${searched}${answer}${note}`);
    assert.equal(unlinkedAnswer(`**Note**\n\n${answer}`), `**Note**\n\n${answer}`);
  });
});
