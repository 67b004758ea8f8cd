import assert from 'node:assert/strict';
import { CrashPolicy, type CrashDecision } from '../../../src/services/localBackend/crashPolicy';

const LOG = '/profile/backend.log';
const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A policy on a clock the test moves by hand: no test waits for time to pass. */
function drivenPolicy() {
  let now = 1_700_000_000_000;
  const policy = new CrashPolicy(() => now);
  return {
    policy,
    advance: (ms: number) => void (now += ms),
    crash: (): CrashDecision => policy.crashed(LOG),
  };
}

describe('Local mode: the crash policy (like the language server client)', () => {
  it('restarts after each of the first four crashes, waiting longer each time', () => {
    const { crash, advance } = drivenPolicy();
    const decisions: CrashDecision[] = [];
    for (let i = 0; i < 4; i++) {
      decisions.push(crash());
      advance(10 * SECOND);
    }
    assert.deepEqual(
      decisions.map((d) => d.action),
      ['restart', 'restart', 'restart', 'restart'],
    );
    assert.deepEqual(
      decisions.map((d) => (d.action === 'restart' ? d.delayMs : undefined)),
      [250, 500, 1000, 2000],
    );
  });

  it('stops after five crashes within three minutes, with one message naming the count and the log', () => {
    const { crash, advance } = drivenPolicy();
    for (let i = 0; i < 4; i++) {
      assert.equal(crash().action, 'restart');
      advance(44 * SECOND);
    }
    // The fifth crash comes 2 min 56 s after the first.
    const fifth = crash();
    assert.equal(fifth.action, 'stop');
    assert.equal(fifth.crashes, 5);
    assert.ok(fifth.action === 'stop');
    assert.equal(
      fifth.message,
      `The local DocChat backend stopped 5 times within 3 minutes, so it is not restarted again. See the DocChat output and ${LOG}.`,
    );
  });

  it('a crash exactly three minutes after the first still counts', () => {
    const { crash, advance } = drivenPolicy();
    crash();
    for (let i = 0; i < 3; i++) {
      advance(MINUTE);
      crash();
    }
    assert.equal(crash().action, 'stop', 'crashes at 0, 1, 2, 3, 3 minutes: five within three minutes');
  });

  it('keeps restarting when the crashes are spread over more than three minutes', () => {
    const { crash, advance } = drivenPolicy();
    const actions: string[] = [];
    for (let i = 0; i < 12; i++) {
      actions.push(crash().action);
      advance(50 * SECOND);
    }
    assert.deepEqual(new Set(actions), new Set(['restart']), 'never more than four crashes in any three minutes');
    // The crashes that left the window no longer count: the backoff stays short.
    const next = crash();
    assert.ok(next.action === 'restart' && next.delayMs <= 2000 && next.crashes === 4, JSON.stringify(next));
  });

  it('forgets the crashes when the user starts Local mode again', () => {
    const { policy, crash } = drivenPolicy();
    for (let i = 0; i < 4; i++) crash();
    policy.reset();
    const after = crash();
    assert.ok(after.action === 'restart' && after.crashes === 1 && after.delayMs === 250, JSON.stringify(after));
  });
});
