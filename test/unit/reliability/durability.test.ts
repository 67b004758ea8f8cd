/**
 * Durability: the backend CLI is killed with SIGKILL at seeded random moments while writers
 * create stores, upload, attach (ingest running in the background) and change metadata. After
 * each restart the data folder loads, every acknowledged write is there, and interrupted ingests
 * finish. The seed is printed; DOCCHAT_TEST_SEED replays a run. (test/unit/backend/crash.test.ts
 * kills at four fixed moments; this one adds random moments and more rounds.)
 *
 * A SIGKILL ends the process, not the machine: the page cache keeps what was written, so this
 * cannot see a missing fsync (it passes with every fsync removed from persistence/). It sees
 * acknowledgements that come before the write, non-atomic replacements and a journal that does
 * not load after a torn append. That a write is acknowledged only after its fsync is
 * ackAfterSync.test.ts's.
 */
import * as assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { seededRandom, testSeed } from '../../support/faults/seededRandom';
import { startBackendProcess, type BackendProcess as BackendChild } from '../../support/harness/backend';
import { API_KEY, call, multipart, type Reply, tempDir, TOKEN } from '../backend/helpers';

const ROUNDS = 10;
const WRITERS = 3;

interface Acked {
  stores: Map<string, string>;
  files: Map<string, string>;
  attached: Map<string, { storeId: string; word: string }>;
  /** Per file / store file: the last acknowledged and the last sent metadata counter. */
  fileMeta: Map<string, { acked: number; sent: number }>;
  storeFileMeta: Map<string, { acked: number; sent: number }>;
}

const docs = (url: string, method: string, p: string, body?: unknown): Promise<Reply> =>
  call(url, method, p, { body, headers: { authorization: `Bearer ${TOKEN}` } });

function ok(reply: Reply, what: string): Reply {
  if (reply.status !== 200) throw new Error(`${what}: ${reply.status} ${reply.text}`);
  return reply;
}

/** Writers run until `target` writes were acknowledged; then, after `ticks` more turns of the event loop, SIGKILL. */
async function writeUntilKilled(
  child: BackendChild,
  acked: Acked,
  round: number,
  target: number,
  ticks: number,
  random: () => number,
): Promise<void> {
  let count = 0;
  let killed = false;
  const writer = async (w: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const name = `r${round}w${w}n${i}`;
        const store = ok(await docs(child.url, 'POST', '/v1/vector_stores', { name }), 'create');
        acked.stores.set(store.json.id, name);
        count++;
        const word = `word${round}x${w}x${i}`;
        // Sizes vary so conversions are in flight at different stages when the kill comes.
        const text = `# ${name}\n\n${word} ${'durable text to convert and index. '.repeat(50 + Math.floor(random() * 3000))}`;
        const { body, contentType } = multipart([
          { name: 'file', filename: `${name}.md`, data: Buffer.from(text) },
          { name: 'purpose', value: 'assistants' },
        ]);
        const upload = ok(
          await call(child.url, 'POST', '/v1/files', {
            raw: body,
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
          }),
          'upload',
        );
        const fileId = upload.json.id as string;
        acked.files.set(fileId, text);
        acked.fileMeta.set(fileId, { acked: 0, sent: 0 });
        count++;
        ok(await docs(child.url, 'POST', `/v1/vector_stores/${store.json.id}/files`, { file_id: fileId }), 'attach');
        acked.attached.set(fileId, { storeId: store.json.id, word });
        acked.storeFileMeta.set(fileId, { acked: 0, sent: 0 });
        count++;
        for (let n = 1; n <= 2 && !killed; n++) {
          const fm = acked.fileMeta.get(fileId)!;
          fm.sent = n;
          ok(await docs(child.url, 'PUT', `/v1/files/${fileId}`, { metadata: { n: String(n), round: String(round) } }), 'file metadata');
          fm.acked = n;
          count++;
          const sm = acked.storeFileMeta.get(fileId)!;
          sm.sent = n;
          ok(
            await docs(child.url, 'PUT', `/v1/vector_stores/${store.json.id}/files/${fileId}`, { metadata: { n: String(n) } }),
            'store file metadata',
          );
          sm.acked = n;
          count++;
        }
      } catch (error) {
        if (killed) return; // the kill broke this request: it was never acknowledged
        throw error;
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
  // Polled on the event loop, never on a clock: the moment is chosen by acks and loop turns.
  while (count < target) await new Promise((resolve) => setImmediate(resolve));
  for (let t = 0; t < ticks; t++) await new Promise((resolve) => setImmediate(resolve));
  killed = true;
  await child.kill();
  await Promise.all(writers);
}

function metaOk(n: number, { acked, sent }: { acked: number; sent: number }): boolean {
  // The last write may or may not have landed when it was cut off; every acknowledged one has.
  return n === acked || (n === sent && sent === acked + 1);
}

async function verify(child: BackendChild, acked: Acked): Promise<void> {
  for (const [id, name] of acked.stores) {
    const store = await docs(child.url, 'GET', `/v1/vector_stores/${id}`);
    assert.equal(store.status, 200, `acknowledged store ${name} is missing`);
    assert.equal(store.json.name, name);
  }
  for (const [id, text] of acked.files) {
    const content = await call(child.url, 'GET', `/v1/files/${id}/content`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(content.status, 200, `acknowledged file ${id} is missing`);
    assert.equal(content.text, text, `content of ${id} is intact`);
    const file = await docs(child.url, 'GET', `/v1/files/${id}`);
    assert.ok(
      metaOk(Number(file.json.metadata.n ?? 0), acked.fileMeta.get(id)!),
      `file metadata of ${id}: ${JSON.stringify(file.json.metadata)} vs ${JSON.stringify(acked.fileMeta.get(id))}`,
    );
  }
  for (const [fileId, { storeId, word }] of acked.attached) {
    let record: Reply;
    for (;;) {
      record = await docs(child.url, 'GET', `/v1/vector_stores/${storeId}/files/${fileId}`);
      assert.equal(record.status, 200, `acknowledged attach of ${fileId} is missing`);
      if (record.json.status !== 'in_progress') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(record.json.status, 'completed', `${fileId}: ${record.json.last_error}`);
    assert.ok(metaOk(Number(record.json.metadata.n ?? 0), acked.storeFileMeta.get(fileId)!), `store-file metadata of ${fileId}`);
    const search = await docs(child.url, 'POST', `/v1/vector_stores/${storeId}/search`, { query: word });
    assert.equal(search.json.data[0]?.file_id, fileId, `${fileId} is searchable after the restart`);
  }
}

describe('durability: SIGKILL at random moments during ingest and metadata writes', function () {
  this.timeout(240_000);
  const seed = testSeed();
  let dataDir: string;
  let child: BackendChild | undefined;

  before(async () => {
    dataDir = await tempDir('docchat-durability-');
  });
  after(async () => {
    if (child) await child.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged write over ${ROUNDS} process kills (seed printed below)`, async () => {
    console.log(`      durability seed ${seed} (replay with DOCCHAT_TEST_SEED=${seed})`);
    const random = seededRandom(seed);
    const acked: Acked = { stores: new Map(), files: new Map(), attached: new Map(), fileMeta: new Map(), storeFileMeta: new Map() };
    const moments: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      child = await startBackendProcess({ dataDir, token: TOKEN, apiKey: API_KEY, args: ['--no-rate-limits'], fromSource: true });
      await verify(child, acked);
      const target = 1 + Math.floor(random() * 40);
      const ticks = Math.floor(random() * 200);
      moments.push(`${target}+${ticks}`);
      await writeUntilKilled(child, acked, round, target, ticks, random);
    }
    child = await startBackendProcess({ dataDir, token: TOKEN, apiKey: API_KEY, args: ['--no-rate-limits'], fromSource: true });
    await verify(child, acked);
    console.log(
      `      killed after acks+ticks: ${moments.join(', ')}; ${acked.stores.size} stores, ${acked.files.size} files, ${acked.attached.size} attached`,
    );
    assert.ok(acked.attached.size >= ROUNDS, 'the workload reached the ingest in most rounds');
  });
});
