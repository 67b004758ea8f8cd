import * as vscode from 'vscode';
import { deleteFile, deleteVectorStore, type DeletionOutcome, removeFileFromStore } from '../../api/documents/deletion';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand, requireDocuments } from '../../services/commands';
import { describeError } from '../../services/errors';
import type { StoreFileNode, StoreNode, TreeNode } from './nodes';
import { selectionOfArguments } from './commandArguments';
import { pickStore } from './storePicker';
import type { StoresTreeProvider } from './treeProvider';

/** What the user is told when the service refuses a DELETE (405 / 501, or 404 for something that exists). */
function unsupported(name: string): string {
  return vscode.l10n.t(
    'DocChat: this service does not support deletion, so "{0}" stays. Ask the administrators of the documents service to delete it, or choose another store in the chat and search.',
    name,
  );
}

/** Asks before anything is removed; resolves true only when the user chose `action`. */
async function confirm(message: string, detail: string, action: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
}

/** Store-file nodes a command was run on: the multi-selection VS Code passes second, else the clicked one. */
/**
 * The files a command was run on. VS Code hands a row's command no argument when the row was
 * refreshed while its context menu was open; the view's selection is then that row (and it is
 * what the command palette acts on). The confirmation names what it removes.
 */
function storeFileNodes(arg: unknown, args: unknown, selected: () => readonly TreeNode[]): StoreFileNode[] {
  const chosen = arg === undefined && args === undefined ? selected() : selectionOfArguments(arg, args);
  return chosen.filter((n): n is StoreFileNode => (n as TreeNode | undefined)?.kind === 'storeFile');
}

/** Remove from store (undoable: the file stays), delete a file, delete a store; each confirmed first. */
export function registerDeletion(
  context: vscode.ExtensionContext,
  services: Services,
  tree: StoresTreeProvider,
  selected: () => readonly TreeNode[],
): void {
  const client = () => requireDocuments(services.connection);
  /** Local mode: the stores and files are the local backend's, on this computer, not a service's. */
  const local = () => services.connection.state.kind === 'local';

  /** Tells the user the outcome of one deletion that did not simply succeed; true when it is gone. */
  const settle = (outcome: DeletionOutcome, name: string): boolean => {
    if (outcome === 'unsupported') {
      void vscode.window.showWarningMessage(unsupported(name));
      return false;
    }
    if (outcome === 'gone') {
      vscode.window.setStatusBarMessage(vscode.l10n.t('DocChat: "{0}" was already deleted.', name), 5000);
    }
    return true;
  };

  const removeFromStore = async (arg?: unknown, args?: unknown) => {
    const nodes = storeFileNodes(arg, args, selected);
    if (!nodes.length) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('DocChat: pick a file in the Vector Stores view to remove it from its store.'),
      );
      return;
    }
    const first = nodes[0]!;
    const message =
      nodes.length === 1
        ? vscode.l10n.t('Remove "{0}" from the vector store "{1}"?', first.filename, first.parent.store.name || first.storeId)
        : vscode.l10n.t('Remove {0} files from their vector stores?', nodes.length);
    const detail = local()
      ? vscode.l10n.t("The files stay in DocChat's local backend, on this computer, and in other stores; Undo attaches them again.")
      : vscode.l10n.t('The files stay in the documents service and in other stores; Undo attaches them again.');
    if (!(await confirm(message, detail, vscode.l10n.t('Remove')))) return;
    const removed: StoreFileNode[] = [];
    for (const node of nodes) {
      if (settle(await removeFileFromStore(client(), node.storeId, node.fileId), node.filename)) {
        tree.removeStoreFile(node.storeId, node.fileId);
        removed.push(node);
      }
    }
    if (!removed.length) return;
    const undo = vscode.l10n.t('Undo');
    const done =
      removed.length === 1
        ? vscode.l10n.t('DocChat: removed "{0}" from "{1}".', removed[0]!.filename, removed[0]!.parent.store.name || removed[0]!.storeId)
        : vscode.l10n.t('DocChat: removed {0} files from their stores.', removed.length);
    if ((await vscode.window.showInformationMessage(done, undo)) !== undo) return;
    for (const node of removed) {
      const attached = await client().attachFile(node.storeId, { file_id: node.fileId, metadata: node.file.metadata });
      services.documentsEvents.storeFileChanged(node.storeId, attached);
    }
  };

  const deleteFiles = async (arg?: unknown, args?: unknown) => {
    const nodes = storeFileNodes(arg, args, selected);
    if (!nodes.length) {
      void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: pick a file in the Vector Stores view to delete it.'));
      return;
    }
    const files = new Map(nodes.map((n) => [n.fileId, n.filename] as const));
    const message = local()
      ? files.size === 1
        ? vscode.l10n.t('Delete the file "{0}" from DocChat\'s local backend?', nodes[0]!.filename)
        : vscode.l10n.t("Delete {0} files from DocChat's local backend?", files.size)
      : files.size === 1
        ? vscode.l10n.t('Delete the file "{0}" from the documents service?', nodes[0]!.filename)
        : vscode.l10n.t('Delete {0} files from the documents service?', files.size);
    const detail = vscode.l10n.t('They are removed from every vector store. This cannot be undone.');
    if (!(await confirm(message, detail, vscode.l10n.t('Delete File')))) return;
    for (const [fileId, name] of files) {
      if (!settle(await deleteFile(client(), fileId), name)) continue;
      for (const storeNode of tree.loadedStoreNodes()) {
        if (storeNode.fileNodes.has(fileId)) tree.removeStoreFile(storeNode.store.id, fileId);
      }
      vscode.window.setStatusBarMessage(vscode.l10n.t('DocChat: deleted "{0}".', name), 5000);
    }
  };

  /** True when the service lists no file in the store; false when it lists one or cannot say. */
  const holdsNoFiles = async (storeId: string): Promise<boolean> => {
    try {
      return (await client().listVectorStoreFiles(storeId, { limit: 1 })).data.length === 0;
    } catch {
      return false;
    }
  };

  const deleteStore = async (arg?: unknown) => {
    // No argument (a row refreshed while its menu was open, or the palette): the selected store, else a picker.
    const node = (arg ?? (selected().length === 1 ? selected()[0] : undefined)) as TreeNode | undefined;
    const store =
      node?.kind === 'store' ? (node as StoreNode).store : await pickStore(services, { title: vscode.l10n.t('Delete Vector Store') });
    if (!store) return;
    const name = store.name || store.id;
    const detail = local()
      ? vscode.l10n.t(
          "Its files are not deleted: they stay in DocChat's local backend, on this computer. The store and its search index cannot be restored.",
        )
      : vscode.l10n.t('Its files are not deleted: they stay in the documents service. The store and its search index cannot be restored.');
    // Files in no store are listed nowhere in DocChat: deleting them with the store is one choice more.
    const alsoFiles = local()
      ? vscode.l10n.t("Delete Store and Its Files deletes its files from DocChat's local backend too, and so from every store.")
      : vscode.l10n.t('Delete Store and Its Files deletes its files from the documents service too, and so from every store.');
    const storeOnly = vscode.l10n.t('Delete Store');
    const withFiles = vscode.l10n.t('Delete Store and Its Files');
    // A store that holds no files (as listed, as the tree shows it, and as the service says now):
    // nothing to keep or delete but the store.
    const listedEmpty = store.file_counts?.total === 0 && !tree.loadedStoreNodes().find((n) => n.store.id === store.id)?.fileNodes.size;
    const question = vscode.l10n.t('Delete the vector store "{0}"?', name);
    const choice =
      listedEmpty && (await holdsNoFiles(store.id))
        ? await vscode.window.showWarningMessage(
            question,
            { modal: true, detail: vscode.l10n.t('It holds no files. The store cannot be restored.') },
            storeOnly,
          )
        : await vscode.window.showWarningMessage(question, { modal: true, detail: `${detail}\n\n${alsoFiles}` }, storeOnly, withFiles);
    if (choice !== storeOnly && choice !== withFiles) return;
    // Listed before the store goes: a deleted store lists nothing. Named as the tree shows them.
    const fileIds: string[] = [];
    if (choice === withFiles) for await (const file of client().vectorStoreFiles(store.id)) fileIds.push(file.id);
    const shown = tree.loadedStoreNodes().find((n) => n.store.id === store.id)?.fileNodes;
    if (!settle(await deleteVectorStore(client(), store.id), name)) return;
    tree.removeStore(store.id);
    if (choice === storeOnly) {
      void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: deleted the vector store "{0}".', name));
      return;
    }
    // The store is gone whatever happens to its files: one message says what became of them.
    const kept: string[] = [];
    let refused = false;
    let failure: unknown;
    const deleted = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('DocChat: deleting the files of "{0}"…', name) },
      async (progress) => {
        let count = 0;
        for (const [index, fileId] of fileIds.entries()) {
          progress.report({ message: vscode.l10n.t('{0} of {1}', index + 1, fileIds.length), increment: 100 / fileIds.length });
          let outcome: DeletionOutcome;
          try {
            outcome = await deleteFile(client(), fileId);
          } catch (error) {
            failure ??= error;
            kept.push(shown?.get(fileId)?.filename ?? fileId);
            continue;
          }
          if (outcome === 'unsupported') {
            refused = true;
            kept.push(shown?.get(fileId)?.filename ?? fileId);
            continue;
          }
          count++;
          for (const storeNode of tree.loadedStoreNodes()) {
            if (storeNode.fileNodes.has(fileId)) tree.removeStoreFile(storeNode.store.id, fileId);
          }
        }
        return count;
      },
    );
    if (!kept.length) {
      void vscode.window.showInformationMessage(
        deleted === 1
          ? vscode.l10n.t('DocChat: deleted the vector store "{0}" and its file.', name)
          : vscode.l10n.t('DocChat: deleted the vector store "{0}" and its {1} files.', name, deleted),
      );
      return;
    }
    const why = refused ? vscode.l10n.t('The service does not support deleting files.') : describeError(failure);
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'DocChat: deleted the vector store "{0}" and {1} of its {2} files; these stay: {3}. {4}',
        name,
        deleted,
        fileIds.length,
        kept.slice(0, 5).join(', ') + (kept.length > 5 ? vscode.l10n.t(' and {0} more', kept.length - 5) : ''),
        why,
      ),
    );
  };

  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.removeFromStore,
      vscode.l10n.t('DocChat: could not remove the file from the store.'),
      removeFromStore,
    ),
    registerCommand(services.errors, Commands.deleteFile, vscode.l10n.t('DocChat: could not delete the file.'), deleteFiles),
    registerCommand(services.errors, Commands.deleteStore, vscode.l10n.t('DocChat: could not delete the vector store.'), deleteStore),
  );
}
