import * as vscode from 'vscode';
import { DOCUMENTS_RATE_LIMITS } from '../../api/documents/limits';
import { isAbortError } from '../../api/http/errors';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type { Services } from '../../services';
import { requireDocuments } from '../../services/commands';
import { connectionModeOf } from '../../services/settingsModel';
import { act } from './act';
import { chooseRemoval } from './confirm';
import { finish } from './finish';
import type { Follow, FollowStore } from './follows';
import { describePlan, planHasWork } from './planner';
import { planFolderSync } from './planStep';
import { recordOutcome, recordPlan } from './records';
import type { RunSummary } from './runner';

export interface SyncRequest {
  /** The user asked for this sync (a command): show the plan unless the folder is confirmed. */
  interactive: boolean;
  /** Upload again the files whose conversion failed. */
  retryFailed?: boolean;
  /** Resuming after a reload: act without asking (the plan was confirmed before). */
  resume?: boolean;
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

  /** The followed folders whose sync a reload or crash interrupted (their journal is still there). */
  private async *interrupted(): AsyncGenerator<Follow> {
    for (const follow of this.follows.list()) {
      if (await this.follows.journal(follow).readFor(follow.storeId)) yield follow;
    }
  }

  /** True when a reload or crash interrupted a sync. Reads files only. */
  async hasUnfinished(): Promise<boolean> {
    for await (const _ of this.interrupted()) return true;
    return false;
  }

  /** Resumes every sync a reload or crash interrupted. */
  async resumeUnfinished(): Promise<void> {
    for await (const follow of this.interrupted()) {
      this.log.info(`Resuming the interrupted sync of ${label(follow)}`);
      void this.sync(follow, { interactive: false, resume: true });
    }
  }

  /** One sync: plan → confirm → act, then the records and the outcome. */
  private async syncOnce(follow: Follow, request: SyncRequest): Promise<void> {
    const client = requireDocuments(this.services.connection);
    const folder = vscode.Uri.parse(follow.folderUri);
    const root = vscode.Uri.parse(follow.rootUri).fsPath;
    const settings = this.services.config.forFolder(folder);
    const name = label(follow);
    const store = follow.storeName || follow.storeId;
    const journal = this.follows.journal(follow);
    const abort = new AbortController();
    this.aborts.set(follow.id, abort);
    try {
      this.follows.setActivity(follow, 'planning');
      const records = await this.follows.loadRecords(follow);
      const planned = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('DocChat: planning the sync of {0}', name) },
        () =>
          planFolderSync({
            client,
            storeId: follow.storeId,
            root,
            folder: folder.fsPath,
            relativeFolder: follow.relativeFolder,
            exclude: settings.exclude,
            records,
            journal,
            retryFailed: request.retryFailed,
            signal: abort.signal,
          }),
      );
      const { plan, counts } = planned;
      for (const file of planned.unreadable) this.log.warn(`${file.path} could not be read, so it is left out: ${file.error}`);
      this.log.info(`${name} → ${store}: ${describePlan(counts)}`);

      const needsConfirm = !follow.confirmed && !request.resume;
      const removeDeleted = await chooseRemoval({ plan, counts, folder: name, store, setting: settings.removeDeleted, needsConfirm });
      if (removeDeleted === undefined) return;
      if (needsConfirm) {
        follow = { ...follow, confirmed: true };
        await this.follows.save(follow);
      }

      recordPlan(records, planned);
      this.follows.changed(follow);
      let summary: RunSummary | undefined;
      if (planHasWork(plan, removeDeleted) || planned.unfinished) {
        this.follows.setActivity(follow, 'syncing');
        summary = await act({
          client,
          storeId: follow.storeId,
          root,
          journal,
          planned,
          removeDeleted,
          limits: connectionModeOf(this.services.config.current) === 'local' ? false : DOCUMENTS_RATE_LIMITS,
          folder: name,
          abort,
          onOutcome: (outcome) => {
            if (recordOutcome(records, outcome, planned.hashed)) this.follows.changed(follow);
          },
          log: (line) => this.log.info(line),
        });
      }
      await finish({
        follows: this.follows,
        follow,
        records,
        counts,
        summary,
        interactive: request.interactive,
        folder: name,
        store,
        log: this.log,
        retryFailed: (saved) => void this.sync(saved, { interactive: true, retryFailed: true }),
      });
    } catch (error) {
      await this.follows.saveRecords(follow).catch(() => undefined);
      if (isAbortError(error)) {
        this.log.info(`Sync of ${name} stopped; the next sync resumes it.`);
        return;
      }
      await this.follows.save({ ...follow, lastError: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      this.aborts.delete(follow.id);
    }
  }
}

export function label(follow: Follow): string {
  const folder = vscode.Uri.parse(follow.folderUri);
  const workspaceFolder = vscode.workspace.getWorkspaceFolder(folder);
  const name = workspaceFolder?.name ?? folder.path.split('/').pop() ?? follow.folderUri;
  return follow.relativeFolder ? `"${name}/${follow.relativeFolder}"` : `"${name}"`;
}
