/**
 * Crash safety: the CLI runs as a child process, a workload of uploads, attaches, store creations
 * and metadata updates runs against it, and the process is killed with SIGKILL while requests are
 * in flight. After a restart on the same data folder, every acknowledged write must be there.
 *
 * What this can see: a write acknowledged before it reached the file system (e.g. an answer sent
 * before the journal write), files replaced in place instead of renamed, a journal tail cut
 * mid-line that no longer loads. What it cannot see: a missing fsync. The process dies but the
 * machine does not, and the kernel's page cache keeps every write the process made, so the data
 * folder reads back the same with or without fsync. That order (no 200 before the fsync, none
 * when it fails) is test/unit/reliability/ackAfterSync.test.ts's.
 */
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { startBackendProcess, type BackendProcess as Child } from '../../support/harness/backend';
import { API_KEY, call, multipart, tempDir, TOKEN, type Reply } from './helpers';

const spawnBackend = (dataDir: string) =>
  startBackendProcess({ dataDir, token: TOKEN, apiKey: API_KEY, args: ['--no-rate-limits'], fromSource: true });

interface Model {
  stores: Map<string, string>;
  files: Map<string, { data: Buffer; word: string }>;
  attached: Map<string, string>; // file id -> store id
  /** Per file: last acknowledged and last sent metadata counter (one writer per file). */
  metadata: Map<string, { acked: number; sent: number }>;
  /** The same for the store-file metadata of attached files. */
  storeFileMetadata: Map<string, { acked: number; sent: number }>;
}

function docs(url: string, method: string, p: string, body?: unknown): Promise<Reply> {
  return call(url, method, p, { body, headers: { authorization: `Bearer ${TOKEN}` } });
}

/** Runs writers until `ackTarget` writes were acknowledged, then kills the process mid-flight. */
async function workload(child: Child, model: Model, round: number, ackTarget: number): Promise<void> {
  let acked = 0;
  let killed = false;
  const ack = () => {
    acked++;
  };
  const writer = async (w: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const name = `r${round}-w${w}-${i}`;
        const store = await docs(child.url, 'POST', '/v1/vector_stores', { name });
        if (store.status !== 200) throw new Error(store.text);
        model.stores.set(store.json.id, name);
        ack();
        const word = `unique${round}x${w}x${i}`;
        const data = Buffer.from(`# ${name}\n\n${word} ${'filler text for the crash test. '.repeat(200 + ((w * 37 + i * 91) % 2000))}`);
        const { body, contentType } = multipart([
          { name: 'file', filename: `${name}.md`, data },
          { name: 'purpose', value: 'assistants' },
        ]);
        const upload = await call(child.url, 'POST', '/v1/files', {
          raw: body,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
        });
        if (upload.status !== 200) throw new Error(upload.text);
        const fileId = upload.json.id as string;
        model.files.set(fileId, { data, word });
        model.metadata.set(fileId, { acked: 0, sent: 0 });
        ack();
        const attach = await docs(child.url, 'POST', `/v1/vector_stores/${store.json.id}/files`, { file_id: fileId });
        if (attach.status !== 200) throw new Error(attach.text);
        model.attached.set(fileId, store.json.id);
        model.storeFileMetadata.set(fileId, { acked: 0, sent: 0 });
        ack();
        for (let n = 1; n <= 3 && !killed; n++) {
          const state = model.metadata.get(fileId)!;
          state.sent = n;
          const put = await docs(child.url, 'PUT', `/v1/files/${fileId}`, { metadata: { n: String(n) } });
          if (put.status !== 200) throw new Error(put.text);
          state.acked = n;
          ack();
          // Store-file metadata changes race with the conversion finishing: both must survive.
          const sfState = model.storeFileMetadata.get(fileId)!;
          sfState.sent = n;
          const sfPut = await docs(child.url, 'PUT', `/v1/vector_stores/${store.json.id}/files/${fileId}`, { metadata: { n: String(n) } });
          if (sfPut.status !== 200) throw new Error(sfPut.text);
          sfState.acked = n;
          ack();
        }
      } catch (error) {
        if (killed) return;
        throw error;
      }
    }
  };
  const writers = Array.from({ length: 4 }, (_, w) => writer(w));
  while (acked < ackTarget) await new Promise((resolve) => setTimeout(resolve, 2));
  killed = true;
  await child.kill();
  await Promise.all(writers);
}

async function verify(child: Child, model: Model): Promise<void> {
  for (const [id, name] of model.stores) {
    const store = await docs(child.url, 'GET', `/v1/vector_stores/${id}`);
    assert.equal(store.status, 200, `acknowledged store ${id} is missing`);
    assert.equal(store.json.name, name);
  }
  for (const [id, { data }] of model.files) {
    const content = await call(child.url, 'GET', `/v1/files/${id}/content`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(content.status, 200, `acknowledged file ${id} is missing`);
    assert.equal(content.text, data.toString(), `content of ${id} survived intact`);
    const { acked, sent } = model.metadata.get(id)!;
    const file = await docs(child.url, 'GET', `/v1/files/${id}`);
    const n = Number(file.json.metadata.n ?? 0);
    assert.ok(n === acked || (n === sent && sent === acked + 1), `metadata of ${id}: got ${n}, acknowledged ${acked}, sent ${sent}`);
  }
  for (const [fileId, storeId] of model.attached) {
    let record: Reply;
    do {
      record = await docs(child.url, 'GET', `/v1/vector_stores/${storeId}/files/${fileId}`);
      assert.equal(record.status, 200, `acknowledged attach of ${fileId} is missing`);
    } while (record.json.status === 'in_progress' && (await new Promise((resolve) => setTimeout(resolve, 20)), true));
    assert.equal(record.json.status, 'completed', `${fileId}: ${record.json.last_error}`);
    const { acked, sent } = model.storeFileMetadata.get(fileId)!;
    const n = Number(record.json.metadata.n ?? 0);
    assert.ok(
      n === acked || (n === sent && sent === acked + 1),
      `store-file metadata of ${fileId}: got ${n}, acknowledged ${acked}, sent ${sent}`,
    );
    const search = await docs(child.url, 'POST', `/v1/vector_stores/${storeId}/search`, { query: model.files.get(fileId)!.word });
    assert.equal(search.json.data[0]?.file_id, fileId, `${fileId} is searchable after the restart`);
  }
}

describe('backend: crash safety (kill -9 during writes)', function () {
  this.timeout(120_000);
  let dataDir: string;
  let child: Child | undefined;
  before(async () => {
    dataDir = await tempDir('docchat-crash-');
  });
  after(async () => {
    if (child && child.process.exitCode === null) await child.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('never loses an acknowledged write to a process kill and always loads again', async () => {
    const model: Model = { stores: new Map(), files: new Map(), attached: new Map(), metadata: new Map(), storeFileMetadata: new Map() };
    // Kill at a few different moments: early, mid-way, after many writes.
    for (const [round, target] of [
      [1, 3],
      [2, 25],
      [3, 70],
      [4, 140],
    ] as const) {
      child = await spawnBackend(dataDir);
      await verify(child, model);
      await workload(child, model, round, target);
    }
    child = await spawnBackend(dataDir);
    await verify(child, model);
    assert.ok(model.files.size >= 10 && model.attached.size >= 10, `the workload ran (${model.files.size} files)`);
    const leftovers = (await readdir(path.join(dataDir, 'files'))).filter((n) => n.endsWith('.tmp'));
    assert.deepEqual(leftovers, [], 'interrupted writes were cleaned up');
    await new Promise<void>((resolve) => {
      child!.process.once('exit', () => resolve());
      child!.process.kill('SIGTERM');
    });
    assert.equal(child.process.exitCode, 0, 'SIGTERM stops cleanly');
  });
});
