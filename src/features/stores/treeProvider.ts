import * as vscode from 'vscode';
import type { DocumentsClient } from '../../api/documents/client';
import type { FileObject, VectorStore, VectorStoreFile } from '../../api/documents/schemas';
import { Commands, ContextKeys, Settings } from '../../common/constants';
import { Disposable, toDisposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import { FileCatalog } from './fileCatalog';
import { ContributedNode, LoadMoreNode, MessageNode, StoreFileNode, StoreNode, type TreeNode } from './nodes';
import { PagedList } from './paging';
import { StatusPoller } from './poller';
import { isTerminalStatus } from './presentation';
import { requireDocuments } from '../../services/commands';
import { completeWalkthroughStep } from '../walkthrough';

/** Refreshes requested within this window reach VS Code as one event. */
const REFRESH_BATCH_MS = 30;

const followKey = (storeId: string, fileId: string) => `${storeId}/${fileId}`;

/** Rows another feature adds at the top of a store's children. */
export interface StoreRowContributor {
  rows(storeId: string): { key: string; item: vscode.TreeItem; data: unknown }[];
  /** Fires with a store id (or undefined for every store) when its rows changed. */
  readonly onDidChange: vscode.Event<string | undefined>;
}

export class StoresTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<TreeNode | TreeNode[] | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;

  readonly stores: PagedList<VectorStore>;
  private readonly catalog: FileCatalog;
  private readonly poller: StatusPoller;
  private readonly storeNodes = new Map<string, StoreNode>();
  /** Files an attach flow is following itself (see `followAttach`); the poller leaves them alone. */
  private readonly followed = new Set<string>();
  private readonly pending = new Set<TreeNode | 'root'>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private flushWaiters: Array<() => void> = [];
  private readonly log: Logger;
  private empty: boolean | undefined;
  private readonly contributors: StoreRowContributor[] = [];

  constructor(private readonly services: Services) {
    super();
    this.log = services.log.child('stores');
    this.stores = new PagedList(
      (request) => this.client().listVectorStores(request),
      () => services.config.current.pageSize,
    );
    this.catalog = new FileCatalog(() => services.connection.documents);
    this.poller = new StatusPoller({
      fetch: (storeId, fileId) => this.client().retrieveVectorStoreFile(storeId, fileId),
      onUpdate: (storeId, file) => this.upsertStoreFile(storeId, file),
      onGone: (storeId, fileId) => this.removeStoreFile(storeId, fileId),
      onError: (_storeId, fileId, error) => this.log.warn(`Polling ${fileId} failed: ${describeError(error)}`),
    });
    this._register(toDisposable(() => this.poller.clear()));
    this._register(toDisposable(() => this.flushTimer && clearTimeout(this.flushTimer)));
    this._register(services.connection.onDidChange(() => this.resetAll()));
    this._register(services.documentsEvents.onDidChangeStore((store) => this.addStore(store)));
    this._register(services.documentsEvents.onDidChangeStoreFile((e) => this.upsertStoreFile(e.storeId, e.file)));
    this._register(services.documentsEvents.onDidChangeFile((file) => this.setFileInfo(file)));
    this._register(
      services.config.onDidChange((e) => {
        if (e.affects(Settings.pageSize)) {
          this.resetAll();
        }
      }),
    );
  }

  /** The client for the current connection; throws when signed out (callers show the error). */
  client(): DocumentsClient {
    const client = requireDocuments(this.services.connection);
    return client;
  }

  setVisible(visible: boolean): void {
    this.poller.setActive(visible);
  }

  /** True while the tree polls a file whose conversion has not finished. */
  isPolling(storeId: string, fileId: string): boolean {
    return this.poller.isTracking(storeId, fileId);
  }

  /** An attach flow follows this file's conversion itself: the tree does not poll it until `endFollow`. */
  followAttach(storeId: string, fileId: string): void {
    this.followed.add(followKey(storeId, fileId));
  }

  /**
   * The attach flow stopped following the file. When its last known state (`latest`) is a
   * conversion still running on the service, the tree polls it from now on.
   */
  endFollow(storeId: string, fileId: string, latest?: VectorStoreFile): void {
    this.followed.delete(followKey(storeId, fileId));
    if (latest?.status === 'in_progress') {
      this.poller.track(storeId, fileId);
    }
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    return node.kind === 'store' ? node.toTreeItem(Date.now() / 1000) : node.toTreeItem();
  }

  /**
   * Tooltips are built when the user hovers a row: VS Code parses every markdown tooltip of the
   * rows it is sent on the extension host thread, which for a page of files cost about as much
   * as the page's round trip.
   */
  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    if (item.tooltip === undefined) {
      if (node.kind === 'store') {
        item.tooltip = node.tooltip(Date.now() / 1000);
      } else if (node.kind === 'storeFile') {
        item.tooltip = node.tooltip();
      }
    }
    return item;
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (!node) {
      return this.rootChildren();
    }
    return node.kind === 'store' ? this.storeChildren(node) : [];
  }

  /** Adds rows at the top of stores; the tree redraws a store when its rows change. */
  addStoreRows(contributor: StoreRowContributor): vscode.Disposable {
    this.contributors.push(contributor);
    const listener = contributor.onDidChange((storeId) => {
      const node = storeId === undefined ? undefined : this.storeNodes.get(storeId);
      if (storeId === undefined) this.storeNodes.forEach((n) => this.refresh(n));
      else if (node) this.refresh(node);
    });
    return toDisposable(() => {
      listener.dispose();
      this.contributors.splice(this.contributors.indexOf(contributor), 1);
    });
  }

  // ------------------------------------------------------------------ children

  private async rootChildren(): Promise<TreeNode[]> {
    if (!this.services.connection.documents) {
      this.setEmpty(false);
      return [];
    }
    try {
      await this.stores.ensureLoaded();
    } catch (error) {
      this.setEmpty(false);
      return [this.errorNode(undefined, error)];
    }
    const nodes: TreeNode[] = this.stores.items.map((store) => this.storeNodeFor(store));
    this.setEmpty(nodes.length === 0);
    this.services.documentsEvents.storesListed(this.stores.items, !this.stores.hasMore);
    // A store exists (the demo store, or one made elsewhere): the walkthrough's step is done.
    if (nodes.length > 0) completeWalkthroughStep(ContextKeys.storeCreated);
    if (this.stores.hasMore) {
      nodes.push(new LoadMoreNode(undefined, this.stores.items.length));
    }
    return nodes;
  }

  private async storeChildren(node: StoreNode): Promise<TreeNode[]> {
    try {
      await node.files.ensureLoaded();
    } catch (error) {
      return [this.errorNode(node, error)];
    }
    const files = node.files.items;
    try {
      await this.catalog.ensure(files.map((f) => f.id));
    } catch (error) {
      this.log.warn(`Could not list files for their names: ${describeError(error)}`);
    }
    const contributed: TreeNode[] = this.contributors.flatMap((c) =>
      c.rows(node.store.id).map((row) => new ContributedNode(node, row.key, row.item, row.data)),
    );
    const nodes: TreeNode[] = files.map((file) => {
      const child = node.nodeFor(file);
      child.info = this.catalog.get(file.id) ?? child.info;
      this.followIfNeeded(node.store.id, file);
      return child;
    });
    if (nodes.length === 0) {
      nodes.push(
        new MessageNode(node, vscode.l10n.t('No files yet. Drop files here or attach some.'), 'info', {
          command: Commands.attachFiles,
          title: vscode.l10n.t('Attach Files…'),
          arguments: [node],
        }),
      );
    }
    if (node.files.hasMore) {
      nodes.push(new LoadMoreNode(node, files.length));
    }
    return [...contributed, ...nodes];
  }

  private errorNode(parent: StoreNode | undefined, error: unknown): MessageNode {
    const auth = typeof error === 'object' && error !== null && (error as { kind?: unknown }).kind === 'auth';
    this.log.error(`Listing ${parent ? `files of ${parent.store.id}` : 'vector stores'} failed: ${describeError(error)}`);
    const command: vscode.Command = auth
      ? { command: Commands.setDocumentsToken, title: vscode.l10n.t('Set Token') }
      : parent
        ? { command: Commands.refreshNode, title: vscode.l10n.t('Retry'), arguments: [parent] }
        : { command: Commands.refreshStores, title: vscode.l10n.t('Retry') };
    const text = auth ? vscode.l10n.t('The token was rejected. Click to set a new one.') : vscode.l10n.t('Could not load. Click to retry.');
    return new MessageNode(parent, text, 'error', command, describeError(error));
  }

  private storeNodeFor(store: VectorStore): StoreNode {
    let node = this.storeNodes.get(store.id);
    if (node) {
      node.store = store;
    } else {
      const files = new PagedList<VectorStoreFile>(
        (request) => this.client().listVectorStoreFiles(store.id, request),
        () => this.services.config.current.pageSize,
      );
      node = new StoreNode(store, files);
      this.storeNodes.set(store.id, node);
    }
    return node;
  }

  private followIfNeeded(storeId: string, file: VectorStoreFile): void {
    if (!isTerminalStatus(file.status) && !this.followed.has(followKey(storeId, file.id))) {
      this.poller.track(storeId, file.id);
    }
  }

  private setEmpty(empty: boolean): void {
    if (this.empty !== empty) {
      this.empty = empty;
      void vscode.commands.executeCommand('setContext', ContextKeys.storesEmpty, empty);
    }
  }

  // ------------------------------------------------------------------ refreshing

  /** Schedules a redraw of a node (or everything); refreshes close together are batched. */
  refresh(node?: TreeNode): void {
    this.pending.add(node ?? 'root');
    this.flushTimer ??= setTimeout(() => this.flush(), REFRESH_BATCH_MS);
  }

  /** Resolves once the redraws scheduled so far have been handed to VS Code. */
  whenRefreshed(): Promise<void> {
    if (this.flushTimer === undefined) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /**
   * Reveals a node in a view of this tree. VS Code looks for a node among the children it has
   * cached for the node's parent, so a file added since then is found only once the redraw of its
   * store has reached VS Code ("Cannot resolve tree item for element …" otherwise): pending redraws
   * are handed over first, and VS Code's reveal waits for the redraws it has been handed.
   */
  async reveal(
    view: vscode.TreeView<TreeNode>,
    node: TreeNode,
    options: Parameters<vscode.TreeView<TreeNode>['reveal']>[1],
  ): Promise<void> {
    if (this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flush();
    }
    await view.reveal(node, options);
  }

  private flush(): void {
    this.flushTimer = undefined;
    const pending = [...this.pending];
    this.pending.clear();
    if (pending.includes('root')) {
      this._onDidChangeTreeData.fire(undefined);
    } else {
      const nodes = pending.filter((n): n is TreeNode => n !== 'root');
      // A node whose parent is redrawn is redrawn with it.
      this._onDidChangeTreeData.fire(nodes.filter((n) => !(n.parent && nodes.includes(n.parent))));
    }
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Forget everything loaded (new connection, new page size). */
  resetAll(): void {
    this.stores.reset();
    this.storeNodes.clear();
    this.catalog.invalidate();
    this.poller.clear();
    this.refresh();
  }

  /** Re-fetches one node from the service (the root when no node is given). */
  async reload(node?: TreeNode): Promise<void> {
    if (!node || node.kind === 'loadMore' || node.kind === 'message' || node.kind === 'contributed') {
      if (node?.parent) {
        return this.reload(node.parent);
      }
      this.stores.reset();
      this.catalog.invalidate();
      for (const storeNode of this.storeNodes.values()) {
        storeNode.files.reset();
      }
      this.poller.clear();
      this.refresh();
      return;
    }
    if (node.kind === 'store') {
      try {
        node.store = await this.client().retrieveVectorStore(node.store.id);
        this.stores.update(node.store);
      } catch (error) {
        if ((error as { kind?: unknown }).kind === 'not_found') {
          this.removeStore(node.store.id);
          return;
        }
        throw error;
      }
      node.files.reset();
      this.poller.untrackStore(node.store.id);
      this.refresh(node);
      return;
    }
    const [file, info] = await Promise.all([
      this.client().retrieveVectorStoreFile(node.storeId, node.fileId),
      this.client()
        .retrieveFile(node.fileId)
        .catch(() => undefined),
    ]);
    if (info) {
      this.setFileInfo(info);
    }
    this.upsertStoreFile(node.storeId, file);
  }

  async loadMore(node: LoadMoreNode): Promise<void> {
    if (node.parent) {
      await node.parent.files.loadMore();
      this.refresh(node.parent);
    } else {
      await this.stores.loadMore();
      this.refresh();
    }
  }

  // ------------------------------------------------------------------ updates from commands

  storeNode(storeId: string): StoreNode | undefined {
    return this.storeNodes.get(storeId);
  }

  /** The row of a store file, when its store is shown and the file loaded. */
  fileNode(storeId: string, fileId: string): StoreFileNode | undefined {
    return this.storeNodes.get(storeId)?.fileNodes.get(fileId);
  }

  /** The loaded file of a store whose file record is named `filename` (names are looked up as needed). */
  async fileNamed(storeNode: StoreNode, filename: string): Promise<VectorStoreFile | undefined> {
    await this.catalog.ensure(storeNode.files.items.map((f) => f.id));
    return storeNode.files.items.find((f) => this.catalog.get(f.id)?.filename === filename);
  }

  /** All stores loaded so far, in tree order. */
  loadedStoreNodes(): StoreNode[] {
    return this.stores.items.map((s) => this.storeNodeFor(s));
  }

  /** Shows a new store first, or redraws a changed one. */
  addStore(store: VectorStore): void {
    const existing = this.storeNodes.get(store.id);
    if (existing && this.stores.update(store)) {
      existing.store = store;
      this.refresh(existing);
      return;
    }
    if (this.stores.loaded) {
      this.stores.prepend(store);
    }
    this.storeNodeFor(store);
    this.refresh();
  }

  removeStore(storeId: string): void {
    this.services.documentsEvents.storeDeleted(storeId);
    this.stores.remove(storeId);
    this.storeNodes.delete(storeId);
    this.poller.untrackStore(storeId);
    this.refresh();
  }

  /** Shows a new or changed store file; a new one appears first in its store. */
  upsertStoreFile(storeId: string, file: VectorStoreFile): StoreFileNode | undefined {
    const storeNode = this.storeNodes.get(storeId);
    if (!storeNode) {
      return undefined;
    }
    const isNew = !storeNode.fileNodes.has(file.id);
    const previous = storeNode.fileNodes.get(file.id)?.file.status;
    // A file the store's loaded list lacks (a list loaded while the file was being attached) changes the store's rows.
    const joinsList = storeNode.files.loaded && !storeNode.files.has(file.id);
    storeNode.files.prepend(file);
    const node = storeNode.nodeFor(file);
    node.info = this.catalog.get(file.id) ?? node.info;
    this.followIfNeeded(storeId, file);
    this.refresh(isNew || joinsList ? storeNode : node);
    if (previous && !isTerminalStatus(previous) && isTerminalStatus(file.status)) {
      // The store's file counts changed: refresh its tooltip in the background.
      this.client()
        .retrieveVectorStore(storeId)
        .then((store) => {
          storeNode.store = store;
          this.stores.update(store);
          this.refresh(storeNode);
        })
        .catch((error: unknown) => this.log.debug(`Store refresh after ${file.id} failed: ${describeError(error)}`));
    }
    return node;
  }

  removeStoreFile(storeId: string, fileId: string): void {
    const storeNode = this.storeNodes.get(storeId);
    if (storeNode) {
      storeNode.files.remove(fileId);
      storeNode.fileNodes.delete(fileId);
      this.refresh(storeNode);
    }
  }

  /** A file's own record changed (name, metadata): redraw every store file showing it. */
  setFileInfo(file: FileObject): void {
    this.catalog.set(file);
    for (const storeNode of this.storeNodes.values()) {
      const node = storeNode.fileNodes.get(file.id);
      if (node) {
        node.info = file;
        this.refresh(node);
      }
    }
  }
}
