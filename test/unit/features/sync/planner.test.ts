import * as assert from 'node:assert/strict';
import { countPlan, planHasWork, planSync, remoteFrom, type LocalFile, type RemoteFile } from '../../../../src/features/sync/planner';
import { decodePath, encodePath, HASH_KEY, PATH_KEY, syncMetadata } from '../../../../src/features/sync/syncMetadata';
import { LIMITS } from '../../../../src/api/documents/schemas';

const local = (path: string, hash: string, size = 10): LocalFile => ({ path, hash, size });
let nextId = 1;
const remote = (path: string, hash: string, status = 'completed', createdAt = 100): RemoteFile => ({
  fileId: `file-${nextId++}`,
  status,
  lastError: status === 'failed' ? 'The PDF has no text layer.' : null,
  pathKey: encodePath(path),
  hash,
  createdAt,
});

describe('folder sync planner', () => {
  it('keeps unchanged files, uploads new ones, replaces changed ones and removes deleted ones', () => {
    const same = remote('docs/a.md', 'h-a');
    const changed = remote('docs/b.md', 'h-b-old');
    const gone = remote('docs/c.md', 'h-c');
    const plan = planSync([local('docs/a.md', 'h-a'), local('docs/b.md', 'h-b-new'), local('docs/d.md', 'h-d')], [same, changed, gone]);
    assert.deepEqual(
      plan.unchanged.map((u) => u.remote.fileId),
      [same.fileId],
    );
    assert.deepEqual(
      plan.upload.map((u) => u.path),
      ['docs/d.md'],
    );
    assert.deepEqual(
      plan.replace.map((r) => [r.local.path, r.current, r.old.map((o) => o.fileId)]),
      [['docs/b.md', undefined, [changed.fileId]]],
    );
    assert.deepEqual(
      plan.remove.map((r) => r.fileId),
      [gone.fileId],
    );
    assert.deepEqual(countPlan(plan), { new: 1, changed: 1, renamed: 0, removed: 1, unchanged: 1, failed: 0 });
  });

  it('turns a moved file into a metadata rename instead of an upload and a removal', () => {
    const moved = remote('old/guide.md', 'h-guide');
    const plan = planSync([local('new/guide.md', 'h-guide')], [moved]);
    assert.deepEqual(
      plan.rename.map((r) => [r.local.path, r.remote.fileId]),
      [['new/guide.md', moved.fileId]],
    );
    assert.equal(plan.upload.length, 0);
    assert.equal(plan.remove.length, 0);
  });

  it('renames one copy when two new paths have the content of one vanished file, and uploads the other', () => {
    const moved = remote('a/x.md', 'h-x');
    const plan = planSync([local('b/x.md', 'h-x'), local('c/x.md', 'h-x')], [moved]);
    assert.equal(plan.rename.length, 1);
    assert.deepEqual(
      plan.upload.map((u) => u.path),
      ['c/x.md'],
    );
  });

  it('tells apart two files of the same name in two folders', () => {
    const first = remote('team/README.md', 'h-1');
    const second = remote('ops/README.md', 'h-2');
    const plan = planSync([local('team/README.md', 'h-1'), local('ops/README.md', 'h-2-changed')], [first, second]);
    assert.deepEqual(
      plan.unchanged.map((u) => u.local.path),
      ['team/README.md'],
    );
    assert.deepEqual(
      plan.replace.map((r) => [r.local.path, r.old.map((o) => o.fileId)]),
      [['ops/README.md', [second.fileId]]],
    );
    assert.equal(plan.remove.length, 0);
  });

  it('matches a path stored in NFC with the same path read in NFD (macOS checkouts)', () => {
    const nfc = 'docs/Überblick/café.md'.normalize('NFC');
    const stored = remote(nfc, 'h-u');
    const plan = planSync([local(nfc.normalize('NFD'), 'h-u')], [stored]);
    assert.equal(plan.unchanged.length, 1);
    assert.equal(plan.upload.length + plan.remove.length, 0);
  });

  it('keeps long and unicode paths within the 512-character value limit and apart from each other', () => {
    const head = `${'深い/'.repeat(200)}`;
    const a = `${head}a.md`;
    const b = `${head}b.md`;
    for (const p of [a, b]) {
      const value = encodePath(p);
      assert.ok(Array.from(value).length <= LIMITS.metadata.maxValueLength, `${Array.from(value).length} code points`);
      assert.equal(decodePath(value), undefined, 'a shortened path is not mistaken for a full one');
    }
    assert.notEqual(encodePath(a), encodePath(b));
    const short = 'docs/日本語/ノート.md';
    assert.equal(encodePath(short), short);
    assert.equal(decodePath(short), short);
    const metadata = syncMetadata(a, 'h');
    assert.deepEqual(Object.keys(metadata).sort(), [HASH_KEY, PATH_KEY].sort());
    for (const key of Object.keys(metadata)) assert.ok(key.length <= LIMITS.metadata.maxKeyLength);
    const plan = planSync([local(a, 'h-a'), local(b, 'h-b-new')], [remote(a, 'h-a'), remote(b, 'h-b')]);
    assert.equal(plan.unchanged.length, 1);
    assert.equal(plan.replace.length, 1);
    assert.equal(plan.replace[0]!.local.path, b);
  });

  it('reports a file that failed to convert and does not upload it again until asked', () => {
    const failed = remote('scans/page.pdf', 'h-pdf', 'failed');
    const plan = planSync([local('scans/page.pdf', 'h-pdf')], [failed]);
    assert.deepEqual(
      plan.failed.map((f) => [f.local.path, f.remote.lastError]),
      [['scans/page.pdf', 'The PDF has no text layer.']],
    );
    assert.equal(plan.upload.length + plan.replace.length, 0);
    assert.equal(planHasWork(plan, true), false);
  });

  it('uploads a failed file again once its content changed, replacing the failed copy', () => {
    const failed = remote('scans/page.pdf', 'h-old', 'failed');
    const plan = planSync([local('scans/page.pdf', 'h-new')], [failed]);
    assert.deepEqual(
      plan.replace.map((r) => r.old.map((o) => o.fileId)),
      [[failed.fileId]],
    );
  });

  it('finishes an interrupted replacement: the attached new version is kept, the old one removed after it', () => {
    const old = remote('docs/b.md', 'h-old', 'completed', 100);
    const fresh = remote('docs/b.md', 'h-new', 'in_progress', 200);
    const plan = planSync([local('docs/b.md', 'h-new')], [old, fresh]);
    assert.equal(plan.upload.length, 0);
    assert.equal(plan.replace.length, 1);
    assert.equal(plan.replace[0]!.current?.fileId, fresh.fileId);
    assert.deepEqual(
      plan.replace[0]!.old.map((o) => o.fileId),
      [old.fileId],
    );
  });

  it('keeps one copy when an interrupted sync attached the same content twice', () => {
    const first = remote('docs/a.md', 'h-a', 'completed', 100);
    const second = remote('docs/a.md', 'h-a', 'completed', 200);
    const plan = planSync([local('docs/a.md', 'h-a')], [first, second]);
    assert.equal(plan.replace.length, 1);
    assert.equal(plan.replace[0]!.current?.fileId, second.fileId, 'the newest completed copy stays');
    assert.deepEqual(
      plan.replace[0]!.old.map((o) => o.fileId),
      [first.fileId],
    );
  });

  it('ignores store files DocChat did not sync', () => {
    assert.equal(remoteFrom({ id: 'f', status: 'completed', last_error: null, metadata: { team: 'x' }, created_at: 1 }), undefined);
    assert.equal(remoteFrom({ id: 'f', status: 'completed', last_error: null, metadata: null }), undefined);
    const synced = remoteFrom({ id: 'f', status: 'completed', last_error: null, metadata: syncMetadata('a.md', 'h') });
    assert.equal(synced?.pathKey, 'a.md');
  });
});
