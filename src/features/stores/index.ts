import * as path from 'node:path';
import * as vscode from 'vscode';
import { Commands, ViewIds } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';
import { AttachFlow, sourceFromDocument, sourceFromUri, sourcesFromUris } from './attach';
import { createStoreInteractive } from './createStore';
import { registerDeletion } from './deletion';
import { StoresDragAndDrop } from './dragAndDrop';
import type { LoadMoreNode, StoreFileNode, StoreNode, TreeNode } from './nodes';
import { StoresTreeProvider } from './treeProvider';
import { offerWalkthrough } from '../walkthrough';

export { groupedByRecency, listStoreItems, pickStore, pickStores, storesOfferingQuery, type StoreItem } from './storePicker';
export { FileCatalog } from './fileCatalog';
export { editMetadata } from './metadataEditor';
export { metadataSavedMessage } from './metadataDraft';
export { createStoreInteractive } from './createStore';
export { storeNameLike } from './storeNames';
export { fileChoiceRows } from './presentation';
export { askConversion } from './conversionQuestion';
export type { ContributedNode, StoreFileNode, StoreNode, TreeNode } from './nodes';
export type { StoreRowContributor, StoresTreeProvider } from './treeProvider';
export {
  fileOfArgument,
  searchRequestOfArgument,
  selectionOfArguments,
  storeFileRefOfArgument,
  storeOfArgument,
  type FileArgument,
  type StoreFileRef,
} from './commandArguments';
import { storeFileRefOfArgument, storeRefOfArgument, type StoreFileRef } from './commandArguments';

/** A reference to a store file that commands accept from other features (search results, passages). */
function isNode(value: unknown): value is TreeNode {
  return typeof value === 'object' && value !== null && 'kind' in value && typeof (value as { kind: unknown }).kind === 'string';
}

/** How many pages "Reveal in tree" loads at most while looking for a node. */
const REVEAL_MAX_PAGES = 20;

/** Returns the tree, so other features can add rows to stores. */
export function register(context: vscode.ExtensionContext, services: Services): StoresTreeProvider {
  const tree = new StoresTreeProvider(services);
  context.subscriptions.push(tree);
  // The attach flow reveals files in the view that its drop controller belongs to.
  let view: vscode.TreeView<TreeNode> | undefined;
  const revealNode = async (node: StoreFileNode): Promise<void> =>
    view && tree.reveal(view, node, { select: true, focus: false, expand: true });
  const attach = new AttachFlow(services, tree, revealNode, context.globalState);
  const treeView = vscode.window.createTreeView<TreeNode>(ViewIds.stores, {
    treeDataProvider: tree,
    dragAndDropController: new StoresDragAndDrop(attach, services),
    showCollapseAll: true,
    canSelectMany: true,
  });
  view = treeView;
  context.subscriptions.push(treeView);
  tree.setVisible(treeView.visible);
  // Showing the view is using DocChat: it connects (in Local mode, starts the local backend).
  if (treeView.visible) {
    void services.connection.use('the Vector Stores view');
    offerWalkthrough(context, services.config);
  }
  const describeConnection = () => {
    const s = services.connection.state;
    treeView.description = s.kind === 'local' ? vscode.l10n.t('Local') : s.kind === 'remote' ? s.host : undefined;
  };
  describeConnection();
  context.subscriptions.push(
    treeView.onDidChangeVisibility((e) => {
      tree.setVisible(e.visible);
      if (e.visible) {
        void services.connection.use('the Vector Stores view');
        offerWalkthrough(context, services.config);
      }
    }),
    services.connection.onDidChange(describeConnection),
  );

  async function revealStoreFile(ref: StoreFileRef): Promise<boolean> {
    await tree.stores.ensureLoaded();
    for (let page = 0; !tree.storeNode(ref.storeId) && tree.stores.hasMore && page < REVEAL_MAX_PAGES; page++) {
      await tree.stores.loadMore();
    }
    let storeNode = tree.storeNode(ref.storeId);
    if (!storeNode) {
      tree.addStore(await tree.client().retrieveVectorStore(ref.storeId));
      storeNode = tree.storeNode(ref.storeId);
    }
    if (!storeNode) {
      return false;
    }
    await storeNode.files.ensureLoaded();
    for (
      let page = 0;
      !storeNode.files.items.some((f) => f.id === ref.fileId) && storeNode.files.hasMore && page < REVEAL_MAX_PAGES;
      page++
    ) {
      await storeNode.files.loadMore();
    }
    const file =
      storeNode.files.items.find((f) => f.id === ref.fileId) ?? (await tree.client().retrieveVectorStoreFile(ref.storeId, ref.fileId));
    const node = tree.upsertStoreFile(ref.storeId, file);
    if (!node) {
      return false;
    }
    await tree.reveal(treeView, node, { select: true, focus: true, expand: true });
    return true;
  }

  /** The store file showing the active editor: a passage document, or a file of the same name. */
  async function refForActiveEditor(): Promise<StoreFileRef | undefined> {
    const uri = vscode.window.activeTextEditor?.document.uri;
    if (!uri) {
      return undefined;
    }
    const query = new URLSearchParams(uri.query);
    if (query.get('store') && query.get('file')) {
      return { storeId: query.get('store')!, fileId: query.get('file')! };
    }
    const name = path.posix.basename(uri.path);
    await tree.stores.ensureLoaded();
    for (const storeNode of tree.loadedStoreNodes()) {
      await storeNode.files.ensureLoaded();
      const match = await tree.fileNamed(storeNode, name);
      if (match) {
        return { storeId: storeNode.store.id, fileId: match.id };
      }
    }
    return undefined;
  }

  registerDeletion(context, services, tree, () => treeView.selection);

  const storeArg = (arg: unknown): StoreNode | undefined => (isNode(arg) ? (arg.kind === 'store' ? arg : arg.parent) : undefined);

  context.subscriptions.push(
    registerCommand(services.errors, Commands.refreshStores, vscode.l10n.t('DocChat: could not refresh the vector stores.'), async () => {
      // After a failed start (or a lost connection) "Refresh" also reconnects.
      if (services.connection.state.kind === 'error') {
        await services.connection.rebuild('retry');
        return;
      }
      await tree.reload();
    }),
    registerCommand(services.errors, Commands.refreshNode, vscode.l10n.t('DocChat: could not refresh.'), (node?: TreeNode) =>
      tree.reload(node),
    ),
    registerCommand(services.errors, Commands.loadMore, vscode.l10n.t('DocChat: could not load more items.'), (node: LoadMoreNode) =>
      tree.loadMore(node),
    ),
    registerCommand(services.errors, Commands.createStore, vscode.l10n.t('DocChat: could not create a vector store.'), async () => {
      const store = await createStoreInteractive(services);
      if (store) {
        const node = tree.storeNode(store.id);
        if (node) {
          await tree.reveal(treeView, node, { select: true, focus: true });
        }
      }
    }),
    registerCommand(
      services.errors,
      Commands.copyId,
      vscode.l10n.t('DocChat: could not copy the ID.'),
      async (node?: TreeNode, nodes?: TreeNode[]) => {
        const targets = (nodes?.length ? nodes : node ? [node] : treeView.selection).filter(
          (n): n is StoreNode | StoreFileNode => n.kind === 'store' || n.kind === 'storeFile',
        );
        const ids = targets.map((n) => (n.kind === 'store' ? n.store.id : n.fileId));
        if (ids.length === 0) {
          return;
        }
        await vscode.env.clipboard.writeText(ids.join('\n'));
        vscode.window.setStatusBarMessage(
          ids.length === 1 ? vscode.l10n.t('DocChat: copied {0}', ids[0]!) : vscode.l10n.t('DocChat: copied {0} IDs', ids.length),
          3000,
        );
      },
    ),
    registerCommand(
      services.errors,
      Commands.revealInTree,
      vscode.l10n.t('DocChat: could not reveal the file in the tree.'),
      async (arg?: unknown) => {
        const ref = storeFileRefOfArgument(arg) ?? (await refForActiveEditor());
        if (!ref || !(await revealStoreFile(ref))) {
          void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: this file is not in any loaded vector store.'));
        }
      },
    ),
    registerCommand(
      services.errors,
      Commands.attachCurrentFile,
      vscode.l10n.t('DocChat: could not attach the file.'),
      async (arg?: unknown) => {
        const store = storeArg(arg)?.store;
        if (arg instanceof vscode.Uri) {
          // Editor menus pass the editor's resource; an untitled editor exists only as a document.
          const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === arg.toString());
          await attach.run([open ? sourceFromDocument(open) : sourceFromUri(arg)], store);
          return;
        }
        const document = vscode.window.activeTextEditor?.document;
        if (!document) {
          void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: open a file to attach it.'));
          return;
        }
        await attach.run([sourceFromDocument(document)], store);
      },
    ),
    registerCommand(
      services.errors,
      Commands.attachFiles,
      vscode.l10n.t('DocChat: could not attach the files.'),
      async (arg?: unknown, args?: unknown) => {
        // A store's node (the tree), or the store a chat answer names ("holds no files yet: attach some").
        const store = storeArg(arg)?.store ?? storeRefOfArgument(arg);
        let uris: vscode.Uri[];
        if (Array.isArray(args) && args.every((a) => a instanceof vscode.Uri) && args.length) {
          uris = args;
        } else if (arg instanceof vscode.Uri) {
          uris = [arg];
        } else {
          uris =
            (await vscode.window.showOpenDialog({
              canSelectMany: true,
              canSelectFiles: true,
              canSelectFolders: false,
              openLabel: store ? vscode.l10n.t('Attach to "{0}"', store.name) : vscode.l10n.t('Attach'),
              title: vscode.l10n.t('DocChat: Attach Files'),
            })) ?? [];
        }
        if (uris.length === 0) {
          return;
        }
        const { sources, skipped } = await sourcesFromUris(uris);
        if (skipped.length) {
          void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: folders are not attached ({0}).', skipped.join(', ')));
        }
        await attach.run(sources, store);
      },
    ),
  );
  return tree;
}
