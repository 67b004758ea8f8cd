/**
 * A folder sync's Full/Fast conversion through the sync's own steps (plan → confirm → conversion
 * question → act → records) with a fake `vscode`, against the embedded backend behind a proxy that
 * records each attach request as it reaches the service.
 */
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { DocumentsClient } from '../../../../src/api/documents/client';
import { StateKeys } from '../../../../src/common/constants';
import type { Follow, FollowStore as FollowStoreType } from '../../../../src/features/sync/follows';
import type * as SyncOnce from '../../../../src/features/sync/syncOnce';
import type * as Question from '../../../../src/features/stores/conversionQuestion';
import type { SkipOcrMode } from '../../../../src/services/settingsModel';
import { fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';
import { makePdf } from '../../backend/helpers';
import { recordingAttaches, type RecordingClient, useSyncSuite } from './helpers';

class FakeUri {
  private constructor(private readonly url: string) {}
  static parse(value: string) {
    return new FakeUri(value);
  }
  get fsPath() {
    return fileURLToPath(this.url);
  }
  get path() {
    return new URL(this.url).pathname;
  }
  toString() {
    return this.url;
  }
}

class FakeMemento {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  async update(key: string, value: unknown) {
    this.values.set(key, value);
  }
}

describe('folder sync: Full or Fast conversion through the sync (fake vscode, embedded backend)', function () {
  this.timeout(120_000);
  const suite = useSyncSuite();
  /** The conversion questions shown: their title and the order of their choices. */
  const questions: { title: string; labels: string[] }[] = [];
  /** Their placeholders, in the same order. */
  const placeholders: string[] = [];
  let answer: 'Full conversion' | 'Fast conversion' | undefined;
  /** The plan dialog's answer (undefined: dismissed). */
  let planAnswer: string | undefined;
  /** The status bar messages shown. */
  const statusMessages: string[] = [];
  let mode: SkipOcrMode = 'ask';
  let recorder: RecordingClient;
  let client: DocumentsClient;
  let scope: ReturnType<typeof useFakeVscode>;
  let syncOnce: typeof SyncOnce.syncOnce;
  let askConversion: typeof Question.askConversion;
  let FollowStore: typeof FollowStoreType;
  let storage: string;

  before(async () => {
    recorder = await recordingAttaches(suite.backend.url);
    client = recorder.client;
    scope = useFakeVscode(
      fakeVscodeApi({
        Uri: FakeUri,
        ProgressLocation: { Notification: 15, Window: 10 },
        workspace: { getWorkspaceFolder: () => undefined },
        commands: { executeCommand: async () => undefined },
        window: {
          withProgress: (_options: unknown, task: (progress: unknown, token: unknown) => Promise<unknown>) =>
            task({ report: () => undefined }, { onCancellationRequested: () => ({ dispose: () => undefined }) }),
          // The plan's modal dialog: the user confirms it.
          showInformationMessage: async (_message: string, options?: { modal?: boolean }) => (options?.modal ? planAnswer : undefined),
          setStatusBarMessage: (text: string) => {
            statusMessages.push(text);
            return { dispose: () => undefined };
          },
          showWarningMessage: async () => undefined,
          showQuickPick: async (items: { label: string }[], options: { title: string; placeHolder?: string }) => {
            questions.push({ title: options.title, labels: items.map((i) => i.label) });
            placeholders.push(options.placeHolder ?? '');
            return items.find((i) => i.label === answer);
          },
        },
      }),
    );
    ({ syncOnce } = scope.load<typeof SyncOnce>(require.resolve('../../../../src/features/sync/syncOnce')));
    ({ askConversion } = scope.load<typeof Question>(require.resolve('../../../../src/features/stores/conversionQuestion')));
    ({ FollowStore } = scope.load<typeof import('../../../../src/features/sync/follows')>(
      require.resolve('../../../../src/features/sync/follows'),
    ));
  });
  after(async () => {
    scope.dispose();
    await recorder.close();
  });
  beforeEach(async () => {
    storage = await mkdtemp(path.join(os.tmpdir(), 'docchat-sync-state-'));
    questions.length = 0;
    placeholders.length = 0;
    statusMessages.length = 0;
    planAnswer = 'Sync';
    mode = 'ask';
    answer = undefined;
  });
  afterEach(() => rm(storage, { recursive: true, force: true }));

  /** The sync's context as the controller gives it; `choices` keeps the last answer (attaching's too). */
  function context(choices = new FakeMemento()) {
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => log };
    const follows = new FollowStore(new FakeMemento() as never, storage);
    const services = {
      connection: { documents: client },
      config: {
        current: {
          get attachSkipOcr() {
            return mode;
          },
          documentsUrl: '',
        },
        forFolder: () => ({ exclude: [], removeDeleted: 'ask', watch: false }),
      },
      rateLimits: { until: () => undefined, onDidChange: () => ({ dispose: () => undefined }) },
      log,
      errors: { report: () => undefined },
    };
    const run = {
      services: services as never,
      follows,
      log: log as never,
      aborts: new Map<string, AbortController>(),
      askConversion: () => askConversion(choices as never, true),
      sync: async () => undefined,
    };
    return { run, follows, choices };
  }

  async function newFollow(follows: FollowStoreType, name: string, extra: Partial<Follow> = {}): Promise<Follow> {
    const store = await client.createVectorStore({ name });
    const folderUri = pathToFileURL(suite.root).toString();
    const follow: Follow = {
      id: FollowStore.idFor(folderUri, store.id),
      rootUri: folderUri,
      folderUri,
      relativeFolder: '',
      storeId: store.id,
      storeName: name,
      confirmed: false,
      ...extra,
    };
    await follows.save(follow);
    return follow;
  }

  /** The store's files by synced path, with what their attach request asked about OCR. */
  async function skipOcrByPath(storeId: string): Promise<Record<string, unknown>> {
    const files = await client.listVectorStoreFiles(storeId, { limit: 100 });
    return Object.fromEntries(files.data.map((f) => [String(f.metadata?.docchat_path), recorder.attaches.get(f.id)?.skip_ocr ?? 'absent']));
  }

  it('asks once when the user syncs a folder with PDFs, sends skip_ocr as answered, and a re-sync on save reuses the answer without asking', async () => {
    await suite.tree({ 'scan.pdf': makePdf([{ image: true }]), 'notes.md': '# Notes' });
    const { run, follows, choices } = context();
    const follow = await newFollow(follows, 'fast');
    answer = 'Fast conversion';
    await syncOnce(run, follow, { interactive: true });
    assert.deepEqual(questions, [{ title: 'DocChat: how should the files be converted?', labels: ['Full conversion', 'Fast conversion'] }]);
    assert.match(
      placeholders[0]!,
      /folder keeps your answer for its later syncs and re-syncs on save/,
      'the question says the answer is kept',
    );
    assert.deepEqual(await skipOcrByPath(follow.storeId), { 'scan.pdf': true, 'notes.md': true });
    const saved = follows.get(follow.id)!;
    assert.equal(saved.skipOcr, true, 'the follow keeps the answer');
    assert.equal(saved.confirmed, true);
    assert.equal(choices.get(StateKeys.lastSkipOcr), true, 'the answer is the next question’s default, as attaching’s is');

    // A saved file: the watcher's re-sync (not started by the user) converts the same way, unasked.
    await suite.tree({ 'more.pdf': makePdf([{ lines: ['More text'] }]) });
    answer = undefined;
    await syncOnce(run, follows.get(follow.id)!, { interactive: false });
    // So does "Sync Now".
    await suite.tree({ 'last.pdf': makePdf([{ lines: ['Last text'] }]) });
    await syncOnce(run, follows.get(follow.id)!, { interactive: true });
    assert.equal(questions.length, 1, 'asked once, when the folder was synced');
    const sent = await skipOcrByPath(follow.storeId);
    assert.equal(sent['more.pdf'], true);
    assert.equal(sent['last.pdf'], true);
  });

  it('offers the last answer first, and stops the sync when the question is dismissed', async () => {
    await suite.tree({ 'report.pdf': makePdf([{ lines: ['Quarterly report'] }]) });
    const choices = new FakeMemento();
    await choices.update(StateKeys.lastSkipOcr, true);
    const { run, follows } = context(choices);
    const follow = await newFollow(follows, 'dismissed');
    await syncOnce(run, follow, { interactive: true });
    assert.deepEqual(questions[0]?.labels, ['Fast conversion', 'Full conversion']);
    assert.deepEqual(await skipOcrByPath(follow.storeId), {}, 'nothing was sent');
    assert.equal(follows.get(follow.id)!.confirmed, false, 'the folder is not followed as confirmed');
    assert.deepEqual(
      statusMessages,
      [`DocChat: sync of "${path.basename(suite.root)}" cancelled; nothing was synced.`],
      'the stop is not silent',
    );
  });

  it('says so in the status bar, as a dismissed conversion question does, when the plan is dismissed', async () => {
    await suite.tree({ 'report.pdf': makePdf([{ lines: ['Quarterly report'] }]) });
    planAnswer = undefined;
    const { run, follows } = context();
    const follow = await newFollow(follows, 'plan-dismissed');
    await syncOnce(run, follow, { interactive: true });
    assert.equal(questions.length, 0, 'no conversion question after a dismissed plan');
    assert.deepEqual(await skipOcrByPath(follow.storeId), {}, 'nothing was sent');
    assert.deepEqual(statusMessages, [`DocChat: sync of "${path.basename(suite.root)}" cancelled; nothing was synced.`]);
  });

  it('converts a followed folder that was never asked fully in a background re-sync, without asking', async () => {
    await suite.tree({ 'report.pdf': makePdf([{ lines: ['Quarterly report'] }]) });
    const { run, follows } = context();
    const follow = await newFollow(follows, 'before', { confirmed: true });
    await syncOnce(run, follow, { interactive: false });
    assert.equal(questions.length, 0);
    assert.deepEqual(await skipOcrByPath(follow.storeId), { 'report.pdf': 'absent' }, 'full conversion, as before');
  });

  it('lets "Always skip" decide without asking', async () => {
    await suite.tree({ 'report.pdf': makePdf([{ lines: ['Quarterly report'] }]) });
    mode = 'always';
    const { run, follows } = context();
    const follow = await newFollow(follows, 'always');
    await syncOnce(run, follow, { interactive: true });
    assert.equal(questions.length, 0);
    assert.deepEqual(await skipOcrByPath(follow.storeId), { 'report.pdf': true });
    assert.equal(follows.get(follow.id)!.skipOcr, undefined, 'the setting, not an answer: nothing to remember');
  });
});
