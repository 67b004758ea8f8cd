import * as assert from 'node:assert/strict';
import { unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { slidingWindowFloorSeconds } from '../../../../src/features/sync/eta';
import { SyncJournal } from '../../../../src/features/sync/journal';
import { listStoreFiles, runSync, type RateWaits, type SyncClient, type SyncProgress } from '../../../../src/features/sync/runner';
import { progressMessage } from '../../../../src/features/sync/syncMessages';
import { scanFolder } from '../../../../src/features/sync/scanner';
import { PATH_KEY } from '../../../../src/features/sync/syncMetadata';
import { FakeClock } from '../../api/helpers';
import { makePdf } from '../../backend/helpers';
import { TOKEN } from '../backend';
import { counting, planFor, useSyncSuite } from './helpers';
import { Agent, type Dispatcher } from 'undici';

async function storePaths(client: SyncClient, storeId: string): Promise<string[]> {
  return (await listStoreFiles(client, storeId)).map((f) => String(f.metadata?.[PATH_KEY])).sort();
}

describe('folder sync runner (embedded backend)', function () {
  this.timeout(60_000);
  const suite = useSyncSuite();

  it('leaves out ignored, excluded and unconvertible files', async () => {
    const { root, tree } = suite;
    await tree({
      'a.md': '# A',
      '.gitignore': 'build/\n*.log\n',
      'build/out.md': 'x',
      'debug.log': 'x',
      'img.bin': 'x',
      'private/secret.md': 'x',
      'sub/b.txt': 'b',
    });
    const scan = await scanFolder({ root, folder: root, exclude: ['private/**'] });
    assert.deepEqual(
      scan.files.map((f) => f.path),
      ['a.md', 'sub/b.txt'],
    );
    assert.ok(scan.unsupported.includes('img.bin'));
  });

  it('syncs a folder, then a re-sync touches exactly the changed, deleted and added files', async () => {
    const { backend, root, journalDir, tree } = suite;
    const files: Record<string, string | Buffer> = {};
    for (let i = 0; i < 8; i++) files[`docs/n${i}.md`] = `# Note ${i}\n\nBody ${i}.`;
    files['team/README.md'] = '# Team';
    files['ops/README.md'] = '# Ops';
    await tree(files);
    const store = await backend.client.createVectorStore({ name: 'sync' });
    const clock = new FakeClock();
    const client = counting(backend.client, clock);
    const journal = new SyncJournal(path.join(journalDir, 'j.jsonl'));

    let { plan, attachedIds } = await planFor(client, store.id, root);
    assert.equal(plan.upload.length, 10);
    await journal.start(store.id, clock.now());
    let summary = await runSync(
      { client, storeId: store.id, root, journal, plan, removeDeleted: true, limits: false, clock },
      undefined,
      attachedIds,
    );
    await journal.finish();
    assert.equal(summary.uploaded, 10);
    assert.deepEqual(summary.failed, []);
    assert.equal((await storePaths(client, store.id)).length, 10);

    // change 2, delete 1, add 1
    await writeFile(path.join(root, 'docs', 'n0.md'), '# Note 0\n\nRewritten.');
    await writeFile(path.join(root, 'ops', 'README.md'), '# Ops, changed');
    await unlink(path.join(root, 'docs', 'n7.md'));
    await writeFile(path.join(root, 'docs', 'n8.md'), '# Note 8');
    for (const key of Object.keys(client.calls)) delete client.calls[key];

    ({ plan, attachedIds } = await planFor(client, store.id, root));
    assert.deepEqual(
      {
        upload: plan.upload.map((f) => f.path),
        replace: plan.replace.map((r) => r.local.path).sort(),
        remove: plan.remove.map((r) => r.pathKey),
        unchanged: plan.unchanged.length,
      },
      { upload: ['docs/n8.md'], replace: ['docs/n0.md', 'ops/README.md'], remove: ['docs/n7.md'], unchanged: 7 },
    );
    await journal.start(store.id, clock.now());
    summary = await runSync(
      { client, storeId: store.id, root, journal, plan, removeDeleted: true, limits: false, clock },
      undefined,
      attachedIds,
    );
    await journal.finish();
    assert.equal(client.calls.uploadFile, 3);
    assert.equal(client.calls.attachFile, 3);
    assert.equal(client.calls.deleteVectorStoreFile, 3, 'two replaced versions and one deleted file');
    assert.equal(client.calls.updateVectorStoreFileMetadata, undefined);
    const paths = await storePaths(client, store.id);
    assert.equal(paths.length, 10);
    assert.ok(paths.includes('docs/n8.md') && !paths.includes('docs/n7.md'));
    assert.equal(new Set(paths).size, paths.length, 'one store file per path');
  });

  it('reports a file that fails to convert with its last_error', async () => {
    const { backend, root, journalDir, tree } = suite;
    await tree({ 'scan.pdf': makePdf([{ image: true }]), 'ok.md': '# fine' });
    const store = await backend.client.createVectorStore({ name: 'fail' });
    const clock = new FakeClock();
    const { plan, attachedIds } = await planFor(backend.client, store.id, root);
    const journal = new SyncJournal(path.join(journalDir, 'j.jsonl'));
    await journal.start(store.id, clock.now());
    const outcomes: string[] = [];
    const summary = await runSync(
      {
        client: backend.client,
        storeId: store.id,
        root,
        journal,
        plan,
        removeDeleted: true,
        limits: false,
        clock,
        skipOcr: true,
        onOutcome: (o) => outcomes.push(`${o.path}:${o.status}`),
      },
      undefined,
      attachedIds,
    );
    assert.deepEqual(
      summary.failed.map((f) => f.path),
      ['scan.pdf'],
    );
    assert.match(summary.failed[0]!.error, /OCR was skipped/);
    assert.ok(outcomes.includes('scan.pdf:failed') && outcomes.includes('ok.md:synced'));
    // The next plan reports it and does not send it again.
    const next = await planFor(backend.client, store.id, root);
    assert.deepEqual(
      next.plan.failed.map((f) => f.local.path),
      ['scan.pdf'],
    );
    assert.equal(next.plan.upload.length + next.plan.replace.length, 0);
  });

  it('resumes an interrupted sync without uploading or attaching any file twice', async () => {
    const { backend, root, journalDir, tree } = suite;
    await tree({ 'a.md': '# A', 'b.md': '# B', 'c.md': '# C', 'd.md': '# D' });
    const store = await backend.client.createVectorStore({ name: 'resume' });
    const clock = new FakeClock();
    const journal = new SyncJournal(path.join(journalDir, 'j.jsonl'));
    const first = await planFor(backend.client, store.id, root);
    const hashOf = (p: string) => first.plan.upload.find((f) => f.path === p)!.hash;
    await journal.start(store.id, clock.now());
    // a.md: uploaded and attached, the answer of the attach lost.
    const a = await backend.client.uploadFile({ filename: 'a.md', data: Buffer.from('# A') });
    await journal.append({ t: 'upload', path: 'a.md', hash: hashOf('a.md'), name: 'a.md', size: 3, at: clock.now() });
    await journal.append({ t: 'uploaded', path: 'a.md', hash: hashOf('a.md'), fileId: a.id });
    await journal.append({ t: 'attach', path: 'a.md', hash: hashOf('a.md'), fileId: a.id });
    await backend.client.attachFile(store.id, { file_id: a.id, metadata: { docchat_path: 'a.md', docchat_sha256: hashOf('a.md') } });
    // b.md: uploaded, the answer of the upload lost (the journal has only the intent).
    await journal.append({ t: 'upload', path: 'b.md', hash: hashOf('b.md'), name: 'b.md', size: 3, at: clock.now() });
    await backend.client.uploadFile({ filename: 'b.md', data: Buffer.from('# B') });
    // c.md: uploaded with a known id, never attached.
    const c = await backend.client.uploadFile({ filename: 'c.md', data: Buffer.from('# C') });
    await journal.append({ t: 'upload', path: 'c.md', hash: hashOf('c.md'), name: 'c.md', size: 3, at: clock.now() });
    await journal.append({ t: 'uploaded', path: 'c.md', hash: hashOf('c.md'), fileId: c.id });
    const filesBefore = (await backend.client.listFiles({ limit: 10_000 })).data.length;

    // The window reloads: a new sync plans against the store and reads the journal.
    const client = counting(
      new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } }),
      clock,
    );
    const { plan, attachedIds } = await planFor(client, store.id, root);
    assert.deepEqual(
      plan.unchanged.map((u) => u.local.path),
      ['a.md'],
      'the attached file is found in the store',
    );
    const unfinished = await journal.read();
    assert.ok(unfinished);
    const summary = await runSync(
      { client, storeId: store.id, root, journal, plan, removeDeleted: true, limits: false, clock },
      unfinished,
      attachedIds,
    );
    await journal.finish();
    assert.equal(client.calls.uploadFile, 1, 'only d.md is uploaded');
    assert.equal(client.calls.attachFile, 3, 'b, c and d are attached once each');
    assert.equal(summary.recovered, 2);
    assert.deepEqual(await storePaths(client, store.id), ['a.md', 'b.md', 'c.md', 'd.md']);
    assert.equal((await backend.client.listFiles({ limit: 10_000 })).data.length, filesBefore + 1, 'no orphan upload was left behind');
  });

  it('keeps within the rate limits at full concurrency and estimates no less than their floor (fake clock)', async () => {
    const { backend, root, journalDir, tree } = suite;
    const files: Record<string, string> = {};
    for (let i = 0; i < 75; i++) files[`f${String(i).padStart(2, '0')}.txt`] = `file ${i}`;
    await tree(files);
    const store = await backend.client.createVectorStore({ name: 'limits' });
    const clock = new FakeClock();
    const limits = { uploadFile: 60, attachFile: 30, listVectorStoreFiles: 120, listFiles: 120 };
    // When each attach leaves the client (the fake clock moves on while requests are in flight, so
    // the time a call returns is later than the time it was sent).
    const sentAt: number[] = [];
    class Stamping extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        if (options.method === 'POST' && /\/vector_stores\/[^/]+\/files$/.test(options.path)) sentAt.push(clock.now());
        return super.dispatch(options, handler);
      }
    }
    const dispatcher = new Stamping();
    const limited = new DocumentsClient({
      baseUrl: backend.url,
      token: TOKEN,
      rateLimits: limits,
      transport: { clock, maxRetries: 0, dispatcher },
    });
    const client = counting(limited, clock);
    const { plan, attachedIds } = await planFor(backend.client, store.id, root);
    const journal = new SyncJournal(path.join(journalDir, 'j.jsonl'));
    await journal.start(store.id, clock.now());
    const progress: SyncProgress[] = [];
    const started = clock.now();
    await runSync(
      {
        client,
        storeId: store.id,
        root,
        journal,
        plan,
        removeDeleted: true,
        limits,
        clock,
        concurrency: 16,
        waitForConversion: false,
        onProgress: (p) => progress.push(p),
      },
      undefined,
      attachedIds,
    );
    await limited.close();
    await dispatcher.close();
    const attaches = sentAt;
    assert.equal(client.at.attachFile!.length, 75);
    assert.equal(attaches.length, 75);
    // 30 a minute as the service counts it: never more than 30 within any 60 s (the first 30 at
    // once, the next 30 when those are a minute old, the last 15 a minute later).
    for (const [k, at] of attaches.entries()) {
      const inMinute = attaches.filter((t) => t >= at && t < at + 60_000).length;
      assert.ok(inMinute <= 30, `${inMinute} attaches in the minute from attach ${k} (${at - started} ms)`);
    }
    const elapsed = clock.now() - started;
    // The limiter keeps a second's margin a minute for the time a request takes to arrive.
    assert.ok(elapsed <= 2 * 61_000 + 2_000, `the queue kept pace with the limit (${elapsed} ms)`);
    assert.ok(
      (progress[0]!.etaSeconds ?? -1) >= slidingWindowFloorSeconds({ attachFile: 75 }, limits),
      `first estimate ${progress[0]!.etaSeconds} s`,
    );
    assert.equal(progress.at(-1)!.done, 75);
  });
});

describe('folder sync runner waiting for the rate limit (fake clock)', function () {
  this.timeout(60_000);
  const suite = useSyncSuite();

  it("counts a 429's Retry-After into the estimate and says it waits for the service's rate limit", async () => {
    const { backend, root, journalDir, tree } = suite;
    const files: Record<string, string> = {};
    for (let i = 0; i < 41; i++) files[`f${String(i).padStart(2, '0')}.md`] = `# File ${i}`;
    await tree(files);
    const store = await backend.client.createVectorStore({ name: 'retry-after' });
    const clock = new FakeClock();
    const limits = { uploadFile: 60, attachFile: 30 };
    // What the client reports: the server refused attach 31 with Retry-After 58 s, and every
    // attach after it waits for that (the transport's drained bucket).
    const until = new Map<string, number>();
    const listeners = new Set<() => void>();
    const rateWaits: RateWaits = {
      until: (operation) => until.get(operation),
      onDidChange(listener) {
        listeners.add(listener);
        return { dispose: () => listeners.delete(listener) };
      },
    };
    const client = counting(backend.client, clock);
    const attach = client.attachFile.bind(client);
    let attaches = 0;
    client.attachFile = async (...args) => {
      if (++attaches > 30) {
        if (!until.has('attachFile')) {
          until.set('attachFile', clock.now() + 58_000);
          for (const listener of listeners) listener();
        }
        await clock.sleep(until.get('attachFile')! - clock.now());
      }
      return attach(...args);
    };
    const { plan, attachedIds } = await planFor(backend.client, store.id, root);
    const journal = new SyncJournal(path.join(journalDir, 'j.jsonl'));
    await journal.start(store.id, clock.now());
    const progress: (SyncProgress & { at: number })[] = [];
    await runSync(
      {
        client,
        storeId: store.id,
        root,
        journal,
        plan,
        removeDeleted: true,
        limits,
        rateWaits,
        clock,
        waitForConversion: false,
        onProgress: (p) => progress.push({ ...p, at: clock.now() }),
      },
      undefined,
      attachedIds,
    );
    await journal.finish();
    const end = until.get('attachFile')!;
    const during = progress.filter((p) => p.at < end && p.at >= end - 58_000 && p.done < p.total);
    const waiting = during.filter((p) => p.waiting);
    assert.ok(waiting.length > 0, 'the progress says it waits');
    for (const p of waiting) {
      assert.deepEqual(p.waiting, { operation: 'attachFile', perMinute: 30 });
      assert.ok((p.etaSeconds ?? -1) * 1000 >= end - p.at, `at ${p.at - end} ms the estimate was ${p.etaSeconds} s`);
      assert.match(progressMessage(p), /waiting for the service's rate limit \(30 attaches a minute\)/);
    }
    // The estimate counts down while nothing else happens.
    assert.ok(new Set(waiting.map((p) => Math.ceil(p.etaSeconds ?? -1))).size > 10, 'the estimate is refreshed during the wait');
    assert.equal(progress.at(-1)!.done, 41);
    assert.equal(progress.at(-1)!.waiting, undefined);
  });
});
