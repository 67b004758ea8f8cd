/**
 * The time left while a folder sync waits for conversion: it comes from conversions seen to finish,
 * not from how long sending took. A fake service converts on the test's virtual clock.
 */
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SyncJournal } from '../../../../src/features/sync/journal';
import { planSync } from '../../../../src/features/sync/planner';
import { runSync, type SyncClient, type SyncProgress } from '../../../../src/features/sync/runner';
import { progressMessage } from '../../../../src/features/sync/syncMessages';
import { FakeClock } from '../../api/helpers';

/** A service that takes `sendMs` per upload and finishes converting file i (`doc{i}.pdf`) at `finishAt(i)` ms after the first attach. */
function convertingService(clock: FakeClock, finishAt: (i: number) => number | undefined, sendMs = 90) {
  const files: { id: string; done?: number }[] = [];
  let first: number | undefined;
  const client = {
    uploadFile: async (file: { filename: string }) => {
      clock.time += sendMs;
      return { id: `file-${file.filename}`, object: 'file' };
    },
    attachFile: async (_store: string, body: { file_id: string }) => {
      first ??= clock.now();
      const at = finishAt(Number(/doc(\d+)\.pdf$/.exec(body.file_id)![1]));
      files.push({ id: body.file_id, ...(at === undefined ? {} : { done: first + at }) });
      return { id: body.file_id, status: 'in_progress' };
    },
    listVectorStoreFiles: async () => ({
      data: files.map((f) => ({
        id: f.id,
        status: f.done !== undefined && clock.now() >= f.done ? 'completed' : 'in_progress',
        last_error: null,
      })),
      hasMore: false,
    }),
  } as unknown as SyncClient;
  return { client, firstAttach: () => first! };
}

describe('folder sync: time left while converting', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docchat-eta-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Syncs `count` files (of `sizeOf(i)` bytes, 6 unless told) that finish converting at `finishAt(i)`. */
  async function sync(count: number, finishAt: (i: number) => number | undefined, sizeOf: (i: number) => number = () => 6) {
    const clock = new FakeClock();
    const locals = [];
    for (let i = 0; i < count; i++) {
      await writeFile(path.join(root, `doc${i}.pdf`), `%PDF ${i}`);
      locals.push({ path: `doc${i}.pdf`, hash: `h${i}`, size: sizeOf(i) });
    }
    const journal = new SyncJournal(path.join(root, 'journal.jsonl'));
    await journal.start('vs_1', clock.now());
    const service = convertingService(clock, finishAt);
    const progress: (SyncProgress & { at: number })[] = [];
    const summary = await runSync({
      client: service.client,
      storeId: 'vs_1',
      root,
      journal,
      plan: planSync(locals, []),
      removeDeleted: false,
      limits: false,
      clock,
      onProgress: (p) => progress.push({ ...p, at: clock.now() }),
    });
    await journal.finish();
    assert.deepEqual(summary.failed, []);
    return { progress, firstAttach: service.firstAttach() };
  }

  it('tells no time until two files have converted, then a time that counts down while the pace holds', async () => {
    // 10 files sent in 0.9 s, then one converts every 4.5 s: a steady pace, done 45 s after the first attach.
    const { progress, firstAttach } = await sync(10, (i) => (i + 1) * 4_500);
    assert.equal(progress[0]!.etaSeconds, undefined, 'nothing sent yet: no evidence for a time');
    assert.equal(progressMessage(progress[0]!), '0 of 10');

    const converting = progress.filter((p) => p.phase === 'converting');
    const start = converting[0]!.at;
    const before = converting.filter((p) => p.at < firstAttach + 9_000);
    assert.ok(before.length >= 3, `${before.length} reports before the first file converted`);
    for (const p of before) {
      assert.equal(p.etaSeconds, undefined, `at ${p.at - start} ms, with under two files converted, the estimate was ${p.etaSeconds} s`);
      assert.equal(progressMessage(p), `10 of 10 sent · converting ${p.converting} ${p.converting === 1 ? 'file' : 'files'}…`);
    }

    const timed = converting.filter((p) => p.etaSeconds !== undefined);
    assert.ok(timed.length >= 3, `${timed.length} reports with a time`);
    for (let k = 1; k < timed.length; k++) {
      const [a, b] = [timed[k - 1]!, timed[k]!];
      assert.ok(b.etaSeconds! <= a.etaSeconds!, `the estimate grew from ${a.etaSeconds} s to ${b.etaSeconds} s`);
    }
    // Plausible: within a poll interval (10 s) of the true time left.
    const end = firstAttach + 45_000;
    for (const p of timed) {
      assert.ok(
        Math.abs(p.etaSeconds! - (end - p.at) / 1000) <= 10,
        `at ${p.at - start} ms: ${p.etaSeconds} s for ${(end - p.at) / 1000} s`,
      );
    }
    assert.match(progressMessage(timed[0]!), /^10 of 10 sent · converting \d files? · about \d+ s left$/);
  });

  it('in the pattern of a mixed folder (a slow first file, then a burst) tells no time first, then one that never grows', async () => {
    // As a folder of PDFs, office files and a scan converts: the first file after 24 s, five more
    // by 33 s, the last four by 44.5 s.
    const finish = (i: number) => (i === 0 ? 24_000 : i <= 5 ? 27_000 + (i - 1) * 1_500 : 37_000 + (i - 6) * 2_500);
    const { progress, firstAttach } = await sync(10, finish);
    const converting = progress.filter((p) => p.phase === 'converting');
    for (const p of converting.filter((p) => p.at < firstAttach + 24_000)) {
      assert.equal(p.etaSeconds, undefined, `at ${p.at - firstAttach} ms, with nothing converted, the estimate was ${p.etaSeconds} s`);
    }
    const timed = converting.filter((p) => p.etaSeconds !== undefined);
    assert.ok(timed.length > 0, 'a time once files convert');
    // Plausible: within the longest time between two looks (10 s) of the true time left.
    for (const p of timed) {
      const truth = (firstAttach + finish(9) - p.at) / 1000;
      assert.ok(Math.abs(p.etaSeconds! - truth) <= 10, `at ${p.at - firstAttach} ms: ${p.etaSeconds} s for ${truth} s`);
    }
    for (let k = 1; k < timed.length; k++) {
      const [a, b] = [timed[k - 1]!, timed[k]!];
      assert.ok(b.etaSeconds! <= a.etaSeconds!, `the estimate grew from ${a.etaSeconds} s to ${b.etaSeconds} s`);
    }
  });

  it('tells no time from the pace of small files while larger ones convert', async () => {
    // Two 20 KB notes convert within 3 s, six 1 MB scans after 30–55 s.
    const finish = (i: number) => (i < 2 ? 2_000 + i * 1_000 : 30_000 + (i - 2) * 5_000);
    const { progress, firstAttach } = await sync(8, finish, (i) => (i < 2 ? 20_000 : 1_000_000));
    const converting = progress.filter((p) => p.phase === 'converting');
    const early = converting.filter((p) => p.at > firstAttach + 3_000 && p.at < firstAttach + 30_000);
    assert.ok(early.length >= 10, `${early.length} reports while the scans converted`);
    for (const p of early) {
      assert.equal(p.etaSeconds, undefined, `at ${p.at - firstAttach} ms, from the notes' pace alone, ${p.etaSeconds} s was told`);
    }
    assert.ok(
      converting.some((p) => p.etaSeconds !== undefined),
      'a time once a scan converted',
    );
  });

  it('withdraws the time when conversion stalls instead of letting it grow', async () => {
    // Two files convert at a pace of one per 10 s, the third takes far longer than that pace promised.
    const { progress } = await sync(3, (i) => (i < 2 ? (i + 1) * 10_000 : 300_000));
    const converting = progress.filter((p) => p.phase === 'converting');
    // From the first time told on, while the third file converts.
    const stalled = converting.slice(
      Math.max(
        0,
        converting.findIndex((p) => p.etaSeconds !== undefined),
      ),
    );
    assert.ok(stalled.length >= 5, `${stalled.length} reports while the last file converted`);
    assert.ok(
      stalled.some((p) => p.etaSeconds !== undefined),
      'a time once two files had converted',
    );
    const last = stalled.at(-1)!;
    assert.equal(last.etaSeconds, undefined, 'long past the estimate, no time is promised');
    assert.equal(progressMessage(last), '3 of 3 sent · converting 1 file…');
    for (let k = 1; k < stalled.length; k++) {
      const [a, b] = [stalled[k - 1]!.etaSeconds, stalled[k]!.etaSeconds];
      if (a !== undefined && b !== undefined) assert.ok(b <= a, `grew from ${a} s to ${b} s with nothing converted`);
      if (a === undefined) assert.equal(b, undefined, 'no time reappears while nothing converts');
    }
  });
});
