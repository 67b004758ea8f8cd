import assert from 'node:assert/strict';
import { pairedBootstrap, score } from '../../bench/conversations/measures';

describe('conversation benchmark measures', () => {
  it('scores distinct passages: a passage cited twice (two chunks of one file) counts once', () => {
    const judged = new Map([
      ['p1', 1],
      ['p2', 1],
    ]);
    const scores = score(['x', 'p1', 'p1', 'y', 'z', 'w', 'p2'], judged);
    // Distinct: x p1 y z w p2 — p1 is among the first five, p2 sixth.
    assert.equal(scores.recall5, 0.5);
    assert.equal(scores.recall10, 1);
  });

  it('gives a paired-bootstrap interval around the mean difference, and none wider than the data allows', () => {
    const a = [1, 1, 1, 0, 1, 1, 0, 1];
    const b = [0, 1, 0, 0, 1, 0, 0, 1];
    const [low, high] = pairedBootstrap(a, b);
    const mean = 3 / 8;
    assert.ok(low <= mean && mean <= high, `${low} ≤ ${mean} ≤ ${high}`);
    assert.ok(low >= 0 && high <= 1);
    assert.deepEqual(pairedBootstrap([0.5, 0.5], [0.5, 0.5]), [0, 0]);
  });
});
