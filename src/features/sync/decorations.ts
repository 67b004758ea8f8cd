import { stat } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { FollowStore } from './follows';
import { normalizePath } from './syncMetadata';

/**
 * Explorer badges for files of followed folders: synced (✓), changed since the last sync (~),
 * failed (!), with the store in the tooltip.
 */
export class SyncDecorations extends Disposable implements vscode.FileDecorationProvider {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>());
  readonly onDidChangeFileDecorations = this._onDidChange.event;

  constructor(private readonly follows: FollowStore) {
    super();
    this._register(vscode.window.registerFileDecorationProvider(this));
    this._register(follows.onDidChange(() => this._onDidChange.fire(undefined)));
  }

  refresh(uris?: vscode.Uri[]): void {
    this._onDidChange.fire(uris);
  }

  async provideFileDecoration(uri: vscode.Uri): Promise<vscode.FileDecoration | undefined> {
    if (uri.scheme !== 'file') return undefined;
    for (const follow of this.follows.containing(uri)) {
      const records = await this.follows.loadRecords(follow);
      const root = vscode.Uri.parse(follow.rootUri);
      const relative = normalizePath(path.posix.relative(root.path, uri.path));
      const record = records.get(relative);
      if (!record) continue;
      const store = `"${follow.storeName || follow.storeId}"`;
      if (record.status === 'failed') {
        return {
          badge: '!',
          color: new vscode.ThemeColor('list.errorForeground'),
          tooltip: record.error ? vscode.l10n.t('Not synced to {0}: {1}', store, record.error) : vscode.l10n.t('Not synced to {0}.', store),
        };
      }
      const info = await stat(uri.fsPath).catch(() => undefined);
      if (info && (info.size !== record.size || info.mtimeMs !== record.mtimeMs)) {
        return {
          badge: '~',
          color: new vscode.ThemeColor('list.warningForeground'),
          tooltip: vscode.l10n.t('Changed since the last sync to {0}', store),
        };
      }
      if (record.status === 'converting') {
        return { badge: '…', tooltip: vscode.l10n.t('Sent to {0}; converting', store) };
      }
      return { badge: '✓', tooltip: vscode.l10n.t('Synced to {0}', store) };
    }
    return undefined;
  }
}
