/** Records the documents service keeps, and the wire objects made from them. */
export type Metadata = Record<string, string>;

export interface ExpiresAfter {
  anchor: 'last_active_at';
  days: number;
}

export interface StoreRecord {
  id: string;
  name: string;
  created_at: number;
  last_active_at: number;
  metadata: Metadata;
  expires_after: ExpiresAfter | null;
}

export interface FileRecord {
  id: string;
  filename: string;
  bytes: number;
  created_at: number;
  purpose: string;
  metadata: Metadata;
}

export type StoreFileStatus = 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface StoreFileRecord {
  /** Equals the id of the attached file. */
  id: string;
  vector_store_id: string;
  created_at: number;
  status: StoreFileStatus;
  last_error: string | null;
  metadata: Metadata;
  skip_ocr: boolean;
  /** Size of the converted markdown, 0 until completed. */
  usage_bytes: number;
  chunk_count: number;
}

export type JournalOp =
  | { op: 'store.put'; store: StoreRecord }
  | { op: 'store.delete'; id: string }
  | { op: 'file.put'; file: FileRecord }
  | { op: 'file.delete'; id: string }
  | { op: 'storefile.put'; record: StoreFileRecord }
  | { op: 'storefile.delete'; storeId: string; fileId: string };

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function expiresAt(store: StoreRecord): number | null {
  return store.expires_after ? store.last_active_at + store.expires_after.days * 86_400 : null;
}

export function fileObject(file: FileRecord, origin: string) {
  return {
    id: file.id,
    object: 'file',
    filename: file.filename,
    url: `${origin}/v1/files/${encodeURIComponent(file.id)}/content`,
    bytes: file.bytes,
    created_at: file.created_at,
    purpose: file.purpose,
    status: 'processed',
    metadata: file.metadata,
  };
}

export function storeFileObject(record: StoreFileRecord) {
  return {
    id: record.id,
    object: 'vector_store.file',
    vector_store_id: record.vector_store_id,
    created_at: record.created_at,
    status: record.status,
    last_error: record.last_error,
    metadata: record.metadata,
    usage_bytes: record.usage_bytes,
    chunk_count: record.chunk_count,
  };
}

export function storeObject(store: StoreRecord, files: Iterable<StoreFileRecord>) {
  const counts = { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 };
  let usageBytes = 0;
  for (const file of files) {
    counts[file.status]++;
    counts.total++;
    usageBytes += file.usage_bytes;
  }
  const expires = expiresAt(store);
  const expired = expires !== null && expires <= nowSeconds();
  return {
    id: store.id,
    object: 'vector_store',
    name: store.name,
    created_at: store.created_at,
    expires_at: expires,
    expires_after: store.expires_after,
    last_active_at: store.last_active_at,
    metadata: store.metadata,
    status: expired ? 'expired' : counts.in_progress > 0 ? 'in_progress' : 'completed',
    usage_bytes: usageBytes,
    file_counts: counts,
  };
}
