import * as assert from 'node:assert/strict';
import { excerptAt, makeSnippet, plainText } from '../../../src/chatCore/snippet';

/** True when the excerpt (its "…" taken off) starts and ends with whole words of `source`. */
function wholeWords(excerpt: string, source: string): boolean {
  const body = excerpt.replace(/^…/, '').replace(/…$/, '');
  const at = source.indexOf(body);
  if (at < 0) return false;
  const edge = (c: string | undefined) => c === undefined || /\s/.test(c);
  return edge(source[at - 1]) && edge(source[at + body.length]);
}

describe('search snippets', () => {
  describe('plainText', () => {
    const cases: [string, string, string][] = [
      ['emphasis', '**Plan, the freeze** is _not_ optional, ~~never~~ *ever*.', 'Plan, the freeze is not optional, never ever.'],
      ['an image: its alt text', '![The search quick pick](media/search.png) lists results', 'The search quick pick lists results'],
      ['a link: its text', 'See [the settings](docs/settings.md#search) and [ref][1].', 'See the settings and ref.'],
      ['a link whose address has parentheses', 'Read [the page](https://en.wikipedia.org/wiki/Foo_(bar)) first.', 'Read the page first.'],
      ['heading marks and quotes', '## Attach a folder\n> Use **DocChat: Sync Folder**.', 'Attach a folder Use DocChat: Sync Folder.'],
      [
        'a table',
        '| Setting | Default |\n| --- | :---: |\n| `docchat.search.maxResults` | `10` |',
        'Setting · Default docchat.search.maxResults · 10',
      ],
      ['list bullets and task boxes', '- [x] first\n* second\n+ third', 'first second third'],
      ['code keeps its underscores and stars', 'Run `__init__(*args)` in snake_case_module', 'Run __init__(*args) in snake_case_module'],
      ['fences go, code stays', '```ts\nconst a = b * c;\n```', 'const a = b * c;'],
      ['a bare URL stays whole', 'Docs at https://example.com/a_b_c?x=1*2 now', 'Docs at https://example.com/a_b_c?x=1*2 now'],
      ['arithmetic is no emphasis', '2 * 3 * 4 = 24', '2 * 3 * 4 = 24'],
      ['HTML tags and comments', 'one<br>two <!-- hidden --> <kbd>Ctrl</kbd>', 'one two Ctrl'],
      ['escapes', 'a \\*literal\\* star and 1\\. item', 'a *literal* star and 1. item'],
      [
        'non-Latin text',
        '## 検索\n\n**ベクトルストア**を検索します。 Поиск по *хранилищу*.',
        '検索 ベクトルストアを検索します。 Поиск по хранилищу.',
      ],
      ['an image cut off by the passage end', 'Intro ![The search quick', 'Intro The search quick'],
      [
        'an image or a link whose text holds brackets of its own',
        '![The chat: an answer citing [1], and its source](media/chat.png) and [the `[n]` marks](docs/a.md) stay text',
        'The chat: an answer citing [1], and its source and the [n] marks stay text',
      ],
    ];
    for (const [what, markdown, plain] of cases) {
      it(what, () => assert.equal(plainText(markdown), plain));
    }
  });

  describe('makeSnippet', () => {
    it('neither starts nor ends a cut at a table cell separator', () => {
      const table = `| setting | default | what it does |\n|---|---|---|\n${Array.from({ length: 12 }, (_, i) => `| docchat.key${i} | false | offer agents the tools number ${i} |`).join('\n')}`;
      for (const query of ['tools number 7', 'docchat.key5', 'false']) {
        const text = makeSnippet(table, query, 80).text;
        assert.doesNotMatch(text, /^…?\s*·|·\s*…?$/, `${query}: ${text}`);
      }
    });

    const prose =
      'DocChat searches the vector stores you choose. To attach a whole folder, run DocChat: Sync Folder from the Explorer; ' +
      'the folder is uploaded, converted and kept in sync as you save. Older act at once when a change arrives, and the ' +
      'status bar shows the progress of every sync with the number of files that changed since the last one.';

    it('starts and ends at word boundaries, with an ellipsis where it cuts, around the match', () => {
      for (const [query, width] of [
        ['attach folder', 60],
        ['status bar', 80],
        ['changed', 50],
        ['nothing matches', 70],
        ['Explorer', 33],
      ] as const) {
        const s = makeSnippet(prose, query, width);
        assert.ok(wholeWords(s.text, prose), `"${s.text}" for ${query} is cut inside a word`);
        assert.ok(s.text.length <= width + 2, `"${s.text}" is longer than ${width}`);
        if (s.match) {
          const longest = query
            .toLowerCase()
            .split(' ')
            .sort((a, b) => b.length - a.length)[0];
          assert.equal(s.text.slice(s.match.start, s.match.end).toLowerCase(), longest);
        }
      }
      const middle = makeSnippet(prose, 'status', 60).text;
      assert.ok(middle.startsWith('…') && middle.endsWith('…'), middle);
    });

    it('shows markdown as plain text, and its match where the marks were', () => {
      const s = makeSnippet('# Plan\n\n**Plan, the freeze** ![The search quick pick](a.png) lists [results](r.md).', 'quick pick');
      assert.equal(s.text, 'Plan Plan, the freeze The search quick pick lists results.');
      assert.equal(s.text.slice(s.match!.start, s.match!.end), 'quick');
    });

    it('cuts text without spaces (Japanese) between characters, and a very long word where it must', () => {
      const japanese = 'ベクトルストアを選んでから検索します。'.repeat(20);
      const s = makeSnippet(japanese, '検索', 40);
      assert.ok(s.text.length <= 42, s.text);
      assert.equal(s.text.slice(s.match!.start, s.match!.end), '検索');
      const url = `see https://example.com/${'a'.repeat(300)} here`;
      const cut = makeSnippet(url, 'zzz', 50).text;
      assert.ok(cut.length <= 51 && cut.endsWith('…'), cut);
    });

    it('shows a sentence the passage repeats once (a chunk whose overlap repeats the sentence before it)', () => {
      const chunk =
        '## Rollback\n\nRun the rollback job first.\n\nRun the rollback job first. Then watch the canary dashboards for errors.';
      assert.equal(makeSnippet(chunk, 'canary').text, 'Rollback Run the rollback job first. Then watch the canary dashboards for errors.');
    });

    it('shows a line the passage repeats once, and a repeat wrapped onto other lines', () => {
      assert.equal(makeSnippet('Deploy checklist\nDeploy checklist\nCheck the build.', 'build').text, 'Deploy checklist Check the build.');
      assert.equal(
        makeSnippet('The folder is kept in sync\nas you save. The folder is kept\nin sync as you save. Done.', 'sync').text,
        'The folder is kept in sync as you save. Done.',
      );
    });

    it('keeps what repeats on purpose: one-word lines, abbreviations, code lines and table rows', () => {
      assert.equal(makeSnippet('Yes.\nYes.\nE.g. one. E.g. two.', 'one').text, 'Yes. Yes. E.g. one. E.g. two.');
      assert.equal(makeSnippet('```\nreturn a + b;\nreturn a + b;\n```', 'return').text, 'return a + b; return a + b;');
      assert.equal(
        makeSnippet('| os | result |\n|---|---|\n| linux | works fine |\n| linux | works fine |', 'linux').text,
        'os · result linux · works fine linux · works fine',
      );
    });

    it('cuts a long passage with repeats at whole words, each sentence once', () => {
      const steps = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
      const sentences = steps.map((step) => `Step ${step} checks the build and the configuration of the release.`);
      // Every sentence twice, as overlapping chunks joined back to back would have them.
      const repeated = sentences.map((sentence) => `${sentence}\n${sentence}`).join('\n');
      const unique = sentences.join(' ');
      const s = makeSnippet(repeated, 'seven', 120);
      assert.ok(wholeWords(s.text, unique), `"${s.text}" is not whole words of the sentences, each once`);
      assert.ok(s.text.length <= 122, s.text);
      assert.equal((s.text.match(/Step seven checks/g) ?? []).length, 1, s.text);
      assert.equal(new Set(s.text.match(/Step \w+/g)).size, (s.text.match(/Step \w+/g) ?? []).length, `a step twice: ${s.text}`);
    });

    it('keeps a short passage whole, whitespace collapsed', () => {
      assert.deepEqual(makeSnippet('a\n\n  b\tc', 'zzz'), { text: 'a b c' });
    });
  });

  describe('excerptAt: from what an answer quoted', () => {
    const markdown = [
      '## Search',
      '',
      '**Search Vector Store…** shows results as you type, with a [snippet](docs/search.md) around the match.',
      '',
      '## Folder sync',
      '',
      `**Sync Folder to Vector Store…** keeps a store in step with a folder. ${'It never uploads a file twice. '.repeat(8)}`,
    ].join('\n');
    const spanOf = (words: string) => ({ start: markdown.indexOf(words), end: markdown.indexOf(words) + words.length });

    it('starts at the span as plain text, marks out, and cuts the end at a whole word', () => {
      const s = excerptAt(markdown, spanOf('**Sync Folder to Vector Store…** keeps a store in step with a folder.'), 100);
      assert.match(s.text, /^…Sync Folder to Vector Store… keeps a store in step with a folder\. It never/);
      assert.ok(s.text.endsWith('…') && s.text.length <= 101, s.text);
      assert.ok(wholeWords(s.text, plainText(markdown)), s.text);
      assert.equal(s.text.slice(s.match!.start, s.match!.end), 'Sync Folder to Vector Store… keeps a store in step with a folder.');
    });

    it('starts at the span even near the end, rather than show the section before it', () => {
      const last = markdown.lastIndexOf('It never uploads');
      const s = excerptAt(markdown, { start: last, end: markdown.trimEnd().length }, 160);
      assert.equal(s.text, '…It never uploads a file twice.');
    });

    it('keeps a quote that starts the passage and fits whole, without "…"', () => {
      const s = excerptAt('Invoices are kept ten years.', { start: 0, end: 10 }, 160);
      assert.deepEqual(s, { text: 'Invoices are kept ten years.', match: { start: 0, end: 10 } });
    });
  });
});
