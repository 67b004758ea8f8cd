/**
 * Contract tests: the documents client of src/api against the real embedded backend. Every
 * endpoint through the client, the errors it maps, and the same refusal (same sentence) from the
 * client's pre-check and the backend's 400 for the limits both enforce.
 */
import assert from 'node:assert/strict';
import { AuthError, NotFoundError, RateLimitError, ValidationError } from '../../../../src/api/http/errors';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { makePdf, startTestBackend, TOKEN, type TestBackend } from '../helpers';

describe('contract: DocumentsClient <-> embedded backend', () => {
  let t: TestBackend;
  let client: DocumentsClient;
  beforeEach(async () => {
    t = await startTestBackend({ rateLimits: false });
    client = new DocumentsClient({ baseUrl: t.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
  });
  afterEach(async () => {
    await client.close();
    await t.close();
  });

  it('covers the whole lifecycle: stores, files, attach, status, content, search, deletes', async () => {
    const store = await client.createVectorStore({ name: 'contract', metadata: { team: 'qa' } });
    assert.equal(store.name, 'contract');
    assert.deepEqual(store.metadata, { team: 'qa' });
    assert.equal((await client.retrieveVectorStore(store.id)).id, store.id);
    assert.deepEqual(
      (await client.listVectorStores()).data.map((s) => s.id),
      [store.id],
    );

    const file = await client.uploadFile({
      filename: 'guide.md',
      data: Buffer.from('# Guide\n\nThe ferry leaves at noon from pier four.'),
    });
    assert.equal(file.filename, 'guide.md');
    assert.equal((await client.retrieveFile(file.id)).bytes, file.bytes);
    assert.deepEqual(
      Buffer.from(await client.retrieveFileContent(file.id)).toString(),
      '# Guide\n\nThe ferry leaves at noon from pier four.',
    );
    assert.deepEqual((await client.updateFileMetadata(file.id, { owner: 'ana' })).metadata, { owner: 'ana' });
    assert.deepEqual(
      (await client.listFiles()).data.map((f) => f.id),
      [file.id],
    );

    const attached = await client.attachFile(store.id, { file_id: file.id, metadata: { lang: 'en' } });
    assert.equal(attached.status, 'in_progress');
    const statuses: string[] = [];
    const done = await client.waitUntilProcessed(store.id, file.id, {
      initialDelayMs: 5,
      maxDelayMs: 20,
      onStatus: (f) => statuses.push(f.status),
    });
    assert.equal(done.status, 'completed');
    assert.equal(done.last_error, null);
    assert.equal(statuses.at(-1), 'completed');
    assert.deepEqual(
      (await client.listVectorStoreFiles(store.id)).data.map((f) => f.id),
      [file.id],
    );
    assert.equal((await client.retrieveVectorStoreFile(store.id, file.id)).vector_store_id, store.id);
    assert.deepEqual((await client.updateVectorStoreFileMetadata(store.id, file.id, { lang: 'de' })).metadata, { lang: 'de' });
    assert.equal(await client.retrieveVectorStoreFileContent(store.id, file.id), '# Guide\n\nThe ferry leaves at noon from pier four.\n');

    const result = await client.search(store.id, { query: 'when does the ferry leave', max_num_results: 5, file_ids: [file.id] });
    assert.equal(result.data[0]!.file_id, file.id);
    assert.match(result.data[0]!.content, /ferry leaves at noon/);
    assert.ok(result.data[0]!.score > 0 && result.data[0]!.score <= 1);
    assert.deepEqual(result.files, [file.id]);

    await client.deleteVectorStoreFile(store.id, file.id);
    await assert.rejects(client.retrieveVectorStoreFile(store.id, file.id), NotFoundError);
    await client.deleteFile(file.id);
    await assert.rejects(client.retrieveFile(file.id), NotFoundError);
    await client.deleteVectorStore(store.id);
    await assert.rejects(client.retrieveVectorStore(store.id), NotFoundError);
  });

  it('sends the skip-OCR option under its wire name and gets the clear failure back', async () => {
    const store = await client.createVectorStore({ name: 'scans' });
    const file = await client.uploadFile({ filename: 'scan.pdf', data: makePdf([{ image: true }]) });
    await client.attachFile(store.id, { file_id: file.id, skipOcr: true });
    const done = await client.waitUntilProcessed(store.id, file.id, { initialDelayMs: 5, maxDelayMs: 20 });
    assert.equal(done.status, 'failed');
    assert.match(done.last_error ?? '', /OCR was skipped \(skip_ocr: true\)/);
  });

  it('pages through every store with the paginator', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await client.createVectorStore({ name: `p${i}` })).id);
    const seen: string[] = [];
    for await (const store of client.vectorStores({ limit: 3, order: 'asc' })) seen.push(store.id);
    assert.deepEqual(seen, ids);
    const page = await client.listVectorStores({ limit: 2, order: 'desc' });
    assert.equal(page.hasMore, true);
    assert.deepEqual(
      page.data.map((s) => s.id),
      [ids[6], ids[5]],
    );

    const fileIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const file = await client.uploadFile({ filename: `f${i}.txt`, data: Buffer.from(`file ${i}`) });
      fileIds.push(file.id);
      await client.attachFile(ids[0]!, { file_id: file.id });
    }
    const files: string[] = [];
    for await (const file of client.files({ limit: 2, order: 'asc' })) files.push(file.id);
    assert.deepEqual(files, fileIds);
    const storeFiles: string[] = [];
    for await (const file of client.vectorStoreFiles(ids[0]!, { limit: 2, order: 'asc' })) storeFiles.push(file.id);
    assert.deepEqual(storeFiles, fileIds);
  });

  it('maps 401 to AuthError and 404 to NotFoundError', async () => {
    const wrong = new DocumentsClient({ baseUrl: t.url, token: 'wrong', rateLimits: false, transport: { maxRetries: 0 } });
    await assert.rejects(wrong.listVectorStores(), (e: unknown) => e instanceof AuthError && e.status === 401);
    await wrong.close();
    await assert.rejects(
      client.retrieveVectorStore('vs_missing'),
      (e: unknown) => e instanceof NotFoundError && e.status === 404 && typeof e.requestId === 'string',
    );
    await assert.rejects(client.attachFile((await client.createVectorStore({ name: 'x' })).id, { file_id: 'file-missing' }), NotFoundError);
  });

  it('maps 429 to RateLimitError with the server-given wait', async () => {
    await t.restart({ rateLimits: { listFiles: 1 } });
    const limited = new DocumentsClient({ baseUrl: t.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
    await limited.listFiles();
    await assert.rejects(
      limited.listFiles(),
      (e: unknown) => e instanceof RateLimitError && e.status === 429 && (e.retryAfterMs ?? 0) > 0 && (e.retryAfterMs ?? 0) <= 60_000,
    );
    await limited.close();
  });

  describe('the client and the backend refuse the same input with the same sentence', () => {
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    const cases: {
      label: string;
      client: (c: DocumentsClient) => Promise<unknown>;
      raw: () => Promise<{ status: number; json: { error: { message: string } } }>;
    }[] = [
      {
        label: 'a 64-character name',
        client: (c) => c.createVectorStore({ name: 'n'.repeat(64) }),
        raw: () => t.docs('POST', '/v1/vector_stores', { name: 'n'.repeat(64) }),
      },
      {
        label: 'a name with a space',
        client: (c) => c.createVectorStore({ name: 'a b' }),
        raw: () => t.docs('POST', '/v1/vector_stores', { name: 'a b' }),
      },
      {
        label: '17 metadata pairs',
        client: (c) => c.createVectorStore({ name: 'm', metadata: pairs(17) }),
        raw: () => t.docs('POST', '/v1/vector_stores', { name: 'm', metadata: pairs(17) }),
      },
      {
        label: 'a 513-character value',
        client: (c) => c.createVectorStore({ name: 'm', metadata: { k: 'v'.repeat(513) } }),
        raw: () => t.docs('POST', '/v1/vector_stores', { name: 'm', metadata: { k: 'v'.repeat(513) } }),
      },
    ];
    for (const c of cases) {
      it(c.label, async () => {
        const clientError = await c.client(client).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(clientError instanceof ValidationError, 'the client refuses before sending');
        const raw = await c.raw();
        assert.equal(raw.status, 400);
        assert.equal(raw.json.error.message, clientError.message);
      });
    }

    it('limits that only the client checks still reach the same limit on the backend', async () => {
      const store = await client.createVectorStore({ name: 's' });
      await assert.rejects(client.search(store.id, { query: 'q'.repeat(10_001) }), ValidationError);
      assert.equal((await t.docs('POST', `/v1/vector_stores/${store.id}/search`, { query: 'q'.repeat(10_001) })).status, 400);
      await assert.rejects(client.search(store.id, { query: 'q', max_num_results: 51 }), ValidationError);
      assert.equal((await t.docs('POST', `/v1/vector_stores/${store.id}/search`, { query: 'q', max_num_results: 51 })).status, 400);
      await assert.rejects(client.listVectorStores({ limit: 10_001 }), ValidationError);
      assert.equal((await t.docs('GET', '/v1/vector_stores?limit=10001')).status, 400);
    });
  });
});
