import * as vscode from 'vscode';
import type { FileObject, VectorStore, VectorStoreFile } from '../../api/documents/schemas';
import { Commands } from '../../common/constants';
import { PagedList } from './paging';
import {
  ContextValues,
  escapeMarkdown,
  presentLoadMore,
  presentMessage,
  presentStore,
  presentStoreFile,
  type IconSpec,
  type NodePresentation,
} from './presentation';

export type TreeNode = StoreNode | StoreFileNode | LoadMoreNode | MessageNode | ContributedNode;

function icon(spec: IconSpec): vscode.ThemeIcon {
  return new vscode.ThemeIcon(spec.id, spec.color ? new vscode.ThemeColor(spec.color) : undefined);
}

function tooltip(markdown: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(markdown);
  md.supportHtml = false;
  md.isTrusted = false;
  return md;
}

/** The row without its tooltip: the tree provider's resolveTreeItem adds it on hover. */
function itemFrom(p: NodePresentation, id: string, state: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(p.label, state);
  item.id = id;
  item.description = p.description;
  item.iconPath = icon(p.icon);
  item.contextValue = p.contextValue;
  item.accessibilityInformation = { label: p.accessibilityLabel };
  return item;
}

export class StoreNode {
  readonly kind = 'store';
  readonly parent = undefined;
  /** Child nodes by file id, kept so that refreshes and reveal find the same instances. */
  readonly fileNodes = new Map<string, StoreFileNode>();

  constructor(
    public store: VectorStore,
    readonly files: PagedList<VectorStoreFile>,
  ) {}

  get id(): string {
    return `store:${this.store.id}`;
  }

  toTreeItem(nowSeconds: number): vscode.TreeItem {
    return itemFrom(presentStore(this.store, nowSeconds), this.id, vscode.TreeItemCollapsibleState.Collapsed);
  }

  tooltip(nowSeconds: number): vscode.MarkdownString {
    return tooltip(presentStore(this.store, nowSeconds).tooltip);
  }

  /** The node for a file, created on first use and updated afterwards. */
  nodeFor(file: VectorStoreFile): StoreFileNode {
    let node = this.fileNodes.get(file.id);
    if (node) {
      node.file = file;
    } else {
      node = new StoreFileNode(this, file);
      this.fileNodes.set(file.id, node);
    }
    return node;
  }
}

export class StoreFileNode {
  readonly kind = 'storeFile';
  info: FileObject | undefined;

  constructor(
    readonly parent: StoreNode,
    public file: VectorStoreFile,
  ) {}

  get id(): string {
    return `file:${this.parent.store.id}/${this.file.id}`;
  }
  get storeId(): string {
    return this.parent.store.id;
  }
  get fileId(): string {
    return this.file.id;
  }
  get filename(): string {
    return this.info?.filename || this.file.id;
  }

  toTreeItem(): vscode.TreeItem {
    return itemFrom(presentStoreFile(this.file, this.info), this.id, vscode.TreeItemCollapsibleState.None);
  }

  tooltip(): vscode.MarkdownString {
    return tooltip(presentStoreFile(this.file, this.info).tooltip);
  }
}

export class LoadMoreNode {
  readonly kind = 'loadMore';

  constructor(
    /** undefined: the root list of stores. */
    readonly parent: StoreNode | undefined,
    readonly shown: number,
  ) {}

  get id(): string {
    return `loadMore:${this.parent?.store.id ?? 'root'}`;
  }

  toTreeItem(): vscode.TreeItem {
    const p = presentLoadMore(this.shown);
    const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = p.description;
    item.accessibilityInformation = { label: p.accessibilityLabel };
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.contextValue = ContextValues.loadMore;
    item.command = { command: Commands.loadMore, title: vscode.l10n.t('Load more'), arguments: [this] };
    return item;
  }
}

/** A line of text in the tree: an empty store, or an error with a retry. */
export class MessageNode {
  readonly kind = 'message';

  constructor(
    readonly parent: StoreNode | undefined,
    readonly text: string,
    readonly iconId: string,
    readonly command?: vscode.Command,
    readonly detail?: string,
  ) {}

  get id(): string {
    return `message:${this.parent?.store.id ?? 'root'}:${this.text}`;
  }

  toTreeItem(): vscode.TreeItem {
    const p = presentMessage(this.text, this.detail);
    const item = new vscode.TreeItem(p.label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(this.iconId);
    item.contextValue = ContextValues.message;
    item.accessibilityInformation = { label: p.accessibilityLabel };
    if (p.tooltip) {
      // Markdown, so VS Code reads the row and not the tooltip; the detail is in the spoken label too.
      item.tooltip = tooltip(escapeMarkdown(p.tooltip));
    }
    if (this.command) {
      item.command = this.command;
    }
    return item;
  }
}

/** A row another feature shows at the top of a store (e.g. the folder a store follows). */
export class ContributedNode {
  readonly kind = 'contributed';

  constructor(
    readonly parent: StoreNode,
    readonly key: string,
    private readonly item: vscode.TreeItem,
    /** What the feature's commands receive with the node. */
    readonly data: unknown,
  ) {}

  get id(): string {
    return `contributed:${this.parent.store.id}:${this.key}`;
  }

  toTreeItem(): vscode.TreeItem {
    this.item.id = this.id;
    return this.item;
  }
}
