/**
 * How a folder sync converts its uploads: `docchat.attach.skipOcr` as attaching applies it, asked
 * once by a sync the user started and remembered for the folder's later (background) syncs.
 */
import * as assert from 'node:assert/strict';
import path from 'node:path';
import type { DocumentsClient } from '../../../../src/api/documents/client';
import { chooseSyncConversion, uploadedPaths } from '../../../../src/features/sync/conversion';
import type { Follow } from '../../../../src/features/sync/follows';
import { SyncJournal } from '../../../../src/features/sync/journal';
import { planSync, type SyncPlan } from '../../../../src/features/sync/planner';
import { runSync } from '../../../../src/features/sync/runner';
import type { SkipOcrMode } from '../../../../src/services/settingsModel';
import { FakeClock } from '../../api/helpers';
import { makePdf } from '../../backend/helpers';
import { planFor, recordingAttaches, type RecordingClient, useSyncSuite } from './helpers';

const follow: Follow = {
  id: 'f1',
  rootUri: 'file:///w',
  folderUri: 'file:///w',
  relativeFolder: '',
  storeId: 'vs_1',
  storeName: 'docs',
  confirmed: true,
};
const local = (p: string) => ({ path: p, hash: `h-${p}`, size: 10 });
const withPdf = planSync([local('a.md'), local('scans/b.pdf')], []);
const textOnly = planSync([local('a.md'), local('c.txt')], []);

/** Runs the choice with a question that records how often it was asked and answers `answer`. */
async function choose(o: { mode?: SkipOcrMode; follow?: Follow; plan?: SyncPlan; interactive: boolean; answer?: boolean }) {
  let asked = 0;
  const result = await chooseSyncConversion({
    mode: o.mode ?? 'ask',
    follow: o.follow ?? follow,
    plan: o.plan ?? withPdf,
    interactive: o.interactive,
    ask: async () => {
      asked++;
      return o.answer;
    },
  });
  return { result, asked };
}

describe('folder sync: full or fast conversion', () => {
  it('asks once when the user syncs files that may need OCR, and remembers the answer with the folder', async () => {
    const { result, asked } = await choose({ interactive: true, answer: true });
    assert.equal(asked, 1);
    assert.equal(result?.skipOcr, true);
    assert.equal(result?.follow.skipOcr, true, 'the follow record keeps the answer');
    assert.equal(result?.follow.id, follow.id);

    const full = await choose({ interactive: true, answer: false });
    assert.deepEqual([full.asked, full.result?.skipOcr, full.result?.follow.skipOcr], [1, false, false]);
  });

  it('stops the sync when the question is dismissed', async () => {
    const { result, asked } = await choose({ interactive: true, answer: undefined });
    assert.equal(asked, 1);
    assert.equal(result, undefined);
  });

  it('uses the folder’s remembered answer without asking, for the user’s syncs and for background re-syncs', async () => {
    for (const interactive of [true, false]) {
      const fast = await choose({ follow: { ...follow, skipOcr: true }, interactive });
      assert.deepEqual([fast.asked, fast.result?.skipOcr], [0, true], `interactive: ${interactive}`);
      const full = await choose({ follow: { ...follow, skipOcr: false }, interactive });
      assert.deepEqual([full.asked, full.result?.skipOcr], [0, false], `interactive: ${interactive}`);
    }
  });

  it('never asks from a background re-sync: a folder never asked converts fully, as it did', async () => {
    const { result, asked } = await choose({ interactive: false, answer: true });
    assert.equal(asked, 0);
    assert.equal(result?.skipOcr, false);
    assert.equal(result?.follow, follow, 'nothing is remembered for it');
  });

  it('does not ask when no upload may need OCR', async () => {
    const { result, asked } = await choose({ plan: textOnly, interactive: true, answer: true });
    assert.deepEqual([asked, result?.skipOcr], [0, false]);
    assert.equal(result?.follow.skipOcr, undefined, 'nothing is remembered: a later PDF still asks');
  });

  it('lets "Always skip" and "Never skip" decide alone, over a remembered answer', async () => {
    const always = await choose({ mode: 'always', follow: { ...follow, skipOcr: false }, interactive: true, answer: false });
    assert.deepEqual([always.asked, always.result?.skipOcr], [0, true]);
    const never = await choose({ mode: 'never', follow: { ...follow, skipOcr: true }, interactive: false });
    assert.deepEqual([never.asked, never.result?.skipOcr], [0, false]);
    assert.equal(never.result?.follow.skipOcr, true, 'the setting does not overwrite the folder’s answer');
  });

  it('counts new files and new versions as uploads, not a version the store already holds', () => {
    const plan: SyncPlan = {
      ...planSync([local('a.md')], []),
      replace: [
        { local: local('changed.pdf'), old: [] },
        { local: local('held.pdf'), old: [], current: { fileId: 'f', pathKey: 'held.pdf', hash: 'x', status: 'completed' } as never },
      ],
    };
    assert.deepEqual(uploadedPaths(plan), ['a.md', 'changed.pdf']);
  });
});

describe('folder sync: the attach requests carry the conversion chosen (embedded backend)', function () {
  this.timeout(60_000);
  const suite = useSyncSuite();
  /** The backend behind a proxy that records the attach requests. */
  let recorder: RecordingClient;
  let client: DocumentsClient;
  before(async () => {
    recorder = await recordingAttaches(suite.backend.url);
    client = recorder.client;
  });
  after(async () => {
    await recorder.close();
  });

  /** What the attach request of the file asked about OCR (`skip_ocr`, absent: the service's full conversion). */
  const skipOcrOf = (fileId: string | undefined) => recorder.attaches.get(fileId!)?.skip_ocr;

  /** Plans, chooses the conversion as the sync does, and runs the plan; the files' ids by path. */
  async function syncWith(current: Follow, storeId: string, interactive: boolean, ask: () => Promise<boolean | undefined>) {
    const { root, journalDir } = suite;
    const { plan, attachedIds } = await planFor(client, storeId, root);
    const choice = await chooseSyncConversion({ mode: 'ask', follow: current, plan, interactive, ask });
    assert.ok(choice, 'the sync goes ahead');
    const journal = new SyncJournal(path.join(journalDir, `j-${Date.now()}.jsonl`));
    const clock = new FakeClock();
    await journal.start(storeId, clock.now());
    const ids = new Map<string, string>();
    const summary = await runSync(
      {
        client,
        storeId,
        root,
        journal,
        plan,
        removeDeleted: false,
        limits: false,
        clock,
        skipOcr: choice.skipOcr,
        onOutcome: (o) => {
          if ('fileId' in o && o.fileId) ids.set(o.path, o.fileId);
        },
      },
      undefined,
      attachedIds,
    );
    await journal.finish();
    return { summary, ids, follow: choice.follow };
  }

  it('sends skip_ocr as the user answered, and a later background re-sync sends it again without asking', async () => {
    const { backend, tree } = suite;
    await tree({ 'scan.pdf': makePdf([{ image: true }]), 'notes.md': '# Notes' });
    const store = await backend.client.createVectorStore({ name: 'fast' });
    let asked = 0;
    const first = await syncWith({ ...follow, storeId: store.id }, store.id, true, async () => {
      asked++;
      return true;
    });
    assert.equal(asked, 1);
    assert.equal(skipOcrOf(first.ids.get('scan.pdf')), true);
    assert.equal(skipOcrOf(first.ids.get('notes.md')), true);
    // Fast conversion skipped OCR: the scan has no text without it.
    assert.deepEqual(
      first.summary.failed.map((f) => f.path),
      ['scan.pdf'],
    );
    assert.match(first.summary.failed[0]!.error, /OCR was skipped/);

    // A file saved into the followed folder: the watcher's re-sync reuses the answer.
    await tree({ 'more.pdf': makePdf([{ lines: ['More text'] }]) });
    const second = await syncWith(first.follow, store.id, false, () => Promise.reject(new Error('a background re-sync asked')));
    assert.equal(skipOcrOf(second.ids.get('more.pdf')), true);
  });

  it('sends full conversion when the user chose it', async () => {
    const { backend, tree } = suite;
    await tree({ 'report.pdf': makePdf([{ lines: ['Quarterly report'] }]) });
    const store = await backend.client.createVectorStore({ name: 'full' });
    const run = await syncWith({ ...follow, storeId: store.id }, store.id, true, async () => false);
    assert.deepEqual(run.summary.failed, []);
    assert.ok(run.ids.has('report.pdf'));
    assert.equal(skipOcrOf(run.ids.get('report.pdf')), undefined, 'no skip_ocr: the service converts fully');
    assert.equal(run.follow.skipOcr, false);
  });
});
