import * as assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { SyncJournal, type JournalEntry } from '../../../../src/features/sync/journal';
import { listStoreFiles, runSync } from '../../../../src/features/sync/runner';
import { PATH_KEY } from '../../../../src/features/sync/syncMetadata';
import { startTestBackend, TOKEN, type TestBackend } from '../backend';
import { counting, planFor } from './helpers';

const flushed = (file: string, text: string) => appendFile(file, text, { encoding: 'utf8', flush: true });

describe('sync journal group commit', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'docchat-journal-batch-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes entries appended together in one write, and each append resolves only once its line is on disk', async () => {
    const file = path.join(dir, 'j.jsonl');
    const batches: string[] = [];
    const journal = new SyncJournal(file, {
      write: async (target, text) => {
        batches.push(text);
        await flushed(target, text);
      },
    });
    await journal.start('vs_1', 1);
    const entries: JournalEntry[] = Array.from({ length: 20 }, (_, i) => ({ t: 'remove', fileId: `file-${i}` }));
    const seenOnDisk: boolean[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        await journal.append(entry);
        seenOnDisk.push((await readFile(file, 'utf8')).includes(`"fileId":"${(entry as { fileId: string }).fileId}"`));
      }),
    );
    assert.ok(batches.length < entries.length, `20 entries in ${batches.length} writes`);
    assert.ok(batches.length >= 1);
    assert.ok(seenOnDisk.every(Boolean), 'every append resolved after its line was written');
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalEntry);
    assert.deepEqual(lines.slice(1), entries, 'every entry once, in the order appended');
  });

  it('without group commit, writes one entry per write', async () => {
    const file = path.join(dir, 'j.jsonl');
    const journal = new SyncJournal(file, { groupCommit: false });
    await journal.start('vs_1', 1);
    await Promise.all([1, 2, 3].map((i) => journal.append({ t: 'remove', fileId: `f${i}` })));
    assert.equal(journal.writes, 3);
  });

  it('after a failed write, rejects every later append and writes nothing more', async () => {
    const file = path.join(dir, 'j.jsonl');
    let calls = 0;
    const journal = new SyncJournal(file, {
      write: async (target, text) => {
        calls++;
        if (calls === 2) throw new Error('disk full');
        await flushed(target, text);
      },
    });
    await journal.start('vs_1', 1);
    await journal.append({ t: 'remove', fileId: 'a' });
    await assert.rejects(journal.append({ t: 'remove', fileId: 'b' }), /disk full/);
    await assert.rejects(journal.append({ t: 'remove', fileId: 'c' }), /disk full/);
    assert.equal(calls, 2);
    const text = await readFile(file, 'utf8');
    assert.match(text, /"a"/);
    assert.doesNotMatch(text, /"b"|"c"/);
  });

  describe('a crash between two batches (embedded backend)', () => {
    let backend: TestBackend;
    let root: string;
    before(async () => {
      backend = await startTestBackend();
    });
    after(() => backend.stop());
    beforeEach(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'docchat-sync-batch-'));
    });
    afterEach(() => rm(root, { recursive: true, force: true }));

    for (const crashAt of [2, 3, 5]) {
      it(`loses no file and sends no upload or attach twice when the journal stops at batch ${crashAt}`, async () => {
        const names = Array.from({ length: 24 }, (_, i) => `notes/n${i}.md`);
        for (const name of names) {
          await mkdir(path.dirname(path.join(root, name)), { recursive: true });
          await writeFile(path.join(root, name), `# ${name}\n`);
        }
        const store = await backend.client.createVectorStore({ name: `crash-${crashAt}` });
        const file = path.join(dir, 'j.jsonl');
        let batch = 0;
        // The process "dies" at batch `crashAt`: that write never reaches the disk, nor any later one.
        const crashing = new SyncJournal(file, {
          write: async (target, text) => {
            if (++batch >= crashAt) throw new Error('the window closed');
            await flushed(target, text);
          },
        });
        await crashing.start(store.id, Date.now());
        const firstClient = counting(
          new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } }),
        );
        const first = await planFor(firstClient, store.id, root);
        const interrupted = await runSync({
          client: firstClient,
          storeId: store.id,
          root,
          journal: crashing,
          plan: first.plan,
          removeDeleted: true,
          limits: false,
          concurrency: 8,
          waitForConversion: false,
        });
        assert.ok(interrupted.failed.length > 0, 'the crash stopped part of the sync');

        // The window reloads: a fresh journal on the same file, a new plan, and the resumed sync.
        const journal = new SyncJournal(file);
        const unfinished = await journal.read();
        assert.ok(unfinished, 'the journal of the interrupted sync is there');
        const client = counting(
          new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } }),
        );
        const { plan, attachedIds } = await planFor(client, store.id, root);
        await runSync(
          { client, storeId: store.id, root, journal, plan, removeDeleted: true, limits: false, concurrency: 8, waitForConversion: false },
          unfinished,
          attachedIds,
        );
        await journal.finish();

        const uploads = (firstClient.calls.uploadFile ?? 0) + (client.calls.uploadFile ?? 0);
        const attaches = (firstClient.calls.attachFile ?? 0) + (client.calls.attachFile ?? 0);
        assert.equal(uploads, names.length, 'every file uploaded exactly once over both runs');
        assert.equal(attaches, names.length, 'every file attached exactly once over both runs');
        const paths = (await listStoreFiles(backend.client, store.id)).map((f) => String(f.metadata?.[PATH_KEY])).sort();
        assert.deepEqual(paths, [...names].sort(), 'the store has every file once');
      });
    }
  });
});
