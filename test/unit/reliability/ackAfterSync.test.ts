/**
 * A write is acknowledged only once it is on disk. A SIGKILL keeps the page cache, so the crash
 * tests pass even without a single fsync; this test makes the order visible instead: every fsync
 * of the backend is held, then fails. A backend that answered before its fsync has already said
 * 200 by then; one that waits for it reports the failure, and the write is not acknowledged.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { multipart, startTestBackend, tempDir, TOKEN, call, type Reply, type TestBackend } from '../backend/helpers';

type Sync = (this: fs.FileHandle) => Promise<void>;

/** Holds every `sync`/`datasync` of every file handle until `fail()`; counts the calls. */
async function holdSyncs(): Promise<{ calls: () => number; called: Promise<void>; fail(): void; restore(): void }> {
  const probe = await fs.open(path.join(await tempDir('docchat-sync-probe-'), 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: Sync; datasync: Sync };
  await probe.close();
  const original = { sync: proto.sync, datasync: proto.datasync };
  let calls = 0;
  let failAll!: () => void;
  const failed = new Promise<void>((resolve) => (failAll = resolve));
  let firstCall!: () => void;
  const called = new Promise<void>((resolve) => (firstCall = resolve));
  const held: Sync = async function () {
    calls++;
    firstCall();
    await failed;
    throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
  };
  proto.sync = held;
  proto.datasync = held;
  return {
    calls: () => calls,
    called,
    fail: failAll,
    restore: () => Object.assign(proto, original),
  };
}

describe('backend acknowledges a write only after its fsync', function () {
  this.timeout(60_000);

  const writes: Array<[string, (t: TestBackend) => Promise<Reply>]> = [
    ['creating a vector store', (t) => t.docs('POST', '/v1/vector_stores', { name: 'held' })],
    [
      'uploading a file',
      (t) => {
        const { body, contentType } = multipart([
          { name: 'file', filename: 'held.md', data: Buffer.from('# Held\n\nnot yet on disk') },
          { name: 'purpose', value: 'assistants' },
        ]);
        return call(t.url, 'POST', '/v1/files', { raw: body, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType } });
      },
    ],
  ];

  for (const [what, write] of writes) {
    it(`${what}: no 200 while the fsync is pending, and none when it fails`, async () => {
      const t = await startTestBackend({ rateLimits: false });
      const syncs = await holdSyncs();
      try {
        const reply = write(t);
        await syncs.called;
        // The fsync fails: a 200 now would have been sent without it.
        syncs.fail();
        const final = await reply;
        assert.ok(syncs.calls() >= 1);
        assert.notEqual(final.status, 200, `${what} was acknowledged although its fsync failed: ${final.text}`);
        assert.ok(final.status >= 500, `a failed write is the server's fault (${final.status})`);
      } finally {
        syncs.restore();
        await t.close().catch(() => undefined);
      }
    });
  }
});
