import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { chunkMarkdown } from '../../../src/backend/chunking/chunker';
import {
  type BudgetPassage,
  capPerFile,
  joinNeighbours,
  joinText,
  passageTarget,
  questionKind,
  searchSize,
  selectPassages,
  withinBudget,
} from '../../../src/chatCore/passageBudget';

const p = (fileId: string, chunkIndex: number | undefined, content = `${fileId}#${chunkIndex}`, storeId = 'vs_1') => ({
  fileId,
  chunkIndex,
  content,
  storeId,
});

describe('passage budget', () => {
  it('tells list and compare questions from questions about one fact', () => {
    assert.equal(questionKind('How long are invoices kept?'), 'fact');
    assert.equal(questionKind('List every endpoint that needs a token'), 'list');
    assert.equal(questionKind('What are the rate limits?'), 'list');
    assert.equal(questionKind('Compare the BM25 and hybrid rankings'), 'compare');
    assert.equal(questionKind('What is the difference between stores and files?'), 'compare');
  });

  it('gives list and compare questions three times the passages, within the service’s 50', () => {
    assert.equal(passageTarget('fact', 10), 10);
    assert.equal(passageTarget('list', 10), 30);
    assert.equal(passageTarget('compare', 20), 50);
    assert.equal(searchSize(10), 20);
    assert.equal(searchSize(2), 7);
    assert.equal(searchSize(30), 50);
  });

  it('caps passages per file when several files are found', () => {
    const ranked = [p('a', 1), p('a', 5), p('a', 9), p('a', 12), p('b', 1), p('a', 20)];
    assert.deepEqual(
      capPerFile(ranked, 3).map((x) => x.content),
      ['a#1', 'a#5', 'a#9', 'b#1'],
    );
  });

  it('keeps every passage when one file is all there is', () => {
    const ranked = [p('a', 1), p('a', 5), p('a', 9), p('a', 12)];
    assert.equal(capPerFile(ranked, 3).length, 4);
  });

  it('gives back held-back passages, best first, after every other file’s, while fewer than the target are left', () => {
    const ranked = [p('a', 1), p('a', 5), p('a', 9), p('b', 1), p('a', 12), p('a', 20), p('a', 30)];
    assert.deepEqual(
      capPerFile(ranked, 2, 5).map((x) => x.content),
      ['a#1', 'a#5', 'b#1', 'a#9', 'a#12'],
    );
    assert.deepEqual(
      capPerFile(ranked, 2, 2).map((x) => x.content),
      ['a#1', 'a#5', 'b#1'],
      'a target already met gives nothing back',
    );
  });

  it('a list question fills its budget from a file the cap held back; a fact stays spread out', () => {
    // Two files with few distinct passages in one of them: the list question's 15 come mostly from the other.
    const ranked = [p('b', 0), ...Array.from({ length: 20 }, (_, i) => p('a', i * 2))];
    assert.equal(selectPassages(ranked, 'list', 5).length, 15);
    assert.equal(selectPassages(ranked, 'fact', 5).length, 4, 'three of a, one of b');
  });

  it('keeps the other files’ passages when the character budget cuts a refilled list', () => {
    // 14 long passages of one file ranked first, then one each of three others: the budget holds 13.
    const long = (fileId: string, i: number) => p(fileId, i * 2, `${fileId}#${i} ${'x'.repeat(3_500)}`);
    const ranked = [...Array.from({ length: 14 }, (_, i) => long('a', i)), long('b', 0), long('c', 0), long('d', 0)];
    for (const setting of [5, 8, 10]) {
      const files = new Set(selectPassages(ranked, 'list', setting).map((x) => x.fileId));
      assert.deepEqual([...files].sort(), ['a', 'b', 'c', 'd'], `setting ${setting}`);
    }
  });

  it('joins neighbouring chunks of a file into one source, in chunk order, at the better rank', () => {
    const ranked = [p('a', 4, 'four'), p('b', 1), p('a', 3, 'three'), p('a', 5, 'five'), p('a', 9)];
    const joined = joinNeighbours(ranked);
    assert.deepEqual(
      joined.map((x) => [x.fileId, x.chunkIndex, x.content]),
      [
        ['a', 3, 'three\n\nfour\n\nfive'],
        ['b', 1, 'b#1'],
        ['a', 9, 'a#9'],
      ],
    );
  });

  it('names a joined source by its first chunk’s heading', () => {
    const ranked = [
      { ...p('a', 5, 'network settings'), heading: 'DocChat > Network' },
      { ...p('a', 4, '## Settings'), heading: 'DocChat > Settings' },
    ];
    const [joined] = joinNeighbours(ranked);
    assert.equal(joined!.heading, 'DocChat > Settings');
    assert.equal(joined!.content, '## Settings\n\nnetwork settings');
  });

  it('gives a joined source the best score of its chunks, the one whose place it takes, so scores read in order', () => {
    // One search's ranking: chunk 5 first, its neighbour chunk 4 last.
    const ranked = [
      { ...p('a', 5, 'five'), score: 0.89 },
      { ...p('b', 1), score: 0.8 },
      { ...p('a', 4, 'four'), score: 0.49 },
    ];
    const joined = joinNeighbours(ranked);
    assert.deepEqual(
      joined.map((x) => [x.fileId, x.chunkIndex, x.score]),
      [
        ['a', 4, 0.89],
        ['b', 1, 0.8],
      ],
    );
    // Chunks without scores join without one.
    assert.equal(joinNeighbours<BudgetPassage>([p('a', 1), p('a', 2)])[0]!.score, undefined);
  });

  it('does not join chunks of different stores or without chunk numbers', () => {
    const ranked = [p('a', 1, 'x', 'vs_1'), p('a', 2, 'y', 'vs_2'), p('a', undefined, 'z'), p('a', undefined, 'w')];
    assert.equal(joinNeighbours(ranked).length, 4);
  });

  it('drops the paragraphs a chunk repeats from the one before (chunk overlap)', () => {
    assert.equal(
      joinText('# Install\n\nStep one.\n\nStep two.', '# Install\n\nStep two.\n\nStep three.'),
      '# Install\n\nStep one.\n\nStep two.\n\nStep three.',
    );
  });

  it('joins chunks cut inside a paragraph into the paragraph, once: a sentence cut at the end of one goes on where the next repeats it', () => {
    const a =
      '## Chat\n\n- **Open Chat** opens the panel. In Local mode the model answers by quoting\n  the sentences that answer best, by its type: steps for "how do I…", a number';
    const b =
      '## Chat\n\nopens the panel. In Local mode the model answers by quoting\n  the sentences that answer best, by its type: steps for "how do I…", a number\n  for "how many". Tables are quoted as tables.';
    assert.equal(
      joinText(a, b),
      '## Chat\n\n- **Open Chat** opens the panel. In Local mode the model answers by quoting\n  the sentences that answer best, by its type: steps for "how do I…", a number\n  for "how many". Tables are quoted as tables.',
    );
    // Text that only happens to start like the end of the other is not taken for an overlap.
    assert.equal(
      joinText('## A\n\nThe end of it.', '## A\n\nThe end of it. And more of another paragraph that was never in the first.'),
      '## A\n\nThe end of it.\n\nThe end of it. And more of another paragraph that was never in the first.',
    );
  });

  it("joins every chunk of a document back into each of its sentences once, wherever the chunker cut (the chunker's own output)", () => {
    // A section of wrapped paragraphs and list items, each shorter than a chunk: a chunk's overlap
    // repeats the last sentences of the paragraph the chunk before ended with.
    const sentence = fc.integer({ min: 3, max: 10 }).map((words) => Array.from({ length: words }, (_, i) => `w${i}`).join(' '));
    const paragraph = fc.tuple(fc.boolean(), fc.array(sentence, { minLength: 1, maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 2, maxLength: 14 }), (paragraphs) => {
        let n = 0;
        const blocks = paragraphs.map(([listItem, sentences]) => {
          const text = sentences.map((words) => `Sentence ${++n} says ${words}.`).join(' ');
          const lines = text.match(/.{1,60}(?:\s|$)/g)!.map((line) => line.trimEnd());
          return listItem ? `- ${lines.join('\n  ')}` : lines.join('\n');
        });
        const chunks = chunkMarkdown(`## Section\n\n${blocks.join('\n\n')}\n`, { maxTokens: 200, overlapTokens: 25 });
        const joined = chunks.map((c) => c.text).reduce((a, b) => joinText(a, b));
        for (let i = 1; i <= n; i++) {
          const count = joined.split(new RegExp(`Sentence\\s+${i}\\s+says`)).length - 1;
          assert.equal(count, 1, `sentence ${i} ${count} times in:\n${joined}\n--- chunks:\n${chunks.map((c) => c.text).join('\n---\n')}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stops at the character budget, but always keeps the first passage', () => {
    const ranked = [p('a', 1, 'x'.repeat(30)), p('b', 1, 'y'.repeat(30)), p('c', 1, 'z'.repeat(30))];
    assert.equal(withinBudget(ranked, 10, 70).length, 2);
    assert.equal(withinBudget([p('a', 1, 'x'.repeat(500))], 10, 70).length, 1);
  });

  it('gives a list question more sources than a fact question from the same results', () => {
    const ranked = Array.from({ length: 40 }, (_, i) => p(`file-${i}`, 0));
    assert.equal(selectPassages(ranked, 'fact', 5).length, 5);
    assert.equal(selectPassages(ranked, 'list', 5).length, 15);
  });
});
