import * as vscode from 'vscode';
import { DOCUMENTS_RATE_LIMITS } from '../../api/documents/limits';
import { isAbortError } from '../../api/http/errors';
import { Commands, ContextKeys } from '../../common/constants';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type { Services } from '../../services';
import { requireDocuments } from '../../services/commands';
import type { RemoveDeleted } from '../../services/config';
import { connectionModeOf } from '../../services/settingsModel';
import { completeWalkthroughStep } from '../walkthrough';
import { formatDuration } from './eta';
import type { FileRecord, Follow, FollowStore } from './follows';
import { countPlan, describePlan, planHasWork, planSync, remoteFrom, type LocalFile, type RemoteFile, type SyncPlan } from './planner';
import { listStoreFiles, runSync, type FileOutcome, type RunSummary } from './runner';
import { hashFiles, scanFolder, type HashedFile } from './scanner';

export type { RemoveDeleted } from '../../services/config';

export interface SyncRequest {
  /** The user asked for this sync (a command): show the plan unless the folder is confirmed. */
  interactive: boolean;
  /** Upload again the files whose conversion failed. */
  retryFailed?: boolean;
  /** Resuming after a reload: act without asking (the plan was confirmed before). */
  resume?: boolean;
}

/** How many plan lines the confirmation lists per kind. */
const PLAN_SAMPLE = 5;

function sample(label: string, paths: string[]): string[] {
  if (!paths.length) return [];
  const shown = paths.slice(0, PLAN_SAMPLE).map((p) => `  ${p}`);
  if (paths.length > PLAN_SAMPLE) shown.push(`  ${vscode.l10n.t('… and {0} more', paths.length - PLAN_SAMPLE)}`);
  return [label, ...shown];
}

/** The plan as the confirmation shows it. */
export function planDetail(plan: SyncPlan, removeDeleted: RemoveDeleted): string {
  return [
    ...sample(
      vscode.l10n.t('New:'),
      plan.upload.map((f) => f.path),
    ),
    ...sample(
      vscode.l10n.t('Changed:'),
      plan.replace.map((r) => r.local.path),
    ),
    ...sample(
      vscode.l10n.t('Renamed:'),
      plan.rename.map((r) => `${r.remote.pathKey} → ${r.local.path}`),
    ),
    ...sample(
      removeDeleted === 'never' ? vscode.l10n.t('Deleted (kept in the store):') : vscode.l10n.t('Removed:'),
      plan.remove.map((r) => r.pathKey),
    ),
    ...sample(
      vscode.l10n.t('Failed before (not retried):'),
      plan.failed.map((f) => `${f.local.path}: ${f.remote.lastError ?? f.remote.status}`),
    ),
  ].join('\n');
}

/**
 * Runs folder syncs: one at a time per followed folder (a sync asked for while one runs starts
 * again once it ends), each as plan → confirm → act with a cancellable progress notification.
 */
export class SyncController extends Disposable {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Map<string, SyncRequest>();
  private readonly aborts = new Map<string, AbortController>();
  private readonly log: Logger;
  private readonly _onDidSync = this._register(new vscode.EventEmitter<string>());
  /** A sync of a store ended (its files changed): fires with the store id. */
  readonly onDidSync = this._onDidSync.event;

  constructor(
    private readonly services: Services,
    private readonly follows: FollowStore,
  ) {
    super();
    this.log = services.log.child('sync');
    this._register({ dispose: () => this.aborts.forEach((a) => a.abort()) });
  }

  isRunning(follow: Follow): boolean {
    return this.running.has(follow.id);
  }

  /** Queues a sync of the folder; resolves when it (and any sync queued behind it) ended. */
  sync(follow: Follow, request: SyncRequest): Promise<void> {
    const current = this.running.get(follow.id);
    if (current) {
      const queued = this.again.get(follow.id);
      this.again.set(follow.id, {
        interactive: request.interactive || !!queued?.interactive,
        retryFailed: request.retryFailed || queued?.retryFailed,
      });
      return current;
    }
    const run = (async () => {
      // A sync (a command, a watched folder's change, a resume) is a use of DocChat: connect first.
      await this.services.connection.use('a folder sync');
      let next: SyncRequest | undefined = request;
      while (next) {
        this.again.delete(follow.id);
        const latest = this.follows.get(follow.id);
        if (!latest) break;
        try {
          await this.syncOnce(latest, next);
        } catch (error) {
          if (!isAbortError(error)) this.services.errors.report(error, vscode.l10n.t('DocChat: could not sync "{0}".', label(latest)));
        }
        next = this.again.get(follow.id);
      }
    })().finally(() => {
      this.running.delete(follow.id);
      this._onDidSync.fire(follow.storeId);
      const latest = this.follows.get(follow.id);
      if (latest) this.follows.setActivity(latest, 'idle');
    });
    this.running.set(follow.id, run);
    return run;
  }

  stop(follow: Follow): void {
    this.aborts.get(follow.id)?.abort();
  }

  /** True when a reload or crash interrupted a sync (its journal is still there). Reads files only. */
  async hasUnfinished(): Promise<boolean> {
    for (const follow of this.follows.list()) {
      const unfinished = await this.follows.journal(follow).read();
      if (unfinished && unfinished.storeId === follow.storeId) return true;
    }
    return false;
  }

  /** Resumes every sync a reload or crash interrupted (their journal is still there). */
  async resumeUnfinished(): Promise<void> {
    for (const follow of this.follows.list()) {
      const unfinished = await this.follows.journal(follow).read();
      if (unfinished && unfinished.storeId === follow.storeId) {
        this.log.info(`Resuming the interrupted sync of ${label(follow)}`);
        void this.sync(follow, { interactive: false, resume: true });
      }
    }
  }

  private async syncOnce(follow: Follow, request: SyncRequest): Promise<void> {
    const client = requireDocuments(this.services.connection);
    const folder = vscode.Uri.parse(follow.folderUri);
    const root = vscode.Uri.parse(follow.rootUri);
    const settings = this.services.config.forFolder(folder);
    const abort = new AbortController();
    this.aborts.set(follow.id, abort);
    const signal = abort.signal;
    try {
      // ---- plan
      this.follows.setActivity(follow, 'planning');
      const records = await this.follows.loadRecords(follow);
      const planned = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('DocChat: planning the sync of {0}', label(follow)) },
        () => this.plan(follow, root, folder, settings.exclude, records, signal),
      );
      const { plan, hashed, unreadable, unfinished, attachedIds } = planned;
      if (request.retryFailed) {
        plan.replace.push(...plan.failed.map((f) => ({ local: f.local, old: [f.remote] })));
        plan.failed = [];
      }
      for (const file of unreadable) this.log.warn(`${file.path} could not be read, so it is left out: ${file.error}`);
      const counts = countPlan(plan);
      this.log.info(`${label(follow)} → ${follow.storeName || follow.storeId}: ${describePlan(counts)}`);

      // ---- confirm
      let removeDeleted = settings.removeDeleted === 'always';
      const needsConfirm = !follow.confirmed && !request.resume;
      if (needsConfirm) {
        const choice = await this.confirm(follow, plan, settings.removeDeleted);
        if (!choice) return;
        removeDeleted = choice.removeDeleted;
        follow = { ...follow, confirmed: true };
        await this.follows.save(follow);
      } else if (settings.removeDeleted === 'ask' && plan.remove.length > 0) {
        const remove = `Remove ${plan.remove.length}`;
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t(
            '{0} file(s) synced from {1} were deleted. Remove them from "{2}" too?',
            plan.remove.length,
            label(follow),
            follow.storeName || follow.storeId,
          ),
          remove,
          vscode.l10n.t('Keep Them'),
        );
        removeDeleted = answer === remove;
      }

      // ---- act
      if (!planHasWork(plan, removeDeleted) && !unfinished) {
        this.updateRecords(follow, records, plan, hashed);
        await this.finish(follow, records, undefined, request.interactive, counts.failed);
        if (request.interactive) {
          void vscode.window.showInformationMessage(
            vscode.l10n.t('{0} is in sync with "{1}" ({2}).', label(follow), follow.storeName || follow.storeId, describePlan(counts)),
          );
        }
        return;
      }
      this.updateRecords(follow, records, plan, hashed);
      const journal = this.follows.journal(follow);
      await journal.start(follow.storeId, Date.now());
      this.follows.setActivity(follow, 'syncing');
      const limits = connectionModeOf(this.services.config.current) === 'local' ? false : DOCUMENTS_RATE_LIMITS;
      const byPath = new Map(hashed.map((f) => [f.path, f]));
      const summary = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('DocChat: syncing {0}', label(follow)), cancellable: true },
        (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          let reported = 0;
          return runSync(
            {
              client,
              storeId: follow.storeId,
              root: root.fsPath,
              journal,
              plan,
              removeDeleted,
              limits,
              // Without limits the service is the only bound: the raw client does best at about 64 in flight.
              concurrency: limits ? 8 : 64,
              signal,
              onProgress: (p) => {
                const percent = p.total ? (p.done / p.total) * 100 : 0;
                const eta = formatDuration(p.etaSeconds);
                const message =
                  p.phase === 'converting'
                    ? vscode.l10n.t('{0} of {1} · waiting for conversion · about {2} left', p.done, p.total, eta)
                    : p.current
                      ? vscode.l10n.t('{0} of {1} · {2} · about {3} left', p.done, p.total, p.current, eta)
                      : vscode.l10n.t('{0} of {1} · about {2} left', p.done, p.total, eta);
                progress.report({
                  message,
                  increment: Math.max(0, percent - reported),
                });
                reported = Math.max(reported, percent);
              },
              onOutcome: (outcome) => this.record(follow, records, outcome, byPath),
              log: (line) => this.log.info(line),
            },
            unfinished,
            attachedIds,
          );
        },
      );
      await journal.finish();
      await this.finish(follow, records, summary, request.interactive, counts.failed);
    } catch (error) {
      await this.follows.saveRecords(follow).catch(() => undefined);
      if (isAbortError(error)) {
        this.log.info(`Sync of ${label(follow)} stopped; the next sync resumes it.`);
        return;
      }
      await this.follows.save({ ...follow, lastError: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      this.aborts.delete(follow.id);
    }
  }

  private async plan(
    follow: Follow,
    root: vscode.Uri,
    folder: vscode.Uri,
    exclude: string[],
    records: Map<string, FileRecord>,
    signal: AbortSignal,
  ) {
    const client = requireDocuments(this.services.connection);
    // Hashing (in a worker thread) overlaps the store listing.
    const [{ hashed, unreadable }, storeFiles, unfinished] = await Promise.all([
      scanFolder({ root: root.fsPath, folder: folder.fsPath, exclude, signal }).then((scan) =>
        hashFiles(scan.files, { cache: (p) => records.get(p), signal }),
      ),
      listStoreFiles(client, follow.storeId, signal),
      this.follows.journal(follow).read(),
    ]);
    const prefix = follow.relativeFolder ? `${follow.relativeFolder}/` : '';
    // Only store files synced from this folder take part: the store may hold other files too.
    const remotes: RemoteFile[] = storeFiles
      .map((file) => remoteFrom(file))
      .filter((r): r is RemoteFile => !!r && (!prefix || r.pathKey.startsWith(prefix)));
    const locals: LocalFile[] = hashed.map((f) => ({ path: f.path, hash: f.hash, size: f.size }));
    return {
      plan: planSync(locals, remotes),
      hashed,
      unreadable,
      unfinished: unfinished && unfinished.storeId === follow.storeId ? unfinished : undefined,
      attachedIds: new Set(storeFiles.map((f) => f.id)),
    };
  }

  private async confirm(follow: Follow, plan: SyncPlan, setting: RemoveDeleted): Promise<{ removeDeleted: boolean } | undefined> {
    const counts = countPlan(plan);
    const store = follow.storeName || follow.storeId;
    const sync = vscode.l10n.t('Sync');
    const syncRemove = vscode.l10n.t('Sync and Remove Deleted');
    const buttons = plan.remove.length && setting === 'ask' ? [syncRemove, sync] : [sync];
    const answer = await vscode.window.showInformationMessage(
      vscode.l10n.t('Sync {0} to "{1}": {2}.', label(follow), store, describePlan(counts)),
      { modal: true, detail: planDetail(plan, setting) || vscode.l10n.t('Nothing to send.') },
      ...buttons,
    );
    if (!answer) return undefined;
    return { removeDeleted: answer === syncRemove || (setting === 'always' && answer === sync) };
  }

  /** Records of files the plan leaves alone (unchanged, failed before) and of files gone. */
  private updateRecords(follow: Follow, records: Map<string, FileRecord>, plan: SyncPlan, hashed: HashedFile[]): void {
    const byPath = new Map(hashed.map((f) => [f.path, f]));
    const prefix = follow.relativeFolder ? `${follow.relativeFolder}/` : '';
    for (const key of [...records.keys()]) {
      if ((!prefix || key.startsWith(prefix)) && !byPath.has(key)) records.delete(key);
    }
    // Files the plan leaves alone keep a record of what the store holds for them.
    for (const [entries, failed] of [
      [plan.unchanged, false],
      [plan.failed, true],
    ] as const) {
      for (const { local, remote } of entries) {
        const file = byPath.get(local.path);
        if (!file) continue;
        const known = { size: file.size, mtimeMs: file.mtimeMs, hash: local.hash, fileId: remote.fileId };
        records.set(
          local.path,
          failed
            ? { ...known, status: 'failed', error: remote.lastError ?? vscode.l10n.t('Conversion ended with status "{0}".', remote.status) }
            : { ...known, status: remote.status === 'completed' ? 'synced' : 'converting' },
        );
      }
    }
    this.follows.changed(follow);
  }

  private record(follow: Follow, records: Map<string, FileRecord>, outcome: FileOutcome, byPath: Map<string, HashedFile>): void {
    if (outcome.status === 'removed') {
      if (records.get(outcome.path)?.fileId === outcome.fileId) records.delete(outcome.path);
    } else {
      const file = byPath.get(outcome.path);
      if (!file) return;
      records.set(outcome.path, {
        size: file.size,
        mtimeMs: file.mtimeMs,
        hash: outcome.hash,
        ...(outcome.fileId ? { fileId: outcome.fileId } : {}),
        status: outcome.status,
        ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
      });
    }
    this.follows.changed(follow);
  }

  private async finish(
    follow: Follow,
    records: Map<string, FileRecord>,
    summary: RunSummary | undefined,
    interactive: boolean,
    failedBefore: number,
  ): Promise<void> {
    await this.follows.saveRecords(follow);
    const saved = { ...follow, lastSyncAt: Date.now() };
    delete saved.lastError;
    await this.follows.save(saved);
    if (!summary) return;
    if (summary.uploaded > 0) completeWalkthroughStep(ContextKeys.fileAttached);
    const store = follow.storeName || follow.storeId;
    const parts = [
      vscode.l10n.t('{0} uploaded', summary.uploaded),
      ...(summary.renamed ? [vscode.l10n.t('{0} renamed', summary.renamed)] : []),
      vscode.l10n.t('{0} removed', summary.removed),
      ...(summary.recovered ? [vscode.l10n.t('{0} found from the interrupted sync', summary.recovered)] : []),
    ];
    this.log.info(`Synced ${label(follow)} to ${store}: ${parts.join(', ')}; ${summary.failed.length} failed`);
    for (const failure of summary.failed) this.log.warn(`${failure.path}: ${failure.error}`);
    const failed = summary.failed.length + failedBefore;
    if (failed > 0) {
      const first = summary.failed[0] ?? [...records.entries()].map(([p, r]) => ({ path: p, error: r.error })).find((r) => r.error);
      const retry = vscode.l10n.t('Retry Failed');
      const output = vscode.l10n.t('Open Output');
      const answer = await vscode.window.showWarningMessage(
        first
          ? vscode.l10n.t(
              '{0} file(s) of {1} could not be synced to "{2}" ({3}: {4}).',
              failed,
              label(follow),
              store,
              first.path,
              first.error ?? '',
            )
          : vscode.l10n.t('{0} file(s) of {1} could not be synced to "{2}".', failed, label(follow), store),
        retry,
        output,
      );
      if (answer === retry) void this.sync(saved, { interactive: true, retryFailed: true });
      else if (answer === output) void vscode.commands.executeCommand(Commands.showOutput);
    } else if (interactive) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Synced {0} to "{1}": {2}.', label(follow), store, parts.join(', ')));
    }
  }
}

export function label(follow: Follow): string {
  const folder = vscode.Uri.parse(follow.folderUri);
  const workspaceFolder = vscode.workspace.getWorkspaceFolder(folder);
  const name = workspaceFolder?.name ?? folder.path.split('/').pop() ?? follow.folderUri;
  return follow.relativeFolder ? `"${name}/${follow.relativeFolder}"` : `"${name}"`;
}
