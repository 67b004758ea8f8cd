import * as assert from 'node:assert/strict';
import { countPlan, describePlan, planSync, type LocalFile, type RemoteFile } from '../../../../src/features/sync/planner';
import type { RunSummary } from '../../../../src/features/sync/runner';
import { failureMessage, outcomeParts, planDetail, PLAN_SAMPLE, progressMessage } from '../../../../src/features/sync/syncMessages';
import { encodePath } from '../../../../src/features/sync/syncMetadata';

const local = (path: string, hash: string): LocalFile => ({ path, hash, size: 10 });
let nextId = 1;
const remote = (path: string, hash: string, status = 'completed', lastError: string | null = null): RemoteFile => ({
  fileId: `file-${nextId++}`,
  status,
  lastError,
  pathKey: encodePath(path),
  hash,
  createdAt: 1,
});
const summary = (extra: Partial<RunSummary> = {}): RunSummary => ({
  uploaded: 0,
  attached: 0,
  renamed: 0,
  removed: 0,
  failed: [],
  recovered: 0,
  ...extra,
});

describe('folder sync messages', () => {
  it('lists each kind of change of the plan, at most a sample of each', () => {
    const news = Array.from({ length: PLAN_SAMPLE + 2 }, (_, i) => local(`new${i}.md`, `n${i}`));
    const plan = planSync(
      [...news, local('changed.md', 'c2'), local('moved/r.md', 'r'), local('bad.pdf', 'b'), local('cancelled.pdf', 'x')],
      [
        remote('changed.md', 'c1'),
        remote('r.md', 'r'),
        remote('deleted.md', 'd'),
        remote('bad.pdf', 'b', 'failed', 'no text layer'),
        remote('cancelled.pdf', 'x', 'cancelled'),
      ],
    );
    assert.equal(
      planDetail(plan, 'ask'),
      [
        'New:',
        ...news.slice(0, PLAN_SAMPLE).map((f) => `  ${f.path}`),
        '  … and 2 more',
        'Changed:',
        '  changed.md',
        'Renamed:',
        '  r.md → moved/r.md',
        'Removed:',
        '  deleted.md',
        'Failed before (not retried):',
        '  bad.pdf: no text layer',
        '  cancelled.pdf: cancelled',
      ].join('\n'),
    );
  });

  it('says deleted files stay in the store when the setting keeps them, and nothing for a plan without changes', () => {
    const plan = planSync([local('kept.md', 'k')], [remote('kept.md', 'k'), remote('deleted.md', 'd')]);
    assert.equal(planDetail(plan, 'never'), 'Deleted (kept in the store):\n  deleted.md');
    assert.equal(planDetail(plan, 'always'), 'Removed:\n  deleted.md');
    assert.equal(planDetail(planSync([local('kept.md', 'k')], [remote('kept.md', 'k')]), 'ask'), '');
  });

  it('names the files it leaves out and why, a sample of them, and counts them in the plan', () => {
    const plan = planSync([local('a.pdf', 'a'), local('b.md', 'b')], []);
    const leftOut = { unsupported: ['test.mp3'], unreadable: [] };
    assert.equal(describePlan({ ...countPlan(plan), leftOut: 1 }), '2 new, 0 changed, 0 removed, 0 unchanged, 1 left out');
    assert.equal(
      planDetail(plan, 'ask', leftOut),
      ['New:', '  a.pdf', '  b.md', 'Left out:', '  test.mp3 (audio is not supported)'].join('\n'),
    );

    const many = {
      unsupported: ['z/clip.MOV', 'data.bin', 'Makefile.local', 'song.flac', 'LICENSE', 'x.wav'],
      unreadable: [{ path: 'locked.pdf', error: 'EACCES: permission denied' }],
    };
    const detail = planDetail(planSync([], []), 'ask', many);
    assert.equal(
      detail,
      [
        'Left out:',
        '  LICENSE (files without an extension are not supported)',
        '  Makefile.local (.local files are not supported)',
        '  data.bin (.bin files are not supported)',
        '  locked.pdf (could not be read: EACCES: permission denied)',
        '  song.flac (audio is not supported)',
        `  … and ${7 - PLAN_SAMPLE} more`,
      ].join('\n'),
    );
    assert.equal(describePlan({ ...countPlan(planSync([], [])), leftOut: 7 }), '0 new, 0 changed, 0 removed, 0 unchanged, 7 left out');
  });

  it('tells the progress of each phase', () => {
    assert.equal(
      progressMessage({ done: 3, total: 10, phase: 'sending', current: 'a.md', etaSeconds: 90 }),
      '3 of 10 · a.md · about 2 min left',
    );
    assert.equal(progressMessage({ done: 3, total: 10, phase: 'sending', etaSeconds: 5 }), '3 of 10 · about 5 s left');
    assert.equal(
      progressMessage({ done: 9, total: 10, phase: 'sending', etaSeconds: 0.2 }),
      '9 of 10 · about 1 s left',
      'never "about less than a second"',
    );
    assert.equal(
      progressMessage({ done: 10, total: 10, phase: 'converting', converting: 4, etaSeconds: 5 }),
      '10 of 10 sent · converting 4 files · about 5 s left',
    );
  });

  it('tells no time while nothing supports an estimate', () => {
    assert.equal(progressMessage({ done: 0, total: 10, phase: 'sending' }), '0 of 10');
    assert.equal(progressMessage({ done: 0, total: 10, phase: 'sending', current: 'a.md' }), '0 of 10 · a.md');
    assert.equal(progressMessage({ done: 10, total: 10, phase: 'converting', converting: 10 }), '10 of 10 sent · converting 10 files…');
    assert.equal(progressMessage({ done: 10, total: 10, phase: 'converting', converting: 1 }), '10 of 10 sent · converting 1 file…');
    assert.equal(
      progressMessage({ done: 10, total: 10, phase: 'converting', converting: 1, etaSeconds: 5 }),
      '10 of 10 sent · converting 1 file · about 5 s left',
    );
    assert.equal(
      progressMessage({ done: 0, total: 41, phase: 'sending', waiting: { operation: 'attachFile', perMinute: 30 } }),
      "0 of 41 · waiting for the service's rate limit (30 attaches a minute)",
    );
  });

  it("says the sync waits for the service's rate limit, naming the limit when known", () => {
    assert.equal(
      progressMessage({ done: 30, total: 41, phase: 'sending', etaSeconds: 58, waiting: { operation: 'attachFile', perMinute: 30 } }),
      "30 of 41 · waiting for the service's rate limit (30 attaches a minute) · about 58 s left",
    );
    assert.equal(
      progressMessage({ done: 5, total: 80, phase: 'sending', etaSeconds: 61, waiting: { operation: 'uploadFile', perMinute: 60 } }),
      "5 of 80 · waiting for the service's rate limit (60 uploads a minute) · about 2 min left",
    );
    assert.equal(
      progressMessage({ done: 30, total: 41, phase: 'sending', etaSeconds: 12, waiting: { operation: 'attachFile' } }),
      "30 of 41 · waiting for the service's rate limit · about 12 s left",
    );
  });

  it('tells what a sync did, naming renames and recovered files only when there were some', () => {
    assert.deepEqual(outcomeParts(summary({ uploaded: 2, removed: 1 })), ['2 uploaded', '1 removed']);
    assert.deepEqual(outcomeParts(summary({ uploaded: 1, renamed: 3, removed: 0, recovered: 2 })), [
      '1 uploaded',
      '3 renamed',
      '0 removed',
      '2 found from the interrupted sync',
    ]);
  });

  it('names the first failed file when it is known', () => {
    assert.equal(
      failureMessage(2, '"ws/docs"', 'Policies', { path: 'scan.pdf', error: 'no text layer' }),
      '2 file(s) of "ws/docs" could not be synced to "Policies" (scan.pdf: no text layer).',
    );
    assert.equal(
      failureMessage(1, '"ws"', 'Policies', { path: 'scan.pdf' }),
      '1 file(s) of "ws" could not be synced to "Policies" (first: scan.pdf).',
    );
    assert.equal(failureMessage(1, '"ws"', 'Policies', undefined), '1 file(s) of "ws" could not be synced to "Policies".');
  });
});
