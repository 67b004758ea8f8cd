/**
 * The in-memory state of the documents service. Every change goes through `apply` with a
 * journal op, so replaying the journal after a restart rebuilds exactly this state. Ops are
 * idempotent (whole-record puts and deletes): replaying one twice changes nothing.
 */
import type { FileRecord, JournalOp, StoreFileRecord, StoreRecord } from './model';

export interface StateSnapshot {
  stores: StoreRecord[];
  files: FileRecord[];
  storeFiles: StoreFileRecord[];
}

/** A record plus its creation order, which breaks ties between equal `created_at` seconds. */
export interface Ordered<T> {
  record: T;
  ordinal: number;
}

export class DocumentsState {
  readonly stores = new Map<string, Ordered<StoreRecord>>();
  readonly files = new Map<string, Ordered<FileRecord>>();
  /** store id -> file id -> record */
  readonly storeFiles = new Map<string, Map<string, Ordered<StoreFileRecord>>>();
  /** Ordinals of deleted objects, so a list cursor naming one still has a position. */
  readonly tombstones = new Map<string, number>();
  private nextOrdinal = 1;

  apply(op: JournalOp): void {
    switch (op.op) {
      case 'store.put':
        this.put(this.stores, op.store.id, op.store);
        if (!this.storeFiles.has(op.store.id)) this.storeFiles.set(op.store.id, new Map());
        break;
      case 'store.delete':
        this.remove(this.stores, op.id);
        this.storeFiles.delete(op.id);
        break;
      case 'file.put':
        this.put(this.files, op.file.id, op.file);
        break;
      case 'file.delete':
        this.remove(this.files, op.id);
        for (const [storeId, files] of this.storeFiles) this.removeStoreFile(files, storeId, op.id);
        break;
      case 'storefile.put': {
        const files = this.storeFiles.get(op.record.vector_store_id);
        // A put for a store deleted later in the journal: the delete wins.
        if (files) this.put(files, op.record.id, op.record);
        break;
      }
      case 'storefile.delete': {
        const files = this.storeFiles.get(op.storeId);
        if (files) this.removeStoreFile(files, op.storeId, op.fileId);
        break;
      }
    }
  }

  snapshot(): StateSnapshot {
    const storeFiles: StoreFileRecord[] = [];
    for (const files of this.storeFiles.values()) for (const f of files.values()) storeFiles.push(f.record);
    return {
      stores: [...this.stores.values()].map((s) => s.record),
      files: [...this.files.values()].map((f) => f.record),
      storeFiles,
    };
  }

  load(snapshot: StateSnapshot): void {
    for (const store of snapshot.stores) this.apply({ op: 'store.put', store });
    for (const file of snapshot.files) this.apply({ op: 'file.put', file });
    for (const record of snapshot.storeFiles) this.apply({ op: 'storefile.put', record });
  }

  storeFile(storeId: string, fileId: string): StoreFileRecord | undefined {
    return this.storeFiles.get(storeId)?.get(fileId)?.record;
  }

  /** Stores the file is attached to. */
  storesOfFile(fileId: string): string[] {
    const out: string[] = [];
    for (const [storeId, files] of this.storeFiles) if (files.has(fileId)) out.push(storeId);
    return out;
  }

  private put<T>(map: Map<string, Ordered<T>>, id: string, record: T): void {
    const existing = map.get(id);
    if (existing) existing.record = record;
    else map.set(id, { record, ordinal: this.nextOrdinal++ });
  }

  private remove<T>(map: Map<string, Ordered<T>>, id: string): void {
    const existing = map.get(id);
    if (!existing) return;
    this.tombstones.set(id, existing.ordinal);
    map.delete(id);
  }

  private removeStoreFile(files: Map<string, Ordered<StoreFileRecord>>, storeId: string, fileId: string): void {
    const existing = files.get(fileId);
    if (!existing) return;
    this.tombstones.set(`${storeId}/${fileId}`, existing.ordinal);
    files.delete(fileId);
  }
}
