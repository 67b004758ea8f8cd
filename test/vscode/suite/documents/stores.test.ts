import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { AttachFlow } from '../../../../src/features/stores/attach';
import { StoresDragAndDrop } from '../../../../src/features/stores/dragAndDrop';
import type { LoadMoreNode, StoreFileNode, StoreNode, TreeNode } from '../../../../src/features/stores/nodes';
import { StoresTreeProvider } from '../../../../src/features/stores/treeProvider';
import { eventually, servicesFor, startBackend, type TestBackend, type TestServices } from './fixtures';

const encode = (text: string) => new TextEncoder().encode(text);

function iconId(item: vscode.TreeItem): string | undefined {
  return item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
}

/** The tooltip VS Code shows on hover: rows come without one, resolveTreeItem adds it. */
function tooltipText(tree: StoresTreeProvider, node: TreeNode): string {
  const item = tree.getTreeItem(node);
  assert.equal(item.tooltip, undefined, 'the row is sent without its tooltip (built on hover)');
  const resolved = tree.resolveTreeItem(item, node);
  return resolved.tooltip instanceof vscode.MarkdownString ? resolved.tooltip.value : String(resolved.tooltip ?? '');
}

describe('Vector Stores tree (extension host, real backend)', () => {
  let backend: TestBackend;
  let services: TestServices;
  let tree: StoresTreeProvider;
  let channel: vscode.LogOutputChannel;
  let scratch: string;

  before(async () => {
    backend = await startBackend();
    channel = vscode.window.createOutputChannel('DocChat tree tests', { log: true });
    await vscode.workspace.getConfiguration('docchat').update('stores.pageSize', 2, vscode.ConfigurationTarget.Global);
    services = servicesFor(backend.client, channel);
    await eventually(() => services.config.current.pageSize === 2, 'the page size setting');
    tree = new StoresTreeProvider(services);
    scratch = mkdtempSync(path.join(os.tmpdir(), 'docchat-tree-'));
  });

  after(async () => {
    tree?.dispose();
    services?.dispose();
    channel?.dispose();
    await vscode.workspace.getConfiguration('docchat').update('stores.pageSize', undefined, vscode.ConfigurationTarget.Global);
    await backend?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The node of a store, paging through "Load more"; a store created since the last load needs a full refresh. */
  async function storeNode(id: string): Promise<StoreNode> {
    for (let attempt = 0; attempt < 2; attempt++) {
      for (;;) {
        const roots = await tree.getChildren();
        const found = roots.find((n): n is StoreNode => n.kind === 'store' && n.store.id === id);
        if (found) return found;
        const more = roots.find((n): n is LoadMoreNode => n.kind === 'loadMore');
        if (!more) break;
        await tree.loadMore(more);
      }
      tree.resetAll();
    }
    throw new Error(`store ${id} is not in the tree`);
  }

  async function fileNodes(node: StoreNode): Promise<StoreFileNode[]> {
    return (await tree.getChildren(node)).filter((n): n is StoreFileNode => n.kind === 'storeFile');
  }

  it('pages stores with the page-size setting and a "Load more" node', async () => {
    const names = ['tree-a', 'tree-b', 'tree-c'];
    for (const name of names) {
      await backend.client.createVectorStore({ name, metadata: { team: `team-${name}` } });
    }
    tree.resetAll();
    const first = await tree.getChildren();
    assert.deepEqual(
      first.map((n) => n.kind),
      ['store', 'store', 'loadMore'],
    );
    const newest = tree.getTreeItem(first[0]!);
    assert.equal(newest.label, 'tree-c');
    assert.equal(newest.contextValue, 'store');
    assert.equal(newest.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    assert.match(tooltipText(tree, first[0]!), /\| team \| team-tree-c \|/);
    const loadMore = tree.getTreeItem(first[2]!);
    assert.equal(loadMore.command?.command, 'docchat.loadMore');

    await tree.loadMore(first[2] as LoadMoreNode);
    const second = await tree.getChildren();
    assert.deepEqual(
      second.filter((n) => n.kind === 'store').map((n) => tree.getTreeItem(n).label),
      ['tree-c', 'tree-b', 'tree-a'],
    );
    assert.ok(!second.some((n) => n.kind === 'loadMore'), 'all three stores are loaded');
    assert.equal(second[0], first[0], 'nodes keep their identity across refreshes (reveal and expansion rely on it)');
  });

  it('shows files by name with status icons, and a failed conversion with its last_error', async () => {
    const store = await backend.client.createVectorStore({ name: 'tree-files' });
    const good = await backend.client.uploadFile({ filename: 'guide.md', data: encode('# Guide\nHow to deploy.') });
    await backend.client.attachFile(store.id, { file_id: good.id });
    const bad = await backend.client.uploadFile({
      filename: 'tool.exe',
      data: new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 0xff, 0xfe]),
    });
    await backend.client.attachFile(store.id, { file_id: bad.id });
    const failed = await backend.client.waitUntilProcessed(store.id, bad.id, { initialDelayMs: 20, maxDelayMs: 100 });
    await backend.client.waitUntilProcessed(store.id, good.id, { initialDelayMs: 20, maxDelayMs: 100 });
    assert.equal(failed.status, 'failed');
    assert.ok(failed.last_error);

    const node = await storeNode(store.id);
    const files = await fileNodes(node);
    const byName = new Map(files.map((f) => [tree.getTreeItem(f).label, tree.getTreeItem(f)]));
    const failedNode = files.find((f) => tree.getTreeItem(f).label === 'tool.exe')!;
    assert.deepEqual([...byName.keys()].sort(), ['guide.md', 'tool.exe']);
    assert.equal(iconId(byName.get('guide.md')!), 'check');
    assert.equal(byName.get('guide.md')!.contextValue, 'storeFile+completed');
    const failedItem = byName.get('tool.exe')!;
    assert.equal(iconId(failedItem), 'error');
    assert.equal(failedItem.contextValue, 'storeFile+failed');
    assert.ok(tooltipText(tree, failedNode).includes(failed.last_error!.slice(0, 10)), 'the tooltip quotes last_error');
  });

  it('spins while in progress and the poller updates the node once the view is visible', async () => {
    const store = await backend.client.createVectorStore({ name: 'tree-poll' });
    const node = await storeNode(store.id);
    assert.deepEqual(await fileNodes(node), []);
    const file = await backend.client.uploadFile({ filename: 'notes.md', data: encode('# Notes\nSome text.') });
    const attached = await backend.client.attachFile(store.id, { file_id: file.id });
    services.documentsEvents.fileChanged(file);
    // What the tree saw right after attaching: the conversion had not finished yet.
    const fileNode = tree.upsertStoreFile(store.id, { ...attached, status: 'in_progress' })!;
    assert.equal(iconId(tree.getTreeItem(fileNode)), 'loading~spin');
    assert.equal(tree.getTreeItem(fileNode).label, 'notes.md');
    assert.equal(tree.isPolling(store.id, file.id), true);

    const changed: TreeNode[] = [];
    const listener = tree.onDidChangeTreeData((e) => changed.push(...(Array.isArray(e) ? e : e ? [e] : [])));
    try {
      tree.setVisible(true);
      await eventually(() => iconId(tree.getTreeItem(fileNode)) === 'check', 'the file to show as completed', 800);
      // The file node is redrawn by itself, or with its store when both changed in one batch.
      await eventually(() => changed.includes(fileNode) || changed.includes(node), 'a refresh of the file node');
      assert.equal(tree.isPolling(store.id, file.id), false, 'a completed file is no longer polled');
    } finally {
      listener.dispose();
      tree.setVisible(false);
    }
  });

  it('leaves a file an attach flow follows to the flow, and polls it once the flow ends while it still converts', async () => {
    const store = await backend.client.createVectorStore({ name: 'tree-follow' });
    await storeNode(store.id);
    const attachOne = async (filename: string) => {
      const file = await backend.client.uploadFile({ filename, data: encode(`# ${filename}`) });
      const attached = await backend.client.attachFile(store.id, { file_id: file.id });
      tree.followAttach(store.id, attached.id);
      tree.upsertStoreFile(store.id, { ...attached, status: 'in_progress' });
      assert.equal(tree.isPolling(store.id, attached.id), false, 'the attach flow follows it, the tree does not poll it');
      return attached;
    };
    try {
      const running = await attachOne('running.md');
      tree.endFollow(store.id, running.id, { ...running, status: 'in_progress' });
      assert.equal(tree.isPolling(store.id, running.id), true, 'a conversion the flow stopped waiting for is polled');
      const done = await attachOne('done.md');
      tree.endFollow(store.id, done.id, { ...done, status: 'completed' });
      assert.equal(tree.isPolling(store.id, done.id), false, 'a finished conversion is not polled');
      // No longer left to the flow: the tree follows the file itself when it sees it converting.
      tree.upsertStoreFile(store.id, { ...done, status: 'in_progress' });
      assert.equal(tree.isPolling(store.id, done.id), true, 'the tree follows the file again');
    } finally {
      tree.removeStore(store.id);
    }
  });

  it('batches refreshes into one event and refreshes only the nodes that changed', async () => {
    const store = await backend.client.createVectorStore({ name: 'tree-batch' });
    const file = await backend.client.uploadFile({ filename: 'batch.md', data: encode('# Batch') });
    await backend.client.attachFile(store.id, { file_id: file.id });
    await backend.client.waitUntilProcessed(store.id, file.id, { initialDelayMs: 20, maxDelayMs: 100 });
    const otherStore = await backend.client.createVectorStore({ name: 'tree-batch-2' });
    tree.resetAll();
    const node = await storeNode(store.id);
    const [fileNode] = await fileNodes(node);
    const other = await storeNode(otherStore.id);
    await tree.whenRefreshed(); // the redraws that loading scheduled

    const events: Array<TreeNode | TreeNode[] | undefined> = [];
    const listener = tree.onDidChangeTreeData((e) => events.push(e ?? undefined));
    try {
      tree.refresh(fileNode);
      tree.refresh(node);
      tree.refresh(fileNode);
      tree.refresh(other);
      assert.equal(events.length, 0, 'a refresh is batched, not fired at once');
      await tree.whenRefreshed();
      assert.equal(events.length, 1, 'refreshes close together reach VS Code as one event');
      const fired = events[0];
      assert.ok(Array.isArray(fired), 'not a full refresh');
      assert.deepEqual(fired, [node, other], 'a file is redrawn with its store, each node once');

      events.length = 0;
      await backend.client.updateVectorStoreFileMetadata(store.id, fileNode!.fileId, { reviewed: 'yes' });
      await tree.reload(fileNode);
      await eventually(() => events.length > 0, 'the reload event');
      assert.deepEqual(events[0], [fileNode], 'reloading a file redraws only that file');
      assert.match(tooltipText(tree, fileNode!), /\| reviewed \| yes \|/);
    } finally {
      listener.dispose();
    }
  });

  it('reveals a file added since VS Code last fetched its store, as the attach flow does', async () => {
    const store = await backend.client.createVectorStore({ name: 'tree-reveal' });
    const upload = async (filename: string) => {
      const file = await backend.client.uploadFile({ filename, data: encode(`# ${filename}`) });
      services.documentsEvents.fileChanged(file);
      return backend.client.attachFile(store.id, { file_id: file.id });
    };
    const first = await upload('first.md');
    const view = vscode.window.createTreeView<TreeNode>('docchatTest.tree', { treeDataProvider: tree });
    try {
      const node = await storeNode(store.id);
      await tree.whenRefreshed();
      // VS Code fetches (and caches) the store's children to reveal the first file.
      const firstNode = (await fileNodes(node)).find((n) => n.fileId === first.id)!;
      await tree.reveal(view, firstNode, { select: true, focus: false, expand: true });
      await eventually(() => view.selection.some((n) => n.id === firstNode.id), 'the first file to be selected');
      // A second file is attached and revealed at once, before the redraw of its store is due.
      const second = await upload('second.md');
      const secondNode = tree.upsertStoreFile(store.id, second)!;
      await tree.reveal(view, secondNode, { select: true, focus: false });
      await eventually(() => view.selection.some((n) => n.id === secondNode.id), 'the new file to be selected');
    } finally {
      view.dispose();
    }
  });

  it('attaches files dropped from the Explorer (text/uri-list) onto a store', async () => {
    const store = await backend.client.createVectorStore({ name: 'tree-drop' });
    const node = await storeNode(store.id);
    const first = path.join(scratch, 'dropped one.md');
    const second = path.join(scratch, 'dropped-two.txt');
    writeFileSync(first, '# Dropped\nDragged from the Explorer.');
    writeFileSync(second, 'plain text that was dropped');
    const controller = new StoresDragAndDrop(new AttachFlow(services, tree, async () => undefined, services.memento), services);
    assert.deepEqual(controller.dropMimeTypes, ['text/uri-list']);
    const transfer = new vscode.DataTransfer();
    const list = `${vscode.Uri.file(first).toString()}\r\n# a comment\r\n${vscode.Uri.file(second).toString()}\r\n`;
    transfer.set('text/uri-list', new vscode.DataTransferItem(list));
    // Dropped onto a file of the store counts as dropped onto the store; here: the store itself.
    await controller.handleDrop(node, transfer, new vscode.CancellationTokenSource().token);

    const page = await backend.client.listVectorStoreFiles(store.id);
    assert.equal(page.data.length, 2, 'both dropped files are attached');
    assert.ok(
      page.data.every((f) => f.status === 'completed'),
      `statuses: ${page.data.map((f) => f.status)}`,
    );
    const labels = (await fileNodes(node)).map((f) => tree.getTreeItem(f).label).sort();
    assert.deepEqual(labels, ['dropped one.md', 'dropped-two.txt']);
    assert.equal(services.recentStores.list()[0], store.id, 'the store becomes the most recent one');
  });
});
