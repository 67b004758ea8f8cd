import * as vscode from 'vscode';
import type { FileObject, VectorStore, VectorStoreFile } from '../api/documents/schemas';
import { Disposable } from '../common/lifecycle';

export interface StoreFileChange {
  readonly storeId: string;
  readonly file: VectorStoreFile;
}

export interface StoresListed {
  readonly stores: readonly VectorStore[];
  readonly complete: boolean;
}

/**
 * Changes one feature made that others show: the metadata editor saves a file, the attach flow
 * adds a store file, the chat creates a store. The stores tree listens and redraws only the
 * nodes concerned; the chat's store list follows the tree (created, renamed, deleted, listed).
 */
export class DocumentsEvents extends Disposable {
  private readonly _onDidChangeStore = this._register(new vscode.EventEmitter<VectorStore>());
  readonly onDidChangeStore = this._onDidChangeStore.event;
  private readonly _onDidDeleteStore = this._register(new vscode.EventEmitter<string>());
  /** A store was deleted (or found gone): its id. */
  readonly onDidDeleteStore = this._onDidDeleteStore.event;
  private readonly _onDidListStores = this._register(new vscode.EventEmitter<StoresListed>());
  /** The stores tree showed its list of stores. */
  readonly onDidListStores = this._onDidListStores.event;
  private readonly _onDidChangeStoreFile = this._register(new vscode.EventEmitter<StoreFileChange>());
  readonly onDidChangeStoreFile = this._onDidChangeStoreFile.event;
  private readonly _onDidChangeFile = this._register(new vscode.EventEmitter<FileObject>());
  readonly onDidChangeFile = this._onDidChangeFile.event;

  /** A store was created or its record changed. */
  storeChanged(store: VectorStore): void {
    this._onDidChangeStore.fire(store);
  }

  /** A store was deleted, or a request found it gone. */
  storeDeleted(storeId: string): void {
    this._onDidDeleteStore.fire(storeId);
  }

  /** The stores tree listed `stores` (`complete`: every store, not only a first page). */
  storesListed(stores: readonly VectorStore[], complete: boolean): void {
    this._onDidListStores.fire({ stores, complete });
  }

  /** A file was attached to a store, or its status or metadata changed. */
  storeFileChanged(storeId: string, file: VectorStoreFile): void {
    this._onDidChangeStoreFile.fire({ storeId, file });
  }

  /** A file record (name, metadata) changed or was uploaded. */
  fileChanged(file: FileObject): void {
    this._onDidChangeFile.fire(file);
  }
}
