import * as vscode from 'vscode';
import { SETTINGS_SECTION, Settings } from '../../common/constants';
import { Disposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import { readFolderSyncSettings } from '../../services/config';
import { label } from './controller';
import type { SyncController } from './controller';
import type { Follow, FollowStore } from './follows';

/** Changes within this window start one sync. */
const DEBOUNCE_MS = 1_500;

/**
 * With `docchat.sync.watch` on, a followed folder's saved, created and deleted files start a
 * re-sync (debounced) through the controller's queue, as "Sync Now" would.
 */
export class FollowWatcher extends Disposable {
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly labels = new Map<string, string>();

  constructor(
    private readonly follows: FollowStore,
    private readonly controller: SyncController,
    private readonly log: Logger,
  ) {
    super();
    // A new, removed or newly confirmed follow: cheap (one settings read per follow).
    this._register(follows.onDidChange(() => this.update()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.syncWatch}`)) this.update();
      }),
    );
    this._register({
      dispose: () => {
        this.watchers.forEach((w) => w.dispose());
        this.timers.forEach((t) => clearTimeout(t));
      },
    });
    this.update();
  }

  /** Watches each confirmed follow whose folder has the setting on; drops the others. */
  update(): void {
    const wanted = new Map<string, Follow>();
    for (const follow of this.follows.list()) {
      // A folder is saved before its plan is shown. Until the user confirms the plan and answers
      // the conversion question, nothing of it is synced, so nothing is watched.
      if (!follow.confirmed) continue;
      const folder = vscode.Uri.parse(follow.folderUri);
      if (readFolderSyncSettings(folder).watch) {
        wanted.set(follow.id, follow);
      }
    }
    for (const [id, watcher] of this.watchers) {
      if (!wanted.has(id)) {
        this.log.info(`Stopped watching ${this.labels.get(id) ?? id}`);
        this.labels.delete(id);
        watcher.dispose();
        this.watchers.delete(id);
      }
    }
    for (const [id, follow] of wanted) {
      if (this.watchers.has(id)) continue;
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.parse(follow.folderUri), '**/*'));
      const schedule = () => this.schedule(id);
      this.labels.set(id, label(follow));
      this.log.info(`Watching ${label(follow)} for saved, created and deleted files`);
      this.watchers.set(
        id,
        vscode.Disposable.from(watcher, watcher.onDidChange(schedule), watcher.onDidCreate(schedule), watcher.onDidDelete(schedule)),
      );
    }
  }

  private schedule(id: string): void {
    clearTimeout(this.timers.get(id));
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        // Only confirmed folders are watched (`update`); one stopped meanwhile is gone.
        const follow = this.follows.get(id);
        if (follow) void this.controller.sync(follow, { interactive: false });
      }, DEBOUNCE_MS),
    );
  }
}
