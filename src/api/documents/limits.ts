/**
 * The documents service's limits and fixed names, which code that never validates a request needs
 * too (the stores tree, the folder sync). No imports: the extension reads these at activation,
 * and keeping this file free of zod lets zod and the schemas load at the first request instead.
 * schemas.ts re-exports them.
 */
export const LIMITS = {
  storeName: { min: 1, max: 63, pattern: /^[A-Za-z0-9_-]+$/ },
  metadata: { maxPairs: 16, maxKeyLength: 64, maxValueLength: 512 },
  query: { min: 1, max: 10_000 },
  maxNumResults: { min: 1, max: 50, default: 10 },
  listLimit: { min: 1, max: 10_000, default: 10_000 },
} as const;

/** Requests per minute per operation. The table in the document, plus "not shown" choices. */
export const DOCUMENTS_RATE_LIMITS = {
  createVectorStore: 30,
  listVectorStores: 120,
  retrieveVectorStore: 120,
  deleteVectorStore: 60, // not shown
  attachFile: 30,
  listVectorStoreFiles: 120, // not shown: same as the other lists
  retrieveVectorStoreFile: 120,
  updateVectorStoreFileMetadata: 60,
  deleteVectorStoreFile: 60, // not shown
  retrieveVectorStoreFileContent: 120, // not shown
  listFiles: 120,
  updateFileMetadata: 60,
  uploadFile: 60, // not shown
  retrieveFile: 120, // not shown
  deleteFile: 60, // not shown
  retrieveFileContent: 120, // not shown
  search: 30,
} as const;
export type DocumentsOperation = keyof typeof DOCUMENTS_RATE_LIMITS;

export const VECTOR_STORE_FILE_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;
export const TERMINAL_FILE_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];
export const DEFAULT_SKIP_OCR_FIELD = 'skip_ocr';
export const DEFAULT_FILE_IDS_FIELD = 'file_ids';
export const DEFAULT_UPLOAD_PURPOSE = 'assistants';
