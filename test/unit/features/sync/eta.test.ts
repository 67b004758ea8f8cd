import * as assert from 'node:assert/strict';
import { ConversionEstimate, estimateSeconds } from '../../../../src/features/sync/eta';

describe('folder sync estimate', () => {
  const limits = { uploadFile: 60, attachFile: 30 };

  it('counts the sliding minute: 41 attaches cannot end before a minute after the first, however fast the first 29 went', () => {
    // 29 of 41 attached within 0.1 s: the server lets 30 through, the rest only once the minute passed.
    const eta = estimateSeconds({
      remaining: { uploadFile: 0, attachFile: 12 },
      totals: { uploadFile: 41, attachFile: 41 },
      limits,
      doneItems: 29,
      remainingItems: 12,
      elapsedMs: 100,
    });
    assert.ok(eta >= 59.9, `estimate ${eta} s`);
  });

  it('adds a running wait on the rate limit, and the window after it, to what is left', () => {
    const eta = estimateSeconds({
      remaining: { attachFile: 40 },
      limits,
      doneItems: 30,
      remainingItems: 40,
      elapsedMs: 2_000,
      rateWaitMs: 58_000,
    });
    // 58 s of wait, then 30 attaches at once and the last 10 a minute (and the limiter's second) later.
    assert.equal(eta, 58 + 61);
  });

  it('holds nothing up once an operation has sent all its requests (waiting for conversion)', () => {
    const eta = estimateSeconds({
      remaining: { uploadFile: 0, attachFile: 0 },
      totals: { uploadFile: 41, attachFile: 41 },
      limits,
      doneItems: 41,
      remainingItems: 3,
      elapsedMs: 22_000,
    });
    assert.ok(eta < 10, `estimate ${eta} s`);
  });

  it('while converting: no time before two files finished, then a count-down kept while the pace allows it, withdrawn when it runs out', () => {
    const eta = new ConversionEstimate(0, 5);
    eta.observe(5, 1_000);
    assert.equal(eta.secondsLeft(1_000), undefined, 'nothing converted yet');
    eta.observe(4, 6_000);
    assert.equal(eta.secondsLeft(6_000), undefined, 'one finish tells how long a conversion takes, not the pace');
    // The second finish, seen at 11 s after a look at 6 s, is taken to be at 8.5 s: 2 files in 8.5 s, 3 left.
    eta.observe(3, 11_000);
    assert.equal(eta.secondsLeft(11_000), 8.5 * 1.5 - 2.5);
    assert.equal(eta.secondsLeft(14_000), 7.25, 'counts down between looks');
    // A third finish somewhere in 11–14 s allows 4.3–9.3 s left: the count-down (7.25 s) is kept.
    eta.observe(2, 14_000);
    assert.equal(eta.secondsLeft(14_000), 7.25);
    eta.observe(2, 24_000);
    assert.equal(eta.secondsLeft(24_000), undefined, 'past the estimate with nothing finished: no time is promised');
    // The fourth finish, in 24–25 s: the middle, 24.5 s, 4 files in 24.5 s, 1 left.
    eta.observe(1, 25_000);
    assert.equal(eta.secondsLeft(25_000), 24.5 / 4 - 0.5);
    eta.observe(0, 26_000);
    assert.equal(eta.secondsLeft(26_000), undefined, 'all converted');
  });
});
