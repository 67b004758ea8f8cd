import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DataDirLockedError, startBackend } from '../../../../src/backend';
import { Journal } from '../../../../src/backend/persistence/journal';
import { API_KEY, startTestBackend, tempDir, TOKEN, type TestBackend } from '../helpers';

describe('backend: persistence', () => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await startTestBackend({ rateLimits: false });
  });
  afterEach(async () => t.close());

  async function snapshot() {
    const stores = (await t.docs('GET', '/v1/vector_stores?order=asc')).json;
    const files = (await t.docs('GET', '/v1/files?order=asc')).json;
    // The URL names the port, which changes with each start.
    for (const file of files.data) delete file.url;
    const storeFiles = [];
    for (const s of stores.data) storeFiles.push((await t.docs('GET', `/v1/vector_stores/${s.id}/files?order=asc`)).json);
    return { stores, files, storeFiles };
  }

  it('keeps stores, files, metadata, store files and the search index across a restart', async () => {
    const kb = await t.createStore('kb', { team: 'a' });
    const gone = await t.createStore('gone');
    const first = await t.ingest(kb, 'first.md', '# First\n\nThe lighthouse keeper logs the weather.');
    const second = await t.ingest(kb, 'second.md', 'Second file about harbour tides.');
    const removed = await t.ingest(kb, 'removed.md', 'Removed file.');
    await t.docs('PUT', `/v1/files/${first.json.id}`, { metadata: { owner: 'x' } });
    await t.docs('PUT', `/v1/vector_stores/${kb}/files/${second.json.id}`, { metadata: { stage: 'final' } });
    await t.docs('DELETE', `/v1/vector_stores/${gone}`);
    await t.docs('DELETE', `/v1/files/${removed.json.id}`);
    const before = await snapshot();
    const search = (await t.docs('POST', `/v1/vector_stores/${kb}/search`, { query: 'lighthouse weather' })).json;

    await t.restart();
    assert.deepEqual(await snapshot(), before);
    assert.deepEqual((await t.docs('POST', `/v1/vector_stores/${kb}/search`, { query: 'lighthouse weather' })).json, search);
    assert.equal((await t.docs('GET', `/v1/vector_stores/${gone}`)).status, 404);
    assert.equal((await t.docs('GET', `/v1/files/${removed.json.id}`)).status, 404);
    const content = await t.docs('GET', `/v1/files/${first.json.id}/content`);
    assert.equal(content.text, '# First\n\nThe lighthouse keeper logs the weather.');
    assert.deepEqual(await readdir(path.join(t.dataDir, 'chunks', kb)), [`${first.json.id}.json`, `${second.json.id}.json`].sort());
  });

  it('recovers from a torn or corrupt journal tail and keeps every complete entry', async () => {
    const kb = await t.createStore('kb');
    await t.backend.close();
    const journal = path.join(t.dataDir, 'state', 'journal.log');
    const intact = (await stat(journal)).size;
    await appendFile(journal, 'deadbeef {"op":"store.put","store":{"id":"vs_torn"'); // a write cut by a crash
    await t.restart();
    assert.equal((await t.docs('GET', `/v1/vector_stores/${kb}`)).status, 200);
    assert.equal((await t.docs('GET', '/v1/vector_stores/vs_torn')).status, 404);
    assert.equal((await stat(journal)).size, intact, 'the torn tail was cut off');
    assert.ok(t.logs.some((l) => l.includes('Recovered the journal')));

    // A complete line with a wrong checksum is treated the same way.
    await t.backend.close();
    await appendFile(journal, '00000000 {"op":"store.delete","id":"' + kb + '","seq":999}\n');
    await t.restart();
    assert.equal((await t.docs('GET', `/v1/vector_stores/${kb}`)).status, 200);
    const later = await t.createStore('later');
    await t.restart();
    assert.equal((await t.docs('GET', `/v1/vector_stores/${later}`)).status, 200);
  });

  it('converts again when a converted file is missing at start', async () => {
    const kb = await t.createStore('kb');
    const done = await t.ingest(kb, 'a.md', 'recoverable text');
    await t.backend.close();
    await rm(path.join(t.dataDir, 'chunks', kb, `${done.json.id}.json`));
    await t.restart();
    const record = await t.waitUntilProcessed(kb, done.json.id);
    assert.equal(record.json.status, 'completed');
    assert.equal((await t.docs('POST', `/v1/vector_stores/${kb}/search`, { query: 'recoverable' })).json.data.length, 1);
  });

  it('removes interrupted uploads and temporary files at start', async () => {
    await t.backend.close();
    await writeFile(path.join(t.dataDir, 'files', 'file-never-journaled'), 'orphan');
    await writeFile(path.join(t.dataDir, 'files', '.file-x.abc.tmp'), 'half');
    await t.restart();
    assert.deepEqual(await readdir(path.join(t.dataDir, 'files')), []);
  });

  it('refuses a second backend on the same data folder and names the first', async () => {
    await assert.rejects(
      startBackend({ dataDir: t.dataDir, token: TOKEN, apiKey: API_KEY }),
      (error: unknown) => error instanceof DataDirLockedError && error.url === t.url && /in use/.test(error.message),
    );
    // The first one still works.
    assert.equal((await t.docs('GET', '/v1/vector_stores')).status, 200);
  });
});

describe('backend: journal', () => {
  it('snapshots every N entries and replays the rest', async () => {
    const dir = await tempDir();
    let state: number[] = [];
    const open = () => Journal.open<number[], { op: string; value: number }>(dir, () => [...state], 3);
    const { journal } = await open();
    for (let value = 1; value <= 7; value++) {
      state.push(value);
      await journal.append({ op: 'add', value });
    }
    await journal.close();
    const snapshot = JSON.parse(await readFile(path.join(dir, 'snapshot.json'), 'utf8'));
    assert.deepEqual(snapshot.state, [1, 2, 3, 4, 5, 6]);
    const { journal: reopened, loaded } = await open();
    assert.deepEqual(loaded.snapshot, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      loaded.entries.map((e) => e.value),
      [7],
    );
    state = [...loaded.snapshot!, ...loaded.entries.map((e) => e.value)];
    await reopened.append({ op: 'add', value: 8 });
    await reopened.close();
    const third = await open();
    assert.deepEqual(
      third.loaded.entries.map((e) => e.value),
      [7, 8],
    );
    await third.journal.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('group-commits concurrent appends in order', async () => {
    const dir = await tempDir();
    const { journal } = await Journal.open<null, { op: string; n: number }>(dir, () => null);
    await Promise.all(Array.from({ length: 50 }, (_, n) => journal.append({ op: 'x', n })));
    await journal.close();
    const { journal: again, loaded } = await Journal.open<null, { op: string; n: number; seq?: number }>(dir, () => null);
    assert.deepEqual(
      loaded.entries.map((e) => e.n),
      Array.from({ length: 50 }, (_, n) => n),
    );
    assert.deepEqual(
      loaded.entries.map((e) => e.seq),
      Array.from({ length: 50 }, (_, n) => n + 1),
    );
    await again.close();
    await rm(dir, { recursive: true, force: true });
  });
});
