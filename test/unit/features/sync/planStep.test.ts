import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FileRecord } from '../../../../src/features/sync/follows';
import { entryKey, SyncJournal } from '../../../../src/features/sync/journal';
import { planFolderSync, type PlanStepOptions } from '../../../../src/features/sync/planStep';
import { syncMetadata } from '../../../../src/features/sync/syncMetadata';
import { makePdf } from '../../backend/helpers';
import { attachText, encode } from '../backend';
import { planOptions, useSyncSuite } from './helpers';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('folder sync plan step (embedded backend)', function () {
  this.timeout(60_000);
  const suite = useSyncSuite();

  /** Attaches `content` to the store as DocChat's sync of `relative` would have. */
  async function synced(storeId: string, relative: string, content: string | Buffer) {
    const data = typeof content === 'string' ? encode(content) : content;
    const file = await suite.backend.client.uploadFile({ filename: path.posix.basename(relative), data });
    await suite.backend.client.attachFile(storeId, { file_id: file.id, metadata: syncMetadata(relative, sha256(content)) });
    return file.id;
  }

  /** The plan step's options for the test's folder and a journal in its journal folder. */
  const options = (storeId: string, extra: Partial<PlanStepOptions> = {}) =>
    planOptions(suite.backend.client, storeId, suite.root, { journal: new SyncJournal(path.join(suite.journalDir, 'j.jsonl')), ...extra });

  it('plans a followed subfolder against only the store files synced from it', async () => {
    const { backend, root, tree } = suite;
    await tree({ 'docs/a.md': '# A', 'docs/new.md': '# New', 'notes/n.md': '# N' });
    const store = await backend.client.createVectorStore({ name: 'subfolder' });
    const a = await synced(store.id, 'docs/a.md', '# A');
    const gone = await synced(store.id, 'docs/gone.md', '# Gone');
    // Synced from another followed folder, and uploaded by hand: neither is this folder's business.
    await synced(store.id, 'notes/n-old.md', '# N old');
    const { storeFile: byHand } = await attachText(backend.client, store.id, 'manual.md', '# By hand');

    const planned = await planFolderSync(options(store.id, { folder: path.join(root, 'docs'), relativeFolder: 'docs' }));

    assert.equal(planned.prefix, 'docs/');
    assert.deepEqual(
      planned.plan.unchanged.map((u) => [u.local.path, u.remote.fileId]),
      [['docs/a.md', a]],
    );
    assert.deepEqual(
      planned.plan.upload.map((f) => f.path),
      ['docs/new.md'],
    );
    assert.deepEqual(
      planned.plan.remove.map((r) => r.fileId),
      [gone],
      'only the file deleted from this folder is removed',
    );
    assert.deepEqual(planned.counts, { new: 1, changed: 0, renamed: 0, removed: 1, unchanged: 1, failed: 0 });
    assert.deepEqual([...planned.hashed.keys()].sort(), ['docs/a.md', 'docs/new.md']);
    assert.equal(planned.hashed.get('docs/a.md')?.hash, sha256('# A'));
    assert.ok(planned.attachedIds.has(byHand.id), 'every store file counts as attached, not only this folder’s');
    assert.equal(planned.attachedIds.size, 4);
    assert.equal(planned.unfinished, undefined);
  });

  it('counts and names the files it leaves out for their type, so the plan can say so', async () => {
    const { backend, tree } = suite;
    await tree({ 'a.pdf': makePdf([{ lines: ['A'] }]), 'b.md': '# B', 'test.mp3': 'ID3', 'clip.mov': 'x' });
    const store = await backend.client.createVectorStore({ name: 'left-out' });

    const planned = await planFolderSync(options(store.id));

    assert.deepEqual(
      planned.plan.upload.map((f) => f.path),
      ['a.pdf', 'b.md'],
    );
    assert.deepEqual(planned.unsupported, ['clip.mov', 'test.mp3']);
    assert.deepEqual(planned.counts, { new: 2, changed: 0, renamed: 0, removed: 0, unchanged: 0, failed: 0, leftOut: 2 });
  });

  it('moves the files whose conversion failed into the replacements only when asked to retry them', async () => {
    const { backend, tree } = suite;
    const scan = makePdf([{ image: true }]);
    await tree({ 'scan.pdf': scan, 'ok.md': '# Ok' });
    const store = await backend.client.createVectorStore({ name: 'retry' });
    const failed = await synced(store.id, 'scan.pdf', scan);
    const converted = await backend.client.waitUntilProcessed(store.id, failed, { initialDelayMs: 10, maxDelayMs: 50 });
    assert.equal(converted.status, 'failed', 'a PDF without a text layer fails to convert');
    await synced(store.id, 'ok.md', '# Ok');

    const plain = await planFolderSync(options(store.id));
    assert.deepEqual(
      plain.plan.failed.map((f) => [f.local.path, f.remote.fileId]),
      [['scan.pdf', failed]],
    );
    assert.deepEqual(plain.plan.replace, []);
    assert.equal(plain.counts.failed, 1);

    const retried = await planFolderSync(options(store.id, { retryFailed: true }));
    assert.deepEqual(retried.plan.failed, []);
    assert.deepEqual(
      retried.plan.replace.map((r) => [r.local.path, r.current, r.old.map((o) => o.fileId)]),
      [['scan.pdf', undefined, [failed]]],
    );
    assert.deepEqual(
      retried.counts,
      { new: 0, changed: 1, renamed: 0, removed: 0, unchanged: 1, failed: 0 },
      'the counts are of the plan as retried',
    );
  });

  it('takes an interrupted sync from the journal only when it was begun for this store', async () => {
    const { backend, journalDir, tree } = suite;
    await tree({ 'a.md': '# A' });
    const store = await backend.client.createVectorStore({ name: 'journal' });
    const journal = new SyncJournal(path.join(journalDir, 'j.jsonl'));
    await journal.start(store.id, 1);
    await journal.append({ t: 'upload', path: 'a.md', hash: sha256('# A'), name: 'a.md', size: 3, at: 2 });

    const planned = await planFolderSync(options(store.id, { journal }));
    assert.equal(planned.unfinished?.storeId, store.id);
    assert.deepEqual([...(planned.unfinished?.uploadsInDoubt.keys() ?? [])], [entryKey('a.md', sha256('# A'))]);

    const other = await backend.client.createVectorStore({ name: 'another' });
    assert.equal((await planFolderSync(options(other.id, { journal }))).unfinished, undefined);
  });

  it('keeps the recorded hash of a file whose size and modification time are unchanged', async () => {
    const { backend, root, tree } = suite;
    await tree({ 'a.md': '# A' });
    const store = await backend.client.createVectorStore({ name: 'records' });
    const { size, mtimeMs } = await stat(path.join(root, 'a.md'));
    const records = new Map<string, FileRecord>([['a.md', { size, mtimeMs, hash: 'recorded-hash', status: 'synced' }]]);

    const planned = await planFolderSync(options(store.id, { records }));
    assert.equal(planned.hashed.get('a.md')?.hash, 'recorded-hash');
    assert.deepEqual(
      planned.plan.upload.map((f) => [f.path, f.hash]),
      [['a.md', 'recorded-hash']],
    );
  });
});
