/**
 * Load: 50 clients at once against the embedded backend (its per-minute rate limits on), each
 * running a bounded sequence of writes and reads. The only errors allowed are the specified 429s
 * (with a Retry-After); every write that was acknowledged is there afterwards, also after a
 * restart on the same data folder.
 */
import * as assert from 'node:assert/strict';
import { DocumentsClient } from '../../../src/api/documents/client';
import { isDocChatError, RateLimitError } from '../../../src/api/http/errors';
import { startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

const CLIENTS = 50;

interface Outcome {
  stores: Map<string, string>;
  files: Map<string, { metadata: Record<string, string> }>;
  attached: Map<string, string>;
  rateLimited: number;
  unexpected: string[];
}

describe('load: 50 concurrent clients', function () {
  this.timeout(120_000);
  let backend: TestBackend;

  before(async () => {
    backend = await startTestBackend({ rateLimits: true });
  });
  after(() => backend.close());

  it('answers only successes and 429s, and loses nothing', async () => {
    const outcome: Outcome = { stores: new Map(), files: new Map(), attached: new Map(), rateLimited: 0, unexpected: [] };
    /** Runs a step; a 429 is expected under this load, anything else is a failure. */
    const step = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await run();
      } catch (error) {
        if (error instanceof RateLimitError && error.status === 429 && error.retryAfterMs !== undefined && error.retryAfterMs > 0) {
          outcome.rateLimited++;
          return undefined;
        }
        outcome.unexpected.push(`${what}: ${isDocChatError(error) ? `${error.kind} ${error.status} ${error.message}` : String(error)}`);
        return undefined;
      }
    };

    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        // Each client is its own connection pool; no client-side buckets or retries, so the
        // server's answers are seen as they are.
        const client = new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
        try {
          const store = await step('create store', () => client.createVectorStore({ name: `load-${i}`, metadata: { client: String(i) } }));
          if (store) outcome.stores.set(store.id, `load-${i}`);
          const file = await step('upload', () =>
            client.uploadFile({ filename: `c${i}.md`, data: new TextEncoder().encode(`# Client ${i}\n\nloadword${i} appears here.`) }),
          );
          if (file) outcome.files.set(file.id, { metadata: {} });
          if (store && file) {
            const attached = await step('attach', () => client.attachFile(store.id, { file_id: file.id }));
            if (attached) outcome.attached.set(file.id, store.id);
          }
          if (file) {
            const metadata = { owner: `client-${i}`, step: 'final' };
            const updated = await step('file metadata', () => client.updateFileMetadata(file.id, metadata));
            if (updated) outcome.files.set(file.id, { metadata });
          }
          await step('list stores', () => client.listVectorStores({ limit: 100 }));
          await step('list files', () => client.listFiles({ limit: 100 }));
          if (store) await step('search', () => client.search(store.id, { query: `loadword${i}` }));
        } finally {
          await client.close();
        }
      }),
    );

    assert.deepEqual(outcome.unexpected, [], 'no errors other than 429');
    // The document's table allows 30 store creations a minute: 50 at once must see some refused.
    assert.ok(outcome.rateLimited > 0, 'the rate limits were reached');
    assert.ok(outcome.stores.size >= 1 && outcome.stores.size <= 30, `${outcome.stores.size} stores created within the limit of 30`);

    // Everything acknowledged is there, also after a restart (limits off for the checks).
    await backend.restart({ rateLimits: false });
    for (const [id, name] of outcome.stores) {
      const store = await backend.docs('GET', `/v1/vector_stores/${id}`);
      assert.equal(store.status, 200, `store ${name}`);
      assert.equal(store.json.name, name);
    }
    for (const [id, { metadata }] of outcome.files) {
      const file = await backend.docs('GET', `/v1/files/${id}`);
      assert.equal(file.status, 200, `file ${id}`);
      assert.deepEqual(file.json.metadata, metadata);
    }
    for (const [fileId, storeId] of outcome.attached) {
      const record = await backend.waitUntilProcessed(storeId, fileId);
      assert.equal(record.json.status, 'completed', `${fileId}: ${record.json.last_error}`);
    }
    const listed = await backend.docs('GET', '/v1/vector_stores?limit=10000');
    assert.equal(
      listed.json.data.filter((s: { name: string }) => s.name.startsWith('load-')).length,
      outcome.stores.size,
      'no extra or missing stores',
    );
    const files = await backend.docs('GET', '/v1/files?limit=10000');
    assert.equal(files.json.data.length, outcome.files.size, 'no duplicated or missing files');
  });
});
