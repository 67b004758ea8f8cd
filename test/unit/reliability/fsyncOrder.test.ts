/**
 * A write DocChat acknowledges survives a power loss: beneath the atomic write (journal
 * snapshots, uploaded bytes, converted files) every file-system call is recorded, per path, and a
 * write resolves only after its data reached the disk (fsync of the file it renames into place)
 * and its directory entry did too (fsync of the folder after the rename). Node's own `fs.promises`
 * is wrapped for the test; the files are real, in a temporary folder.
 *
 * Also: the blob and chunk stores never build a path from an id that could leave their folder.
 */
import * as assert from 'node:assert/strict';
import { promises as fsp, mkdtempSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTempFile, removeTempFiles, writeFileAtomic } from '../../../src/backend/persistence/atomicFile';
import { BlobStore, ChunkStore } from '../../../src/backend/documents/disk';

type Step =
  | { op: 'open'; path: string; flags: string }
  | { op: 'write'; path: string }
  | { op: 'sync'; path: string }
  | { op: 'close'; path: string }
  | { op: 'rename'; from: string; to: string };

/**
 * Records every open, write, sync, close and rename made through `fs.promises` until `restore`.
 * `holdDirSync`: a folder's fsync waits for `release` (to see that nothing is acknowledged before).
 */
function recordFs(options: { holdDirSync?: boolean } = {}) {
  const steps: Step[] = [];
  const original = { open: fsp.open, rename: fsp.rename };
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let dirSyncStarted: () => void = () => undefined;
  const dirSyncing = new Promise<void>((resolve) => (dirSyncStarted = resolve));
  fsp.open = async function (file: Parameters<typeof fsp.open>[0], flags?: string | number, mode?: number) {
    const name = String(file);
    const handle = await original.open.call(fsp, file, flags, mode);
    steps.push({ op: 'open', path: name, flags: String(flags ?? 'r') });
    const isDir = (await handle.stat()).isDirectory();
    const wrap = <K extends 'writeFile' | 'write' | 'sync' | 'datasync' | 'close'>(key: K, step: Step['op'], hold = false) => {
      const real = (handle[key] as (...a: unknown[]) => Promise<unknown>).bind(handle);
      (handle as unknown as Record<string, unknown>)[key] = async (...args: unknown[]) => {
        if (hold) {
          dirSyncStarted();
          await held;
        }
        const result = await real(...args);
        steps.push({ op: step, path: name } as Step);
        return result;
      };
    };
    wrap('writeFile', 'write');
    wrap('write', 'write');
    wrap('sync', 'sync', isDir && options.holdDirSync);
    wrap('datasync', 'sync');
    wrap('close', 'close');
    return handle;
  } as typeof fsp.open;
  fsp.rename = async function (from: Parameters<typeof fsp.rename>[0], to: Parameters<typeof fsp.rename>[1]) {
    await original.rename.call(fsp, from, to);
    steps.push({ op: 'rename', from: String(from), to: String(to) });
  } as typeof fsp.rename;
  return {
    steps,
    release: () => release(),
    dirSyncing,
    restore: () => Object.assign(fsp, original),
  };
}

/** The index of the first step matching `match`, or -1. */
const indexOf = (steps: Step[], match: (s: Step) => boolean) => steps.findIndex(match);

/**
 * Asserts the durable order for a write of `target`: data written to a temporary file in the same
 * folder, that file synced, then renamed onto `target`, then the folder synced; returns nothing
 * when it holds, fails naming the missing step otherwise.
 */
function assertDurable(steps: Step[], target: string): void {
  const dir = path.dirname(target);
  const rename = indexOf(steps, (s) => s.op === 'rename' && s.to === target);
  assert.ok(rename >= 0, `renamed into place: ${JSON.stringify(steps)}`);
  const temp = (steps[rename] as { from: string }).from;
  assert.equal(path.dirname(temp), dir, 'the temporary file is in the same folder (a rename across file systems is not atomic)');
  const write = indexOf(steps, (s) => s.op === 'write' && s.path === temp);
  const dataSync = indexOf(steps, (s) => s.op === 'sync' && s.path === temp);
  assert.ok(write >= 0, 'the data was written to the temporary file');
  assert.ok(dataSync > write, `the temporary file was fsynced after its data was written: ${JSON.stringify(steps)}`);
  assert.ok(dataSync < rename, 'and before it was renamed into place');
  const closed = indexOf(steps, (s) => s.op === 'close' && s.path === temp);
  assert.ok(closed > dataSync && closed < rename, `the temporary file was closed before the rename: ${JSON.stringify(steps)}`);
  const dirSync = steps.findIndex((s, i) => i > rename && s.op === 'sync' && s.path === dir);
  assert.ok(dirSync > rename, `the folder was fsynced after the rename: ${JSON.stringify(steps)}`);
}

describe('durability: a write is acknowledged only after its data and its directory entry are synced', () => {
  let dir: string;
  let recorder: ReturnType<typeof recordFs> | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docchat-fsync-'));
  });
  afterEach(() => {
    recorder?.restore();
    recorder = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('writeFileAtomic: write, fsync the file, rename, fsync the folder; the new content is in place', async () => {
    const target = path.join(dir, 'snapshot.json');
    await fsp.writeFile(target, 'old');
    recorder = recordFs();
    await writeFileAtomic(target, '{"new":true}');
    recorder.restore();
    assertDurable(recorder.steps, target);
    assert.equal(readFileSync(target, 'utf8'), '{"new":true}');
    assert.deepEqual(readdirSync(dir), ['snapshot.json'], 'no temporary file is left');
  });

  it('writeFileAtomic resolves only once the folder is synced', async () => {
    const target = path.join(dir, 'blob');
    recorder = recordFs({ holdDirSync: true });
    let acknowledged = false;
    const writing = writeFileAtomic(target, new Uint8Array([1, 2, 3])).then(() => (acknowledged = true));
    const first = await Promise.race([recorder.dirSyncing.then(() => 'folder sync'), writing.then(() => 'acknowledged')]);
    assert.equal(first, 'folder sync', 'the folder sync starts before the write is acknowledged');
    assert.equal(acknowledged, false, 'not acknowledged while the folder sync is under way');
    recorder.release();
    await writing;
    assert.equal(acknowledged, true);
    recorder.restore();
    assertDurable(recorder.steps, target);
  });

  it('an uploaded file (BlobStore) and a converted file (ChunkStore) are written durably', async () => {
    const blobs = new BlobStore(path.join(dir, 'files'));
    const chunks = new ChunkStore(path.join(dir, 'chunks'));
    await blobs.init();
    await chunks.init();
    recorder = recordFs();
    await blobs.write('file-abc123', new Uint8Array([7, 7, 7]));
    await chunks.write('vs_1', 'file-abc123', new Uint8Array(Buffer.from('{"markdown":"# x","chunks":[]}')));
    recorder.restore();
    assertDurable(recorder.steps, path.join(dir, 'files', 'file-abc123'));
    assertDurable(recorder.steps, path.join(dir, 'chunks', 'vs_1', 'file-abc123.json'));
  });

  it('refuses an id that could name a path outside its folder, and writes nothing', async () => {
    const blobs = new BlobStore(path.join(dir, 'files'));
    const chunks = new ChunkStore(path.join(dir, 'chunks'));
    await blobs.init();
    await chunks.init();
    for (const id of ['..', '.', '../escape', 'a/b', 'a\\b', '', 'x\0y', '/etc/passwd']) {
      await assert.rejects(async () => blobs.write(id, new Uint8Array([1])), /Unsafe id/, JSON.stringify(id));
      await assert.rejects(async () => blobs.read(id), /Unsafe id/, JSON.stringify(id));
      await assert.rejects(chunks.write(id, 'file-1', new Uint8Array([1])), /Unsafe id/, JSON.stringify(id));
      await assert.rejects(chunks.write('vs_1', id, new Uint8Array([1])), /Unsafe id/, JSON.stringify(id));
    }
    assert.deepEqual(readdirSync(dir).sort(), ['chunks', 'files']);
    const written = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory());
    assert.deepEqual(
      written.map((e) => e.name),
      [],
      'no file was written',
    );
    assert.ok(!readdirSync(os.tmpdir()).includes('escape'));
  });

  it('a write that cannot be renamed into place fails and leaves no temporary file', async () => {
    const target = path.join(dir, 'taken');
    await fsp.mkdir(path.join(target, 'inside'), { recursive: true });
    await assert.rejects(writeFileAtomic(target, 'data'));
    assert.deepEqual(readdirSync(dir), ['taken']);
  });

  it('on start, the stores remove the temporary files of interrupted writes and nothing else', async () => {
    const files = path.join(dir, 'nested', 'files');
    const blobs = new BlobStore(files);
    await blobs.init();
    for (const name of ['.file-1.a1b2c3.tmp', 'file-1', 'file-2.tmp', '.hidden', 'file-3']) {
      await fsp.writeFile(path.join(files, name), 'x');
    }
    await new BlobStore(files).init();
    assert.deepEqual(readdirSync(files).sort(), ['.hidden', 'file-1', 'file-2.tmp', 'file-3']);
    assert.equal(isTempFile('.snapshot.json.0a1b2c3d4e5f.tmp'), true);
    for (const name of ['snapshot.json', 'x.tmp', '.x', '.tmpx', 'tmp.']) assert.equal(isTempFile(name), false, name);
    await removeTempFiles(path.join(dir, 'missing')); // a folder not made yet: nothing to do
  });
});
