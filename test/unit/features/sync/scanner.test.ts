import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hashFiles, scanFolder } from '../../../../src/features/sync/scanner';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Runs `work` and returns the files this thread opened or read meanwhile (a worker thread has fs
 * modules of its own, so its reads are not seen). The scanner calls node:fs/promises through the
 * module object, so replacing its functions for the call is enough.
 */
async function filesReadOnThisThread<T>(work: () => Promise<T>): Promise<{ result: T; read: string[] }> {
  const fsp = require('node:fs/promises') as Record<'open' | 'readFile', (file: unknown, ...rest: unknown[]) => Promise<unknown>>;
  const real = { open: fsp.open, readFile: fsp.readFile };
  const read: string[] = [];
  fsp.open = (file, ...rest) => (read.push(String(file)), real.open(file, ...rest));
  fsp.readFile = (file, ...rest) => (read.push(String(file)), real.readFile(file, ...rest));
  try {
    return { result: await work(), read };
  } finally {
    Object.assign(fsp, real);
  }
}

describe('folder sync hashing', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docchat-hash-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  async function files(count: number) {
    const contents = new Map<string, string>();
    for (let i = 0; i < count; i++) {
      const text = `# Page ${i}\n${'words '.repeat(i)}`;
      await writeFile(path.join(root, `p${i}.md`), text);
      contents.set(`p${i}.md`, text);
    }
    return contents;
  }

  it('hashes many files in the worker thread to the same SHA-256 as on this thread', async () => {
    const contents = await files(40);
    const scan = await scanFolder({ root, folder: root });
    const { result: inWorker, read: readHere } = await filesReadOnThisThread(() => hashFiles(scan.files));
    assert.deepEqual(readHere, [], 'no file was read on the calling thread');
    const onThread = await filesReadOnThisThread(() => hashFiles(scan.files, { worker: false }));
    assert.equal(onThread.read.length, 40, 'without the worker, every file is read on this thread (what the check above would see)');
    assert.equal(inWorker.hashed.length, 40);
    for (const file of inWorker.hashed) assert.equal(file.hash, sha256(contents.get(file.path)!), file.path);
    assert.deepEqual(
      inWorker.hashed.map((f) => [f.path, f.hash]),
      onThread.result.hashed.map((f) => [f.path, f.hash]),
    );
  });

  it('keeps the recorded hash of a file whose size and mtime are unchanged, and re-hashes a changed one', async () => {
    await files(20);
    const scan = await scanFolder({ root, folder: root });
    const first = await hashFiles(scan.files);
    const recorded = new Map(first.hashed.map((f) => [f.path, { size: f.size, mtimeMs: f.mtimeMs, hash: f.hash }]));
    // A recorded hash that is not the content's: kept only while size and mtime match.
    recorded.set('p1.md', { ...recorded.get('p1.md')!, hash: 'recorded' });
    recorded.set('p2.md', { ...recorded.get('p2.md')!, mtimeMs: 1, hash: 'stale' });
    const again = await hashFiles(scan.files, { cache: (p) => recorded.get(p) });
    const byPath = new Map(again.hashed.map((f) => [f.path, f.hash]));
    assert.equal(byPath.get('p1.md'), 'recorded', 'unchanged stats: the file is not read');
    assert.equal(byPath.get('p2.md'), first.hashed.find((f) => f.path === 'p2.md')!.hash, 'changed stats: re-hashed');
  });

  it('reports a file the worker cannot read and hashes the others', async () => {
    await files(20);
    const scan = await scanFolder({ root, folder: root });
    // Deleted between the listing and the hashing.
    await unlink(path.join(root, 'p3.md'));
    const { result, read } = await filesReadOnThisThread(() => hashFiles(scan.files));
    assert.deepEqual(read, [], 'the worker read them, not the calling thread');
    assert.equal(result.hashed.length, 19);
    assert.deepEqual(
      result.unreadable.map((u) => u.path),
      ['p3.md'],
    );
    assert.match(result.unreadable[0]!.error, /ENOENT/);
  });
});
