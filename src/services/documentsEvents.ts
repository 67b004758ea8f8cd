import * as vscode from 'vscode';
import type { FileObject, VectorStore, VectorStoreFile } from '../api/documents/schemas';
import { Disposable } from '../common/lifecycle';

export interface StoreFileChange {
  readonly storeId: string;
  readonly file: VectorStoreFile;
}

/**
 * Changes one feature made that others show: the metadata editor saves a file, the attach flow
 * adds a store file, the chat creates a store. The stores tree listens and redraws only the
 * nodes concerned.
 */
export class DocumentsEvents extends Disposable {
  private readonly _onDidChangeStore = this._register(new vscode.EventEmitter<VectorStore>());
  readonly onDidChangeStore = this._onDidChangeStore.event;
  private readonly _onDidChangeStoreFile = this._register(new vscode.EventEmitter<StoreFileChange>());
  readonly onDidChangeStoreFile = this._onDidChangeStoreFile.event;
  private readonly _onDidChangeFile = this._register(new vscode.EventEmitter<FileObject>());
  readonly onDidChangeFile = this._onDidChangeFile.event;

  /** A store was created or its record changed. */
  storeChanged(store: VectorStore): void {
    this._onDidChangeStore.fire(store);
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
