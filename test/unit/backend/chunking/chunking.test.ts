import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CHARS_PER_TOKEN, chunkMarkdown, splitText } from '../../../../src/backend/chunking/chunker';
import { parseBlocks } from '../../../../src/backend/chunking/blocks';

const words = (n: number, word = 'lorem') => Array.from({ length: n }, (_, i) => `${word}${i % 50}`).join(' ');
const fenceCount = (text: string) => (text.match(/^\s*```/gm) ?? []).length;

describe('backend: markdown chunking', () => {
  it('parses headings (ATX and setext), fences and paragraphs', () => {
    const blocks = parseBlocks('Title\n=====\n\n## Part\ntext a\ntext b\n\n```js\nlet x;\n\n# not a heading\n```\n');
    assert.deepEqual(
      blocks.map((b) => b.kind),
      ['heading', 'heading', 'text', 'code'],
    );
    assert.equal(blocks[3]!.kind === 'code' && blocks[3]!.body, 'let x;\n\n# not a heading');
  });

  it('keeps a short document in one chunk', () => {
    const chunks = chunkMarkdown('# A\n\nshort text');
    assert.deepEqual(chunks, [{ text: '# A\n\nshort text', heading: 'A' }]);
  });

  it('respects the token budget and overlaps consecutive chunks of one section', () => {
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}. ${words(60)}.`).join('\n\n');
    const chunks = chunkMarkdown(`# Big\n\n${paragraphs}`, { maxTokens: 200, overlapTokens: 40 });
    assert.ok(chunks.length > 5);
    for (const chunk of chunks) assert.ok(chunk.text.length <= 200 * CHARS_PER_TOKEN, `chunk of ${chunk.text.length} chars`);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]!.text.split('\n\n').pop()!;
      assert.ok(chunks[i]!.text.includes(previous), `chunk ${i} repeats the end of chunk ${i - 1}`);
      assert.ok(chunks[i]!.text.startsWith('# Big'), 'each chunk starts with its section heading');
    }
  });

  it('keeps the line breaks of a long list in the overlap, so its items stay items', () => {
    const items = Array.from({ length: 60 }, (_, i) => `- Item ${i} does ${words(3, `thing${i}x`)}.`).join('\n');
    const chunks = chunkMarkdown(`# Changes\n\n${items}`, { maxTokens: 200, overlapTokens: 40 });
    assert.ok(chunks.length > 2);
    for (const chunk of chunks) {
      assert.doesNotMatch(chunk.text, /\. - Item/, 'no list item is joined to the one before it');
      for (const line of chunk.text.split('\n').filter((l) => l.startsWith('- '))) assert.match(line, /^- Item \d+ does [^-]+\.$/);
    }
  });

  it('starts a new chunk at a heading once the current chunk is substantial', () => {
    const md = `# One\n\n${words(150)}\n\n# Two\n\n${words(20)}`;
    const chunks = chunkMarkdown(md, { maxTokens: 400 });
    assert.equal(chunks.length, 2);
    assert.ok(chunks[1]!.text.startsWith('# Two'));
    assert.equal(chunks[1]!.heading, 'Two');
    assert.ok(!chunks[1]!.text.includes('lorem149'), 'no overlap across sections');
  });

  it('puts the heading of the section a chunk starts in above it, not that of a later section it runs on into', () => {
    // The rest of a long section A, then short sections B and C, all in one chunk.
    const md = `# Guide\n\n## A\n\n${words(180)}\n\n${words(180)}\n\n${words(40, 'tail')}\n\n## B\n\nB text.\n\n## C\n\nC text.`;
    const chunks = chunkMarkdown(md);
    const last = chunks.at(-1)!;
    assert.ok(last.text.includes('tail0') && last.text.includes('## C'), JSON.stringify(chunks.map((c) => c.text.slice(0, 40))));
    assert.equal(last.heading, 'Guide > A');
    assert.ok(last.text.startsWith('## A\n\ntail0'), last.text.slice(0, 40));
  });

  it('merges tiny sections and records the heading path', () => {
    const chunks = chunkMarkdown('# Guide\n\n## Install\n\nnpm i\n\n### Linux\n\napt install\n');
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]!.heading, 'Guide');
    const long = chunkMarkdown(`# Guide\n\n## Install\n\n${words(300)}\n\n### Linux\n\n${words(300)}`, { maxTokens: 500 });
    assert.equal(long.at(-1)!.heading, 'Guide > Install > Linux');
  });

  it('never cuts a code fence open: long code is split and each piece fenced with its language', () => {
    const code = Array.from({ length: 300 }, (_, i) => `const value${i} = compute(${i});`).join('\n');
    const chunks = chunkMarkdown(`# Code\n\nIntro.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nAfter.`, { maxTokens: 300 });
    assert.ok(chunks.length > 3);
    for (const chunk of chunks) {
      assert.equal(fenceCount(chunk.text) % 2, 0, `balanced fences in:\n${chunk.text.slice(0, 200)}`);
      if (chunk.text.includes('const value')) assert.match(chunk.text, /```ts\n/);
    }
    const joined = chunks.map((c) => c.text).join('\n');
    for (let i = 0; i < 300; i += 37) assert.ok(joined.includes(`const value${i} = compute(${i});`));
  });

  it('does not treat # lines inside code as headings', () => {
    const chunks = chunkMarkdown('```bash\n# install\nnpm i\n```\n');
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0]!.heading, '');
  });

  it('keeps a long list or paragraph split across pieces as it stood: no piece boundary opens a blank line inside a sentence', () => {
    // A block longer than a piece (a long list of wrapped items, or a long paragraph): its pieces
    // are parts of one block, so a chunk holding two of them must not read them as two paragraphs.
    const sentence = fc.integer({ min: 3, max: 12 });
    const item = fc.array(sentence, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.boolean(), fc.array(item, { minLength: 20, maxLength: 60 }), (list, items) => {
        let n = 0;
        const wrap = (text: string, indent: string) =>
          text
            .match(/.{1,60}(?:\s|$)/g)!
            .map((line) => line.trimEnd())
            .join(`\n${indent}`);
        const parts = items.map((sentences) => {
          const text = sentences.map((count) => `Sentence ${++n} says ${wordList(count)} end${n}.`).join(' ');
          return list ? `- ${wrap(text, '  ')}` : wrap(text, '');
        });
        const markdown = `## Guide\n\n${parts.join(list ? '\n' : ' ')}\n`;
        const chunks = chunkMarkdown(markdown, { maxTokens: 300, overlapTokens: 40 });
        assert.ok(chunks.length > 1, 'the block spans chunks');
        let whole = 0;
        for (const { text } of chunks) {
          for (let i = 1; i <= n; i++) {
            const start = text.search(new RegExp(`Sentence\\s+${i}\\s+says`));
            const end = text.indexOf(`end${i}.`);
            if (start < 0 || end < start) continue;
            whole++;
            assert.doesNotMatch(text.slice(start, end), /\n\s*\n/, `sentence ${i} broken by a blank line in:\n${text}`);
          }
        }
        assert.ok(whole >= n, 'every sentence is whole in some chunk');
      }),
      { numRuns: 200 },
    );

    function wordList(count: number): string {
      return Array.from({ length: count }, (_, i) => `w${i}`).join(' ');
    }
  });

  it('splits text at the coarsest separator that fits', () => {
    assert.deepEqual(splitText('aaa bbb ccc', 7), ['aaa bbb', 'ccc']);
    assert.deepEqual(splitText('One. Two. Three.', 10, [/(?<=[.])\s+/]), ['One. Two.', 'Three.']);
    assert.deepEqual(splitText('abcdefgh', 3, []), ['abc', 'def', 'gh']);
  });
});
