/**
 * The one reader of what a command receives: a node of the Vector Stores tree (clicked, or the
 * multi-selection VS Code passes second), a plain reference from another command or a link, or
 * nothing. No `vscode` import: the shapes are checked structurally, so any caller's argument works.
 */
import type { VectorStore } from '../../api/documents/schemas';

/** A store file named by ids (a node carries them too). */
export interface StoreFileRef {
  storeId: string;
  fileId: string;
}

/** A file a command acts on: the store is known when it came from a store's node or a full reference. */
export interface FileArgument {
  fileId: string;
  storeId?: string;
  filename?: string;
  /** The store's name, when the argument knows it (a store file's node, a reference naming it). */
  storeName?: string;
}

interface NodeShape {
  kind?: unknown;
  store?: VectorStore;
  parent?: { store?: VectorStore };
  fileId?: unknown;
  storeId?: unknown;
  filename?: unknown;
  storeName?: unknown;
}

const shape = (value: unknown): NodeShape | undefined => (typeof value === 'object' && value !== null ? (value as NodeShape) : undefined);

/** The store an argument points at: a store's node, or the store of a store file's node. */
export function storeOfArgument(arg: unknown): VectorStore | undefined {
  const node = shape(arg);
  if (node?.kind === 'store') return node.store;
  return node?.kind === 'storeFile' ? node.parent?.store : undefined;
}

/** The file an argument points at: a store file's node or a `{ fileId, storeId?, filename? }` reference. */
export function fileOfArgument(arg: unknown): FileArgument | undefined {
  const node = shape(arg);
  if (typeof node?.fileId !== 'string') return undefined;
  const storeId = typeof node.storeId === 'string' ? node.storeId : node.kind === 'storeFile' ? node.parent?.store?.id : undefined;
  const parent = node.kind === 'storeFile' && node.parent?.store?.id === storeId ? node.parent?.store?.name : undefined;
  const storeName = typeof node.storeName === 'string' ? node.storeName : parent || undefined;
  return {
    fileId: node.fileId,
    storeId,
    filename: typeof node.filename === 'string' ? node.filename : undefined,
    ...(storeName ? { storeName } : {}),
  };
}

/** A full store-file reference (both ids), from a node or a reference. */
export function storeFileRefOfArgument(arg: unknown): StoreFileRef | undefined {
  const file = fileOfArgument(arg);
  return file?.storeId ? { storeId: file.storeId, fileId: file.fileId } : undefined;
}

/** What a tree command was run on: the multi-selection VS Code passes second, else the clicked node. */
export function selectionOfArguments(arg: unknown, args: unknown): unknown[] {
  if (Array.isArray(args) && args.length > 0) return args;
  return arg === undefined ? [] : [arg];
}

/** What to search for, from a chat's answer: the words, and the store when the answer searched one. */
export interface SearchArgument {
  query: string;
  store?: { id: string; name: string };
}

/** A search request (`{ query, store? }`, as the chat's "Search the Documents" passes it), or undefined for anything else. */
export function searchRequestOfArgument(arg: unknown): SearchArgument | undefined {
  const value = shape(arg) as { query?: unknown } | undefined;
  if (typeof value?.query !== 'string' || !value.query.trim() || 'kind' in value) return undefined;
  const store = storeRefOfArgument(arg);
  return { query: value.query, ...(store ? { store } : {}) };
}

/**
 * The store a chat names for a command (`{ store: { id, name } }`: the store to attach files to,
 * or to search), or undefined for anything else, a tree node included (`storeOfArgument` reads those).
 */
export function storeRefOfArgument(arg: unknown): { id: string; name: string } | undefined {
  const value = shape(arg);
  if (!value || 'kind' in value) return undefined;
  const store = shape(value.store) as { id?: unknown; name?: unknown } | undefined;
  if (typeof store?.id !== 'string' || store.id === '') return undefined;
  return { id: store.id, name: typeof store.name === 'string' && store.name ? store.name : store.id };
}
