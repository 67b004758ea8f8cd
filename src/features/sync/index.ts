import path from 'node:path';
import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import type { PassageDocuments } from '../search';
import { askConversion, createStoreInteractive, pickStore, storeNameLike, storeOfArgument, type StoresTreeProvider } from '../stores';
import { SyncController, label } from './controller';
import { SyncDecorations } from './decorations';
import { FollowStore, type Follow } from './follows';
import { FollowWatcher } from './watch';
import { normalizePath } from './syncMetadata';
import { syncIntoNewStore } from './newStore';
import { registerCommand, requireDocuments } from '../../services/commands';

/** The context value of a store's "follows folder" row: `syncFollow` plus `+failed`, `+running`. */
const FOLLOW_CONTEXT = 'syncFollow';

interface NodeLike {
  kind?: unknown;
  data?: unknown;
}

export function register(context: vscode.ExtensionContext, services: Services, tree: StoresTreeProvider, passages: PassageDocuments): void {
  const storage = (context.storageUri ?? context.globalStorageUri).fsPath;
  const follows = new FollowStore(context.workspaceState, storage);
  // "How should the files be converted?" is asked as attaching asks it, with the same remembered answer.
  const controller = new SyncController(services, follows, () => askConversion(context.globalState, true));
  context.subscriptions.push(
    follows,
    controller,
    new SyncDecorations(follows),
    new FollowWatcher(follows, controller, services.log.child('sync')),
  );

  // ---- the store's "follows folder" rows
  const rowsChanged = new vscode.EventEmitter<string | undefined>();
  context.subscriptions.push(
    rowsChanged,
    follows.onDidChange((follow) => rowsChanged.fire(follow?.storeId)),
    tree.addStoreRows({
      onDidChange: rowsChanged.event,
      rows: (storeId) =>
        follows.forStore(storeId).map((follow) => ({ key: `sync:${follow.id}`, item: followItem(follows, follow), data: follow.id })),
    }),
  );

  // The store's files changed: show them as they are now.
  context.subscriptions.push(
    controller.onDidSync((storeId) => {
      const node = tree.storeNode(storeId);
      if (node) {
        tree.reload(node).catch((error: unknown) => services.log.child('sync').warn(`Could not refresh the store: ${String(error)}`));
      }
    }),
  );

  // ---- passages of synced files open the file at its recorded path
  context.subscriptions.push(
    passages.addExactFileResolver(async (storeId, fileId) => {
      for (const follow of follows.forStore(storeId)) {
        const records = await follows.loadRecords(follow);
        for (const [relative, record] of records) {
          if (record.fileId === fileId) return vscode.Uri.joinPath(vscode.Uri.parse(follow.rootUri), ...relative.split('/'));
        }
      }
      return undefined;
    }),
  );

  /**
   * The followed folder a row command is about: its row's, or, when VS Code hands over no row it
   * still knows (a row refreshed while its menu was open), the only followed folder or the one
   * the user picks. Never nothing without a word.
   */
  const followOf = async (arg: unknown): Promise<Follow | undefined> => {
    const node = arg as NodeLike | undefined;
    const fromRow = node?.kind === 'contributed' && typeof node.data === 'string' ? follows.get(node.data) : undefined;
    if (fromRow) return fromRow;
    const all = follows.list();
    if (all.length === 0) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('DocChat: no folder is kept in sync yet. Run "Sync Folder to Vector Store…" on a folder first.'),
      );
      return undefined;
    }
    if (all.length === 1) return all[0];
    const picked = await vscode.window.showQuickPick(
      all.map((follow) => ({ label: label(follow), description: follow.storeName || follow.storeId, follow })),
      {
        title: vscode.l10n.t('DocChat: Choose a Synced Folder'),
        placeHolder: vscode.l10n.t('The folder and the vector store it is kept in sync with'),
      },
    );
    return picked?.follow;
  };
  context.subscriptions.push(
    registerCommand(services.errors, Commands.syncFolder, vscode.l10n.t('DocChat: could not sync a folder.'), async (arg: unknown) => {
      const storeFromNode = storeOfArgument(arg);
      const folder = arg instanceof vscode.Uri ? arg : await pickFolder();
      if (!folder) return;
      const workspaceFolder = vscode.workspace.getWorkspaceFolder(folder);
      if (!workspaceFolder) {
        throw new Error(`Only folders inside an open workspace folder can be synced; "${folder.fsPath}" is not.`);
      }
      let created = false;
      const store =
        storeFromNode ??
        (await pickStore(services, {
          title: vscode.l10n.t('DocChat: Sync "{0}" to a Vector Store', path.basename(folder.fsPath)),
          create: async () => {
            // No "created" toast: it would cover the sync's progress notification and its Cancel
            // button; the plan, the progress and the summary name the new store.
            const made = await createStoreInteractive(services, storeNameLike(path.basename(folder.fsPath)), { announce: false });
            created = !!made;
            return made;
          },
        }));
      if (!store) return;
      await services.recentStores.touch(store.id);
      const folderUri = folder.toString();
      const follow: Follow = follows.forFolder(folderUri, store.id) ?? {
        id: FollowStore.idFor(folderUri, store.id),
        rootUri: workspaceFolder.uri.toString(),
        folderUri,
        relativeFolder: normalizePath(path.posix.relative(workspaceFolder.uri.path, folder.path)),
        storeId: store.id,
        storeName: store.name ?? '',
        confirmed: false,
      };
      if (!follows.get(follow.id)) await follows.save(follow);
      if (!created) {
        await controller.sync(follow, { interactive: true });
        return;
      }
      // A store made for this folder is not left behind, empty, when its plan is cancelled.
      const name = store.name || store.id;
      const outcome = await syncIntoNewStore({
        client: requireDocuments(services.connection),
        storeId: store.id,
        sync: () => controller.sync(follow, { interactive: true }),
        confirmed: () => !!follows.get(follow.id)?.confirmed,
        forget: async () => {
          const saved = follows.get(follow.id);
          if (saved) await follows.remove(saved);
        },
      });
      if (outcome === 'deleted' || outcome === 'gone') {
        tree.removeStore(store.id);
        services.log.child('sync').info(`The sync of ${label(follow)} was not confirmed: deleted the new vector store ${store.id} again`);
        // The plan named the new store: say it is gone again.
        void vscode.window.showInformationMessage(
          vscode.l10n.t('DocChat: the sync was not confirmed, so the new, empty vector store "{0}" was deleted again.', name),
        );
      } else if (outcome === 'unsupported') {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('DocChat: the documents service does not delete vector stores, so the new, empty store "{0}" stays.', name),
        );
      }
    }),
    registerCommand(services.errors, Commands.syncNow, vscode.l10n.t('DocChat: could not sync now.'), async (arg: unknown) => {
      const follow = await followOf(arg);
      if (follow) await controller.sync(follow, { interactive: true });
    }),
    registerCommand(
      services.errors,
      Commands.retryFailedSync,
      vscode.l10n.t('DocChat: could not retry the failed files.'),
      async (arg: unknown) => {
        const follow = await followOf(arg);
        if (follow) await controller.sync(follow, { interactive: true, retryFailed: true });
      },
    ),
    registerCommand(
      services.errors,
      Commands.stopFollowing,
      vscode.l10n.t('DocChat: could not stop following a folder.'),
      async (arg: unknown) => {
        const follow = await followOf(arg);
        if (!follow) return;
        const stop = vscode.l10n.t('Stop Following');
        const answer = await vscode.window.showWarningMessage(
          vscode.l10n.t(
            'Stop keeping "{0}" in sync with {1}? The files already in the store stay there.',
            follow.storeName || follow.storeId,
            label(follow),
          ),
          { modal: true },
          stop,
        );
        if (answer !== stop) return;
        controller.stop(follow);
        await follows.remove(follow);
      },
    ),
  );

  // A sync a reload or crash interrupted resumes when DocChat activates in this workspace, for
  // whatever reason (its view, a command, the chat, @docchat): an unfinished journal is a use of
  // DocChat, so it connects. A workspace without one connects nothing here.
  if (follows.list().length > 0) {
    void controller.hasUnfinished().then(async (unfinished) => {
      if (!unfinished) return;
      await services.connection.use('a folder sync to resume');
      if (services.connection.documents) void controller.resumeUnfinished();
    });
  }
}

async function pickFolder(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: vscode.l10n.t('DocChat: Sync Folder to Vector Store'),
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Sync This Folder'),
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  return picked?.[0];
}

function followItem(follows: FollowStore, follow: Follow): vscode.TreeItem {
  const activity = follows.activityOf(follow);
  const records = follows.cachedRecords(follow);
  const failed = records ? [...records.values()].filter((r) => r.status === 'failed').length : 0;
  const item = new vscode.TreeItem(vscode.l10n.t('Follows {0}', label(follow)), vscode.TreeItemCollapsibleState.None);
  const state =
    activity.kind !== 'idle'
      ? `${activity.kind}${activity.detail ? `: ${activity.detail}` : ''}`
      : follow.lastError
        ? vscode.l10n.t('last sync failed: {0}', follow.lastError)
        : follow.lastSyncAt
          ? failed
            ? vscode.l10n.t('synced {0} · {1} failed', new Date(follow.lastSyncAt).toLocaleString(), failed)
            : vscode.l10n.t('synced {0}', new Date(follow.lastSyncAt).toLocaleString())
          : vscode.l10n.t('not synced yet');
  item.description = state;
  item.tooltip = `${vscode.Uri.parse(follow.folderUri).fsPath}\n${state}`;
  item.iconPath = new vscode.ThemeIcon(activity.kind !== 'idle' ? 'sync~spin' : follow.lastError || failed ? 'warning' : 'sync');
  item.contextValue = [FOLLOW_CONTEXT, ...(failed ? ['failed'] : []), ...(activity.kind !== 'idle' ? ['running'] : [])].join('+');
  return item;
}
