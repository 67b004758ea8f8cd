/**
 * The journal keeps every acknowledged write and nothing else: loading cuts the journal at the
 * first line that is not one the journal wrote (a damaged separator, a line without its sequence
 * number), skips what the snapshot already holds and numbers new entries after the highest one
 * kept; a snapshot or journal that cannot be read stops the backend instead of starting it empty;
 * a failed write stops every later write; closing writes what is pending and lets the file go.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { Journal } from '../../../../src/backend/persistence/journal';
import { tempDir } from '../helpers';

interface Entry {
  op: string;
  n: number;
  seq?: number;
}

/** One journal line as the journal writes it (`crc32 json\n`), for any JSON. */
function line(value: unknown): string {
  const json = JSON.stringify(value);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

const open = (dir: string, state: () => unknown = () => null) => Journal.open<unknown, Entry>(dir, state);

async function reopened(dir: string): Promise<{ seqs: (number | undefined)[]; ns: number[]; truncatedBytes: number }> {
  const { journal, loaded } = await open(dir);
  await journal.close();
  return { seqs: loaded.entries.map((e) => e.seq), ns: loaded.entries.map((e) => e.n), truncatedBytes: loaded.truncatedBytes };
}

describe('backend: journal (what a restart keeps)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir('docchat-journal-');
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  const journalFile = () => path.join(dir, 'journal.log');

  it('cuts the journal at a line whose separator is damaged, and says how much it cut', async () => {
    await fs.writeFile(journalFile(), line({ op: 'a', n: 1, seq: 1 }) + line({ op: 'a', n: 2, seq: 2 }));
    const damaged = line({ op: 'a', n: 3, seq: 3 });
    await fs.appendFile(journalFile(), `${damaged.slice(0, 8)}X${damaged.slice(9)}`);
    const loaded = await reopened(dir);
    assert.deepEqual(loaded.ns, [1, 2]);
    assert.equal(loaded.truncatedBytes, Buffer.byteLength(damaged));
    assert.equal((await fs.stat(journalFile())).size, Buffer.byteLength(line({ op: 'a', n: 1, seq: 1 }) + line({ op: 'a', n: 2, seq: 2 })));
  });

  it('cuts the journal at a checksummed line that has no sequence number (it never wrote one)', async () => {
    const kept = line({ op: 'a', n: 1, seq: 1 });
    const cut = line({ op: 'a', n: 2 }) + line({ op: 'a', n: 3, seq: 2 });
    await fs.writeFile(journalFile(), kept + cut);
    const loaded = await reopened(dir);
    assert.deepEqual(loaded.ns, [1]);
    assert.equal(loaded.truncatedBytes, Buffer.byteLength(cut));
  });

  it('after a crash between snapshot and truncation, replays only what the snapshot lacks and numbers on from the highest', async () => {
    await fs.writeFile(path.join(dir, 'snapshot.json'), JSON.stringify({ format: 1, seq: 3, state: ['1', '2', '3'] }));
    await fs.writeFile(journalFile(), [1, 2, 3, 4, 5].map((n) => line({ op: 'a', n, seq: n })).join(''));
    const { journal, loaded } = await open(dir);
    assert.deepEqual(loaded.snapshot, ['1', '2', '3']);
    assert.deepEqual(
      loaded.entries.map((e) => e.seq),
      [4, 5],
    );
    await journal.append({ op: 'a', n: 6 });
    await journal.close();
    assert.deepEqual((await reopened(dir)).seqs, [4, 5, 6]);
  });

  it('refuses to start from a snapshot it cannot read, naming it, instead of starting without it', async () => {
    const snapshot = path.join(dir, 'snapshot.json');
    await fs.writeFile(snapshot, '{"format":1,"seq":3,"sta');
    await assert.rejects(open(dir), (error: Error) => {
      assert.match(error.message, /^The data folder's snapshot (.+) cannot be read: /);
      assert.ok(error.message.includes(snapshot), error.message);
      return true;
    });
  });

  it('refuses to start from a journal it cannot read instead of starting empty', async () => {
    // Past what one read can hold (a sparse file: no disk is used).
    await fs.writeFile(journalFile(), line({ op: 'a', n: 1, seq: 1 }));
    await fs.truncate(journalFile(), 2 ** 31 + 1);
    await assert.rejects(open(dir), { code: 'ERR_FS_FILE_TOO_LARGE' });
    assert.equal((await fs.stat(journalFile())).size, 2 ** 31 + 1, 'the journal is left as it was');
  });

  it('after a failed write, refuses every later write with the reason, even once the disk works again', async () => {
    const { journal } = await open(dir);
    await journal.append({ op: 'a', n: 1 });
    const probe = await fs.open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const datasync = proto.datasync;
    proto.datasync = async () => {
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    };
    try {
      await assert.rejects(journal.append({ op: 'a', n: 2 }), {
        message: 'The data folder can no longer be written: EIO: i/o error, fdatasync',
      });
    } finally {
      proto.datasync = datasync;
    }
    await assert.rejects(journal.append({ op: 'a', n: 3 }), {
      message: 'The data folder can no longer be written: EIO: i/o error, fdatasync',
    });
    await journal.close();
    assert.ok(!(await reopened(dir)).ns.includes(3), 'nothing is written after the failure');
  });

  it('writes what is pending before it closes', async () => {
    const { journal } = await open(dir);
    const appended = journal.append({ op: 'a', n: 1 });
    await journal.close();
    await appended;
    assert.deepEqual((await reopened(dir)).ns, [1]);
  });

  it('takes no more writes once closed: its file is let go', async () => {
    const { journal } = await open(dir);
    await journal.append({ op: 'a', n: 1 });
    await journal.close();
    await assert.rejects(journal.append({ op: 'a', n: 2 }));
    assert.deepEqual((await reopened(dir)).ns, [1]);
  });
});
