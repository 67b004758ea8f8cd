/** Canonical documents-service objects as the seeds show them, for tests that need one valid body. */

export const SAMPLE_STORE = { id: 'vs_1', object: 'vector_store', name: 'docs', created_at: 1, expires_at: null, metadata: {} };

export const SAMPLE_FILE = { id: 'file-1', object: 'file', filename: 'a.md', bytes: 3, created_at: 1, metadata: {} };

/** `SAMPLE_FILE` attached to `SAMPLE_STORE`, converted. */
export const SAMPLE_STORE_FILE = {
  id: 'file-1',
  object: 'vector_store.file',
  vector_store_id: 'vs_1',
  created_at: 1,
  status: 'completed',
  last_error: null,
  metadata: {},
};
