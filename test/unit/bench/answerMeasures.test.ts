import assert from 'node:assert/strict';
import {
  laterQuotePlaces,
  OFF_TOPIC_PRECISION,
  offTopicQuote,
  precisionByPosition,
  quotesOf,
  rouge1F,
  rouge1Precision,
  rouge1Recall,
  rougeLF,
  rougeWords,
  sameSentence,
  unrelatedQuote,
} from '../../bench/answersPublic/measures';
import { answer } from '../../../src/backend/gateway/extractive';
import { isClean } from '../../bench/answers/clean';

describe('public answer benchmark measures', () => {
  it('compares words without stop words on both sides, lower-cased and unstemmed', () => {
    assert.deepEqual(rougeWords('The Steelers have won six Super Bowls.'), ['steelers', 'won', 'six', 'super', 'bowls']);
  });

  it('clips a repeated word in ROUGE-1 recall and scores precision in its F1', () => {
    const reference = rougeWords('cotton gin cotton production');
    assert.equal(rouge1Recall(rougeWords('cotton cotton cotton'), reference), 2 / 4);
    assert.equal(rouge1Recall(rougeWords('gin production cotton cotton'), reference), 1);
    // Recall 1/4, precision 1/2.
    assert.equal(rouge1F(rougeWords('cotton india'), reference), (2 * 0.25 * 0.5) / 0.75);
    assert.equal(rouge1Recall([], reference), 0);
  });

  it('scores ROUGE-1 precision as the share of the quoted words the reference holds, clipped', () => {
    const reference = rougeWords('cotton gin cotton production');
    // Two of the three "cotton"s are in the reference; "india" is not.
    assert.equal(rouge1Precision(rougeWords('cotton cotton cotton india'), reference), 2 / 4);
    assert.equal(rouge1Precision(rougeWords('The gin of the cotton.'), reference), 1, 'stop words are not quoted words');
    assert.equal(rouge1Precision([], reference), 0);
  });

  it('calls a quote unrelated when none of its words, stop words aside, is a word of the reference', () => {
    const reference = rougeWords('The cotton gin raised cotton production in the South.');
    assert.ok(unrelatedQuote('Rice grows in water.', reference));
    assert.ok(unrelatedQuote('It was there and then.', reference), 'a quote of stop words only holds no word of it');
    assert.ok(!unrelatedQuote('Production fell in the North.', reference), 'one shared word, whatever its case, relates it');
    assert.ok(unrelatedQuote('Productions fell.', reference), 'words are not stemmed');
  });

  it('calls a quote off-topic when fewer than one in five of its words are words of the reference', () => {
    assert.equal(OFF_TOPIC_PRECISION, 0.2);
    const reference = rougeWords('The cotton gin raised cotton production in the South.');
    // One of seven words ("cotton") is the reference's: 1/7 < 0.2, though it is not unrelated.
    const aside = 'Egyptian cotton sells well in London markets today.';
    assert.ok(offTopicQuote(aside, reference));
    assert.ok(!unrelatedQuote(aside, reference));
    // One of five: exactly the threshold, not below it.
    assert.ok(!offTopicQuote('Cotton sells in London street markets.', reference));
    assert.ok(!offTopicQuote('The gin raised production.', reference));
    assert.ok(offTopicQuote('It was there.', reference), 'a quote of stop words only holds none of its words');
  });

  it("averages each quote's precision by its place in the answers that have a quote there", () => {
    const reference = rougeWords('cotton gin production south');
    const positions = precisionByPosition([
      { quotes: ['cotton gin', 'rice water', 'south india'], reference },
      { quotes: ['cotton rice'], reference },
    ]);
    assert.deepEqual(positions, [
      { count: 2, precision: (1 + 0.5) / 2 },
      { count: 1, precision: 0 },
      { count: 1, precision: 0.5 },
    ]);
    assert.ok(Number.isNaN(precisionByPosition([{ quotes: ['cotton'], reference }], 2)[1]!.precision));
  });

  it('scores ROUGE-L F by the longest common subsequence, order included', () => {
    const reference = rougeWords('gin raised cotton production south');
    assert.equal(rougeLF(reference, reference), 1);
    // LCS "gin cotton south" = 3 of 5 and of 4.
    const f = rougeLF(rougeWords('south gin cotton south'), reference);
    assert.equal(f, (2 * (3 / 5) * (3 / 4)) / (3 / 5 + 3 / 4));
    assert.equal(rougeLF([], reference), 0);
  });

  it("reads the quotes of local-extractive's answer with the source each cites, and none from a refusal", () => {
    const messages = [
      {
        role: 'system',
        content: 'Sources:\n\n[1] gin.md\nThe cotton gin separates cotton fibres from seeds.\n\n[2] other.md\nRice grows in water.',
      },
      { role: 'user', content: 'What does the cotton gin separate?' },
    ];
    assert.deepEqual(quotesOf(answer(messages)), [{ text: 'The cotton gin separates cotton fibres from seeds.', source: 1 }]);
    assert.deepEqual(quotesOf('None of the 2 supplied sources contains a sentence that shares words with the question.'), []);
  });

  it('takes a quote for a sentence when one holds the other, whatever the punctuation', () => {
    assert.ok(sameSentence('The gin , invented in India , spread.', 'the gin invented in India spread'));
    assert.ok(!sameSentence('Rice grows in water.', 'The gin spread.'));
    assert.ok(!sameSentence('', 'The gin spread.'));
  });

  it('places each quote after the first against it: right after it, elsewhere in its source, or another source', () => {
    const sentences: Record<number, string[]> = {
      1: ['Backups are kept for thirty days.', 'Older backups go to tape.', 'The vault is in Zurich.'],
      2: ['Mail is kept for a year.'],
    };
    const of = (source: number) => sentences[source] ?? [];
    const quotes = [
      { text: 'Backups are kept for thirty days.', source: 1 },
      { text: 'Mail is kept for a year.', source: 2 },
      { text: 'Older backups go to tape', source: 1 },
      { text: 'The vault is in Zurich.', source: 1 },
      { text: 'A sentence no source holds.', source: 1 },
    ];
    assert.deepEqual(laterQuotePlaces(quotes, of), [
      'another source',
      'right after the first, same source',
      'elsewhere in the same source',
      undefined,
    ]);
    assert.deepEqual(
      laterQuotePlaces([quotes[2]!, quotes[0]!], of),
      ['elsewhere in the same source'],
      'the sentence before is not after it',
    );
    assert.deepEqual(laterQuotePlaces([], of), []);
  });

  it('calls an answer clean when it quotes the expected sentence and nothing from another document or section', () => {
    const expected = (text: string) => text.includes('Sync Folder');
    const sync = { text: 'Sync Folder to Vector Store… picks the store.', place: 'user-guide.md > Folder sync' };
    const sameSection = { text: 'A followed folder syncs on its own.', place: 'user-guide.md > Folder sync' };
    const otherSection = { text: 'Attach and folder-sync handlers are measured.', place: 'benchmarks.md > Activation' };
    assert.ok(isClean([sync], expected));
    assert.ok(isClean([sameSection, sync], expected), 'a quote of the same section is no noise, wherever it stands');
    assert.ok(!isClean([sync, otherSection], expected));
    assert.ok(!isClean([sameSection], expected), 'without the expected sentence an answer is not clean');
    assert.ok(!isClean([], expected));
  });
});
