import * as vscode from 'vscode';
import { isAbortError } from '../../api/http/errors';
import { atFirstUse } from '../../common/atFirstUse';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type { Services } from '../../services';
import type { Follow, FollowStore } from './follows';
import type * as SyncSteps from './syncOnce';

// The sync's steps: loaded when the first sync runs, not when DocChat activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const syncSteps = atFirstUse(() => require('./syncOnce') as typeof SyncSteps);

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
    /** Asks "how should the files be converted?" as attaching does (undefined: dismissed). */
    private readonly askConversion: () => Promise<boolean | undefined>,
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

  /** One sync: its steps load at the first sync (./syncOnce.ts). */
  private syncOnce(follow: Follow, request: SyncRequest): Promise<void> {
    const { services, follows, log, aborts, askConversion } = this;
    return syncSteps().syncOnce(
      { services, follows, log, aborts, askConversion, sync: (next, again) => this.sync(next, again) },
      follow,
      request,
    );
  }
}

export function label(follow: Follow): string {
  const folder = vscode.Uri.parse(follow.folderUri);
  const workspaceFolder = vscode.workspace.getWorkspaceFolder(folder);
  const name = workspaceFolder?.name ?? folder.path.split('/').pop() ?? follow.folderUri;
  return follow.relativeFolder ? `"${name}/${follow.relativeFolder}"` : `"${name}"`;
}
