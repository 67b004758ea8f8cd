/**
 * Acts on a sync plan: uploads and attaches new files, attaches a changed file's new version before
 * removing the old one, renames by metadata, removes deleted files. Each request is announced in the
 * journal first; an unfinished journal is consulted (with the store's and the files' listings)
 * before anything the server may already have done is repeated. Plain TypeScript (no `vscode`).
 */
import * as l10n from '@vscode/l10n';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DocumentsClient } from '../../api/documents/client';
import type { FileObject, VectorStoreFile } from '../../api/documents/schemas';
import { type Clock, systemClock } from '../../api/http/clock';
import { ConversionEstimate, estimateSeconds, type RemainingOps } from './eta';
import { entryKey, type SyncJournal, type Unfinished } from './journal';
import type { LocalFile, RemoteFile, SyncPlan } from './planner';
import { mapLimit } from './scanner';
import { syncMetadata } from './syncMetadata';

export type SyncClient = Pick<
  DocumentsClient,
  | 'uploadFile'
  | 'attachFile'
  | 'deleteVectorStoreFile'
  | 'deleteFile'
  | 'updateVectorStoreFileMetadata'
  | 'listVectorStoreFiles'
  | 'listFiles'
>;

export interface SyncProgress {
  done: number;
  total: number;
  current?: string;
  phase: 'sending' | 'converting';
  /** Files still converting (phase 'converting'). */
  converting?: number;
  /** Seconds left; absent while nothing observed yet supports an estimate. */
  etaSeconds?: number;
  /** Requests wait for the service's rate limit of this operation (`perMinute` when known). */
  waiting?: { operation: string; perMinute?: number };
}

/** The waits on the service's rate limit the client reports: its own limiter's and the server's 429 answers. */
export interface RateWaits {
  /** When the running wait of one operation ends (on the run's clock), if it waits. */
  until(operation: string): number | undefined;
  /** Told when a wait starts. */
  onDidChange(listener: () => void): { dispose(): void };
}

export type FileOutcome =
  | { path: string; status: 'synced'; fileId: string; hash: string }
  | { path: string; status: 'converting'; fileId: string; hash: string }
  | { path: string; status: 'failed'; hash: string; fileId?: string; error: string }
  | { path: string; status: 'removed'; fileId: string };

export interface RunOptions {
  client: SyncClient;
  storeId: string;
  /** Absolute path of the workspace folder the plan's paths are relative to. */
  root: string;
  journal: SyncJournal;
  plan: SyncPlan;
  removeDeleted: boolean;
  /** Skip OCR and table recognition: the attach requests say so (without it the service converts fully, its default). */
  skipOcr?: boolean;
  /** Requests in flight at once; the client's rate limits space them out. */
  concurrency?: number;
  /** The client's per-minute limits, for the estimate; `false` when off. */
  limits: Readonly<Record<string, number | undefined>> | false;
  /** Wait for conversion (and only then remove replaced versions). Default true. */
  waitForConversion?: boolean;
  signal?: AbortSignal;
  clock?: Clock;
  /** Waits on the rate limit, so the estimate includes them and the progress says so. */
  rateWaits?: RateWaits;
  onProgress?(progress: SyncProgress): void;
  onOutcome?(outcome: FileOutcome): void;
  log?(message: string): void;
}

export interface RunSummary {
  uploaded: number;
  attached: number;
  renamed: number;
  removed: number;
  failed: { path: string; error: string }[];
  /** Files found on the server from an interrupted sync instead of being sent again. */
  recovered: number;
}

/** Every store file, in one request per 10,000. */
export async function listStoreFiles(
  client: Pick<SyncClient, 'listVectorStoreFiles'>,
  storeId: string,
  signal?: AbortSignal,
): Promise<VectorStoreFile[]> {
  const all: VectorStoreFile[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.listVectorStoreFiles(storeId, { limit: 10_000, ...(after ? { after } : {}) }, { signal });
    all.push(...page.data);
    if (!page.hasMore || !page.lastId || page.lastId === after) return all;
    after = page.lastId;
  }
}

async function listAllFiles(client: Pick<SyncClient, 'listFiles'>, signal?: AbortSignal): Promise<FileObject[]> {
  const all: FileObject[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.listFiles({ limit: 10_000, ...(after ? { after } : {}) }, { signal });
    all.push(...page.data);
    if (!page.hasMore || !page.lastId || page.lastId === after) return all;
    after = page.lastId;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runSync(o: RunOptions, unfinished?: Unfinished, attachedIds: ReadonlySet<string> = new Set()): Promise<RunSummary> {
  const clock = o.clock ?? systemClock;
  const started = clock.now();
  const summary: RunSummary = { uploaded: 0, attached: 0, renamed: 0, removed: 0, failed: [], recovered: 0 };
  const { plan, client, storeId, journal, signal } = o;
  const sends: { local: LocalFile; replaces: RemoteFile[]; current?: RemoteFile }[] = [
    ...plan.upload.map((local) => ({ local, replaces: [] })),
    ...plan.replace.map((r) => ({ local: r.local, replaces: r.old, current: r.current })),
  ];
  const removals = o.removeDeleted ? plan.remove : [];
  const total = sends.length + plan.rename.length + removals.length;
  const remaining: Required<RemainingOps> = {
    uploadFile: sends.filter((s) => !s.current).length,
    attachFile: sends.filter((s) => !s.current).length,
    deleteVectorStoreFile: removals.length + sends.reduce((n, s) => n + s.replaces.length, 0),
    deleteFile: removals.length + sends.reduce((n, s) => n + s.replaces.length, 0),
    updateVectorStoreFileMetadata: plan.rename.length,
  };
  const totals: RemainingOps = { ...remaining };
  let done = 0;
  /** The longest running wait of an operation this sync still has requests of. */
  const rateWait = (): { operation: string; ms: number } | undefined => {
    let longest: { operation: string; ms: number } | undefined;
    for (const [operation, count] of Object.entries(remaining)) {
      const until = count > 0 ? o.rateWaits?.until(operation) : undefined;
      const ms = until === undefined ? 0 : until - clock.now();
      if (ms > 0 && (!longest || ms > longest.ms)) longest = { operation, ms };
    }
    return longest;
  };
  const report = (current?: string) => {
    const wait = rateWait();
    const perMinute = wait && o.limits ? o.limits[wait.operation] : undefined;
    const eta = estimateSeconds({
      remaining,
      limits: o.limits,
      doneItems: done,
      remainingItems: total - done,
      elapsedMs: clock.now() - started,
      rateWaitMs: wait?.ms,
      totals,
    });
    o.onProgress?.({
      done,
      total,
      current: wait ? undefined : current,
      phase: 'sending',
      // Before anything was done only the rate limits can tell a time.
      ...(done > 0 || eta > 0 ? { etaSeconds: eta } : {}),
      ...(wait ? { waiting: { operation: wait.operation, ...(perMinute ? { perMinute } : {}) } } : {}),
    });
  };
  report();

  // While requests wait for the rate limit, the estimate counts down once a second.
  const ticks = new AbortController();
  let ticking = false;
  const tick = async () => {
    if (ticking) return;
    ticking = true;
    try {
      for (let wait = rateWait(); wait && !ticks.signal.aborted; wait = rateWait()) {
        report();
        await clock.sleep(Math.min(1_000, wait.ms), ticks.signal);
      }
      if (!ticks.signal.aborted) report();
    } catch {
      // The sync ended.
    } finally {
      ticking = false;
    }
  };
  const waitListener = o.rateWaits?.onDidChange(() => void tick());

  // Upload requests of an interrupted sync whose answer was lost: find what the server created.
  let orphans: FileObject[] | undefined;
  const findUploaded = async (entry: { name: string; size: number; at: number }): Promise<string | undefined> => {
    orphans ??= await listAllFiles(client, signal);
    const match = orphans.find(
      (f) =>
        f.filename === entry.name &&
        (f.bytes ?? entry.size) === entry.size &&
        (f.created_at === undefined || f.created_at >= Math.floor(entry.at / 1000) - 5) &&
        !attachedIds.has(f.id),
    );
    if (match) orphans = orphans.filter((f) => f !== match);
    return match?.id;
  };

  /** Attached new versions, by file id, with the old versions they replace. */
  const sent: { local: LocalFile; fileId: string; replaces: RemoteFile[] }[] = [];
  /** When the first file of this sync was attached: its conversion began then. */
  let conversionStarted: number | undefined;

  const removeFile = async (fileId: string) => {
    await journal.append({ t: 'remove', fileId });
    try {
      await client.deleteVectorStoreFile(storeId, fileId, { signal });
    } catch (error) {
      // Gone already; or refused ("deleted": false): it stays attached and the next sync tries again.
      if (/did not delete/.test(message(error))) o.log?.(`The service kept ${fileId} in the store: ${message(error)}`);
      else if (!/not found|404/i.test(message(error))) throw error;
    }
    remaining.deleteVectorStoreFile--;
    // The file object was uploaded by a sync: without it, no orphan is left behind.
    await client.deleteFile(fileId, { signal }).catch((error) => o.log?.(`Could not delete file ${fileId}: ${message(error)}`));
    remaining.deleteFile--;
    await journal.append({ t: 'removed', fileId });
  };

  const send = async (item: (typeof sends)[number]) => {
    const { local } = item;
    report(local.path);
    if (item.current) {
      conversionStarted ??= clock.now();
      sent.push({ local, fileId: item.current.fileId, replaces: item.replaces });
      return;
    }
    const key = entryKey(local.path, local.hash);
    let fileId = unfinished?.attached.get(key) ?? unfinished?.uploaded.get(key);
    const inDoubt = unfinished?.uploadsInDoubt.get(key);
    if (!fileId && inDoubt) {
      fileId = await findUploaded(inDoubt);
      if (fileId) {
        await journal.append({ t: 'uploaded', path: local.path, hash: local.hash, fileId });
        o.log?.(`${local.path}: found the upload of the interrupted sync (${fileId}); not uploading it again.`);
      }
    }
    if (fileId) {
      summary.recovered++;
    } else {
      const data = await readFile(path.join(o.root, ...local.path.split('/')));
      const name = path.posix.basename(local.path);
      await journal.append({ t: 'upload', path: local.path, hash: local.hash, name, size: data.length, at: clock.now() });
      const file = await client.uploadFile({ filename: name, data }, { signal });
      fileId = file.id;
      // No 'uploaded' entry: the 'attach' entry that follows records the id (one flush fewer).
      summary.uploaded++;
    }
    remaining.uploadFile--;
    if (!attachedIds.has(fileId)) {
      await journal.append({ t: 'attach', path: local.path, hash: local.hash, fileId });
      await client.attachFile(
        storeId,
        { file_id: fileId, metadata: syncMetadata(local.path, local.hash), ...(o.skipOcr ? { skipOcr: true } : {}) },
        { signal },
      );
      // Not waited for: it announces no request, and without it a resumed sync finds the file
      // attached in the store listing. `journal.finish()` waits for it.
      journal.append({ t: 'attached', path: local.path, hash: local.hash, fileId }).catch(() => undefined);
      summary.attached++;
    }
    remaining.attachFile--;
    conversionStarted ??= clock.now();
    o.onOutcome?.({ path: local.path, status: 'converting', fileId, hash: local.hash });
    sent.push({ local, fileId, replaces: item.replaces });
  };

  type Job = { label: string; run: () => Promise<void>; failPath?: LocalFile };
  const jobs: Job[] = [
    ...sends.map((item) => ({ label: item.local.path, run: () => send(item), failPath: item.local })),
    ...plan.rename.map(({ local, remote }) => ({
      label: local.path,
      failPath: local,
      run: async () => {
        report(local.path);
        await client.updateVectorStoreFileMetadata(storeId, remote.fileId, syncMetadata(local.path, local.hash), { signal });
        remaining.updateVectorStoreFileMetadata--;
        summary.renamed++;
        o.onOutcome?.({
          path: local.path,
          status: remote.status === 'completed' ? 'synced' : 'converting',
          fileId: remote.fileId,
          hash: local.hash,
        });
      },
    })),
    ...removals.map((remote) => ({
      label: remote.pathKey,
      run: async () => {
        report(remote.pathKey);
        await removeFile(remote.fileId);
        summary.removed++;
        o.onOutcome?.({ path: remote.pathKey, status: 'removed', fileId: remote.fileId });
      },
    })),
  ];

  try {
    await mapLimit(jobs, o.concurrency ?? 8, async (job) => {
      signal?.throwIfAborted();
      try {
        await job.run();
      } catch (error) {
        if (signal?.aborted) throw error;
        summary.failed.push({ path: job.label, error: message(error) });
        if (job.failPath) o.onOutcome?.({ path: job.failPath.path, status: 'failed', hash: job.failPath.hash, error: message(error) });
        o.log?.(`${job.label}: ${message(error)}`);
      }
      done++;
      report();
    });
  } finally {
    ticks.abort();
    waitListener?.dispose();
  }

  if (o.waitForConversion !== false) {
    // The time left comes from conversions seen to finish, not from how long sending took.
    let conversion: ConversionEstimate | undefined;
    // Sizes tell which finished files represent those still converting.
    const sizes = (items: readonly { local: LocalFile }[]) => items.map((item) => item.local.size);
    const reportConverting = (waiting: readonly { local: LocalFile }[], looked: boolean) => {
      const now = clock.now();
      conversion ??= new ConversionEstimate(conversionStarted ?? now, sizes(sent));
      if (looked) conversion.observe(sizes(waiting), now);
      const eta = conversion.secondsLeft(now);
      o.onProgress?.({ done, total, phase: 'converting', converting: waiting.length, ...(eta !== undefined ? { etaSeconds: eta } : {}) });
    };
    await settle(o, sent, summary, removeFile, reportConverting, clock);
  }
  return summary;
}

/**
 * Follows conversion with one store listing per round (backoff 1 s → 10 s); a replaced file's old
 * version is removed once its new version completed, and kept when the new one failed. Between
 * listings the progress is told again once a second, so the time left counts down.
 */
async function settle(
  o: RunOptions,
  sent: { local: LocalFile; fileId: string; replaces: RemoteFile[] }[],
  summary: RunSummary,
  removeFile: (fileId: string) => Promise<void>,
  /** `looked`: told right after a listing, which found these files still converting. */
  report: (waiting: readonly { local: LocalFile }[], looked: boolean) => void,
  clock: Clock,
): Promise<void> {
  let waiting = sent;
  let delay = 1_000;
  if (waiting.length > 0) report(waiting, false);
  while (waiting.length > 0) {
    const files = new Map((await listStoreFiles(o.client, o.storeId, o.signal)).map((f) => [f.id, f]));
    const still: typeof waiting = [];
    for (const item of waiting) {
      const file = files.get(item.fileId);
      const status = file?.status ?? 'missing';
      if (status === 'in_progress') {
        still.push(item);
        continue;
      }
      if (status === 'completed') {
        for (const old of item.replaces) {
          try {
            await removeFile(old.fileId);
          } catch (error) {
            summary.failed.push({ path: item.local.path, error: l10n.t('The previous version could not be removed: {0}', message(error)) });
          }
        }
        o.onOutcome?.({ path: item.local.path, status: 'synced', fileId: item.fileId, hash: item.local.hash });
      } else {
        const error =
          file?.last_error ??
          (file ? l10n.t('Conversion ended with status "{0}".', status) : l10n.t('The file is no longer in the store.'));
        summary.failed.push({ path: item.local.path, error });
        o.onOutcome?.({ path: item.local.path, status: 'failed', fileId: item.fileId, hash: item.local.hash, error });
      }
    }
    waiting = still;
    if (waiting.length === 0) break;
    // Told what this listing found, when it found it.
    report(waiting, true);
    for (let slept = 0; slept < delay; slept += 1_000) {
      if (slept > 0) report(waiting, false);
      await clock.sleep(Math.min(1_000, delay - slept), o.signal);
    }
    delay = Math.min(delay * 2, 10_000);
  }
}
