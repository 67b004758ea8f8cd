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
    // 58 s of wait, then one attach every 2 s.
    assert.equal(eta, 58 + 80);
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

  it('while converting: no time before a file finished, then a count-down that a steady pace keeps, withdrawn when it runs out', () => {
    const eta = new ConversionEstimate(0, 4);
    eta.observe(4, 1_000);
    assert.equal(eta.secondsLeft(1_000), undefined, 'nothing converted yet');
    // Seen at 6 s, after a look at 1 s: taken to have finished at 3.5 s, so 3 more at that pace.
    eta.observe(3, 6_000);
    assert.equal(eta.secondsLeft(6_000), 3.5 * 3 - 2.5);
    assert.equal(eta.secondsLeft(10_000), 3.5 * 3 - 6.5, 'counts down between looks');
    eta.observe(3, 10_000);
    assert.equal(eta.secondsLeft(10_000), 3.5 * 3 - 6.5, 'a look that finds nothing new changes nothing');
    assert.equal(eta.secondsLeft(20_000), undefined, 'past the estimate: no time is promised');
    eta.observe(0, 21_000);
    assert.equal(eta.secondsLeft(21_000), undefined, 'all converted');
  });
});
