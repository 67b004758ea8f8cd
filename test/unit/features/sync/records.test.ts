import * as assert from 'node:assert/strict';
import type { FileRecord } from '../../../../src/features/sync/follows';
import { planSync, type LocalFile, type RemoteFile } from '../../../../src/features/sync/planner';
import { firstFailure, recordOutcome, recordPlan } from '../../../../src/features/sync/records';
import type { HashedFile } from '../../../../src/features/sync/scanner';
import { encodePath } from '../../../../src/features/sync/syncMetadata';

const hashedFile = (path: string, hash: string, mtimeMs = 1000): HashedFile => ({ path, hash, size: 10, mtimeMs }) as HashedFile;
const local = (f: HashedFile): LocalFile => ({ path: f.path, hash: f.hash, size: f.size });
const remote = (path: string, hash: string, fileId: string, status = 'completed', lastError: string | null = null): RemoteFile => ({
  fileId,
  status,
  lastError,
  pathKey: encodePath(path),
  hash,
  createdAt: 1,
});
const byPath = (files: HashedFile[]) => new Map(files.map((f) => [f.path, f]));

describe('folder sync records', () => {
  it('records the files the plan leaves alone as the store holds them, and drops the folder’s vanished files', () => {
    const files = [
      hashedFile('docs/done.md', 'h1'),
      hashedFile('docs/busy.md', 'h2'),
      hashedFile('docs/bad.pdf', 'h3'),
      hashedFile('docs/new.md', 'h4'),
    ];
    const plan = planSync(files.map(local), [
      remote('docs/done.md', 'h1', 'f-done'),
      remote('docs/busy.md', 'h2', 'f-busy', 'in_progress'),
      remote('docs/bad.pdf', 'h3', 'f-bad', 'failed', 'The PDF has no text layer.'),
    ]);
    const records = new Map<string, FileRecord>([
      ['docs/deleted.md', { size: 1, mtimeMs: 1, hash: 'old', status: 'synced', fileId: 'f-del' }],
      ['notes/other.md', { size: 1, mtimeMs: 1, hash: 'other', status: 'synced', fileId: 'f-other' }],
      ['docs/new.md', { size: 1, mtimeMs: 1, hash: 'h4', status: 'converting' }],
    ]);

    recordPlan(records, { plan, hashed: byPath(files), prefix: 'docs/' });

    assert.deepEqual(Object.fromEntries(records), {
      'notes/other.md': { size: 1, mtimeMs: 1, hash: 'other', status: 'synced', fileId: 'f-other' },
      'docs/new.md': { size: 1, mtimeMs: 1, hash: 'h4', status: 'converting' },
      'docs/done.md': { size: 10, mtimeMs: 1000, hash: 'h1', fileId: 'f-done', status: 'synced' },
      'docs/busy.md': { size: 10, mtimeMs: 1000, hash: 'h2', fileId: 'f-busy', status: 'converting' },
      'docs/bad.pdf': { size: 10, mtimeMs: 1000, hash: 'h3', fileId: 'f-bad', status: 'failed', error: 'The PDF has no text layer.' },
    });
  });

  it('drops every vanished record when the whole workspace folder is followed, and names a failure without an error', () => {
    const files = [hashedFile('bad.pdf', 'h3')];
    const plan = planSync(files.map(local), [remote('bad.pdf', 'h3', 'f-bad', 'cancelled')]);
    const records = new Map<string, FileRecord>([['notes/other.md', { size: 1, mtimeMs: 1, hash: 'other', status: 'synced' }]]);

    recordPlan(records, { plan, hashed: byPath(files), prefix: '' });

    assert.deepEqual(Object.fromEntries(records), {
      'bad.pdf': {
        size: 10,
        mtimeMs: 1000,
        hash: 'h3',
        fileId: 'f-bad',
        status: 'failed',
        error: 'Conversion ended with status "cancelled".',
      },
    });
  });

  it('records each outcome with the scanned size and time, and a removal only of the file it names', () => {
    const hashed = byPath([hashedFile('a.md', 'h-a', 5), hashedFile('b.pdf', 'h-b', 6)]);
    const records = new Map<string, FileRecord>([
      ['gone.md', { size: 1, mtimeMs: 1, hash: 'g', status: 'synced', fileId: 'f-gone' }],
      ['moved.md', { size: 1, mtimeMs: 1, hash: 'm', status: 'synced', fileId: 'f-new' }],
    ]);

    assert.equal(recordOutcome(records, { path: 'a.md', status: 'synced', fileId: 'f-a', hash: 'h-a' }, hashed), true);
    assert.equal(recordOutcome(records, { path: 'b.pdf', status: 'failed', hash: 'h-b', error: 'no text' }, hashed), true);
    assert.equal(recordOutcome(records, { path: 'gone.md', status: 'removed', fileId: 'f-gone' }, hashed), true);
    // An older copy of a path whose record already names the new file: the record stays.
    assert.equal(recordOutcome(records, { path: 'moved.md', status: 'removed', fileId: 'f-old' }, hashed), true);
    assert.equal(recordOutcome(records, { path: 'unscanned.md', status: 'synced', fileId: 'f-x', hash: 'x' }, hashed), false);

    assert.deepEqual(Object.fromEntries(records), {
      'moved.md': { size: 1, mtimeMs: 1, hash: 'm', status: 'synced', fileId: 'f-new' },
      'a.md': { size: 10, mtimeMs: 5, hash: 'h-a', fileId: 'f-a', status: 'synced' },
      'b.pdf': { size: 10, mtimeMs: 6, hash: 'h-b', status: 'failed', error: 'no text' },
    });
  });

  it('names this sync’s first failure, else the first file recorded as failed', () => {
    const records = new Map<string, FileRecord>([
      ['ok.md', { size: 1, mtimeMs: 1, hash: 'o', status: 'synced' }],
      ['old.pdf', { size: 1, mtimeMs: 1, hash: 'p', status: 'failed', error: 'no text layer' }],
    ]);
    assert.deepEqual(firstFailure([{ path: 'now.pdf', error: 'too large' }], records), { path: 'now.pdf', error: 'too large' });
    assert.deepEqual(firstFailure([], records), { path: 'old.pdf', error: 'no text layer' });
    assert.equal(firstFailure([], new Map([['ok.md', { size: 1, mtimeMs: 1, hash: 'o', status: 'synced' }]])), undefined);
  });
});
