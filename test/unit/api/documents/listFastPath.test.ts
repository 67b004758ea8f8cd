import assert from 'node:assert/strict';
import {
  fileObjectSchema,
  isCanonicalFileObject,
  isCanonicalVectorStore,
  isCanonicalVectorStoreFile,
  listSchema,
  parseListFast,
  vectorStoreFileSchema,
  vectorStoreSchema,
} from '../../../../src/api/documents/schemas';
import { SAMPLE_FILE, SAMPLE_STORE_FILE } from '../../../support/wireSamples';

/**
 * The list fast path skips zod for items already in their canonical shape. It is only correct if
 * zod would have returned those items unchanged: every item the plain check accepts must equal
 * zod's output, and everything else must take the zod path.
 */
const cases = {
  store: {
    schema: vectorStoreSchema,
    isCanonical: isCanonicalVectorStore,
    items: [
      { id: 'vs_1', object: 'vector_store', name: 'a', created_at: 1, expires_at: null, metadata: {} },
      {
        id: 'vs_2',
        name: 'b',
        metadata: { k: 'v' },
        file_counts: { in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 },
        extra: [1],
      },
      { id: 'vs_3', name: 'c', metadata: { n: 5 } },
      { id: 'vs_4', name: 'd' },
      { id: 'vs_5', name: 'e', metadata: {}, expires_at: '2026' },
      { id: 'vs_6', name: 'f', metadata: {}, status: 'brand_new_status' },
    ],
  },
  file: {
    schema: fileObjectSchema,
    isCanonical: isCanonicalFileObject,
    items: [
      SAMPLE_FILE,
      { id: 'file-2', filename: 'b.md', url: null, metadata: { k: 'v' }, unknown_field: true },
      { id: 'file-3', filename: 'c.md' },
      { id: 'file-4', filename: 'd.md', bytes: '3', metadata: {} },
    ],
  },
  storeFile: {
    schema: vectorStoreFileSchema,
    isCanonical: isCanonicalVectorStoreFile,
    items: [
      SAMPLE_STORE_FILE,
      { id: 'file-2', vector_store_id: 'vs_1', status: 'failed', last_error: { code: 'x', message: 'broken' }, metadata: {} },
      { id: 'file-3', vector_store_id: 'vs_1', status: 'failed', last_error: 'broken', metadata: {} },
      { id: 'file-4', vector_store_id: 'vs_1', status: 'some_new_status', last_error: null },
    ],
  },
};

describe('documents list fast path', () => {
  for (const [name, { schema, isCanonical, items }] of Object.entries(cases)) {
    it(`${name}: an item the plain check accepts is exactly what zod returns`, () => {
      let accepted = 0;
      let rejected = 0;
      for (const item of items) {
        const parsed = (schema as { safeParse(v: unknown): { success: boolean; data?: unknown } }).safeParse(structuredClone(item));
        if (isCanonical(item)) {
          accepted++;
          assert.ok(parsed.success, `zod accepts ${JSON.stringify(item)}`);
          assert.deepEqual(parsed.data, item);
        } else {
          rejected++;
        }
      }
      assert.ok(accepted > 0 && rejected > 0, 'the samples exercise both paths');
    });

    it(`${name}: a page gives the same envelope through the fast path and through zod`, () => {
      const list = listSchema(schema as never, isCanonical);
      for (const data of [items.filter((i) => isCanonical(i)), items]) {
        const page = { object: 'list', data: structuredClone(data), first_id: data[0]?.id ?? null, last_id: null, has_more: false };
        const fast = parseListFast(list, page)?.data;
        if (data.every((i) => isCanonical(i))) {
          assert.deepEqual(fast, list.full.parse(structuredClone(page)));
        } else {
          assert.equal(fast, undefined, 'a page with a non-canonical item goes through zod');
        }
      }
    });
  }
});
