import assert from 'node:assert/strict';
import { ndcgAt, recallAt } from '../../bench/beir/metrics';

describe('BEIR ranking measures', () => {
  const judged = new Map([
    ['a', 1],
    ['b', 1],
    ['z', 0],
  ]);

  it('nDCG@k discounts by log2(rank + 1) against the ideal order', () => {
    assert.equal(ndcgAt(['a', 'b', 'x'], judged, 10), 1);
    // Relevant at ranks 2 and 3: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3).
    const expected = (1 / Math.log2(3) + 1 / 2) / (1 + 1 / Math.log2(3));
    assert.ok(Math.abs(ndcgAt(['x', 'a', 'b'], judged, 10) - expected) < 1e-12);
    assert.equal(ndcgAt(['x', 'y', 'a'], judged, 2), 0);
  });

  it('nDCG uses the judged levels as gains and ignores judgements of 0', () => {
    const graded = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    const expected = (1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3));
    assert.ok(Math.abs(ndcgAt(['b', 'a'], graded, 10) - expected) < 1e-12);
    assert.equal(ndcgAt(['z'], new Map([['z', 0]]), 10), 0);
  });

  it('recall@k counts the relevant documents within the first k', () => {
    assert.equal(recallAt(['a', 'x', 'b'], judged, 2), 0.5);
    assert.equal(recallAt(['a', 'x', 'b'], judged, 3), 1);
    assert.equal(recallAt(['z'], judged, 10), 0);
  });
});
