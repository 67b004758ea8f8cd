import assert from 'node:assert/strict';
import { startTestBackend, type TestBackend } from '../helpers';

describe('backend: vector store files', () => {
  let t: TestBackend;
  let storeId: string;
  beforeEach(async () => {
    t = await startTestBackend({ rateLimits: false, maxConvertBytes: 4096 });
    storeId = await t.createStore('kb');
  });
  afterEach(async () => t.close());

  it('attaches a file: in_progress, then completed, with counts and usage on the store', async () => {
    const fileId = (await t.upload('guide.md', '# Guide\n\nInstall with npm.')).json.id;
    const attached = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: fileId, metadata: { lang: 'en' } });
    assert.equal(attached.status, 200);
    assert.equal(attached.json.id, fileId, 'the store file id equals the file id');
    assert.equal(attached.json.object, 'vector_store.file');
    assert.equal(attached.json.vector_store_id, storeId);
    assert.equal(attached.json.status, 'in_progress');
    assert.equal(attached.json.last_error, null);
    assert.deepEqual(attached.json.metadata, { lang: 'en' });

    const done = await t.waitUntilProcessed(storeId, fileId);
    assert.equal(done.json.status, 'completed');
    assert.equal(done.json.last_error, null);
    assert.ok(done.json.usage_bytes > 0);

    const store = (await t.docs('GET', `/v1/vector_stores/${storeId}`)).json;
    assert.deepEqual(store.file_counts, { in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 });
    assert.equal(store.usage_bytes, done.json.usage_bytes);

    const list = await t.docs('GET', `/v1/vector_stores/${storeId}/files`);
    assert.equal(list.json.object, 'list');
    assert.equal(list.json.vector_store_id, storeId);
    assert.deepEqual(
      list.json.data.map((f: { id: string }) => f.id),
      [fileId],
    );
    assert.equal(list.json.first_id, fileId);
    assert.equal(list.json.has_more, false);

    const content = await t.docs('GET', `/v1/vector_stores/${storeId}/files/${fileId}/content`);
    assert.equal(content.json.object, 'vector_store.file_content.page');
    assert.deepEqual(content.json.data, [{ type: 'text', text: '# Guide\n\nInstall with npm.\n' }]);
  });

  it('updates store-file metadata with the same limits', async () => {
    const done = await t.ingest(storeId, 'a.md', 'alpha');
    const path = `/v1/vector_stores/${storeId}/files/${done.json.id}`;
    const updated = await t.docs('PUT', path, { metadata: { reviewed: 'yes' } });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.json.metadata, { reviewed: 'yes' });
    assert.equal(updated.json.status, 'completed', 'a metadata change keeps the status');
    assert.deepEqual((await t.docs('GET', path)).json.metadata, { reviewed: 'yes' });
    const bad = await t.docs('PUT', path, { metadata: { ['k'.repeat(65)]: 'v' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, 'metadata_key_too_long');
  });

  it('refuses the metadata key __proto__ with a 400 that names it, and keeps the metadata it had', async () => {
    const done = await t.ingest(storeId, 'a.md', 'alpha');
    const path = `/v1/vector_stores/${storeId}/files/${done.json.id}`;
    assert.equal((await t.docs('PUT', path, { metadata: { reviewed: 'yes' } })).status, 200);
    // A computed key makes `__proto__` an own property, as JSON.parse does on the server.
    const reply = await t.docs('PUT', path, { metadata: { ['__proto__']: 'x', team: 'docs' } });
    assert.equal(reply.status, 400, JSON.stringify(reply.json));
    assert.equal(reply.json.error.param, 'metadata');
    assert.equal(reply.json.error.code, 'metadata_key_reserved');
    assert.match(reply.json.error.message, /__proto__/);
    assert.deepEqual((await t.docs('GET', path)).json.metadata, { reviewed: 'yes' });
    const attach = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: done.json.id, metadata: { ['__proto__']: 'x' } });
    assert.equal(attach.status, 400);
    assert.equal(attach.json.error.code, 'metadata_key_reserved');
  });

  it('detaches a store file and keeps the file', async () => {
    const done = await t.ingest(storeId, 'a.md', 'alpha beta');
    const fileId = done.json.id;
    const deleted = await t.docs('DELETE', `/v1/vector_stores/${storeId}/files/${fileId}`);
    assert.deepEqual(deleted.json, { id: fileId, object: 'vector_store.file.deleted', deleted: true });
    assert.equal((await t.docs('GET', `/v1/vector_stores/${storeId}/files/${fileId}`)).status, 404);
    assert.equal((await t.docs('GET', `/v1/files/${fileId}`)).status, 200);
    const search = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'alpha' });
    assert.deepEqual(search.json.data, []);
  });

  it('deleting a file removes it from every store', async () => {
    const other = await t.createStore('other');
    const done = await t.ingest(storeId, 'a.md', 'gamma delta');
    await t.docs('POST', `/v1/vector_stores/${other}/files`, { file_id: done.json.id });
    await t.waitUntilProcessed(other, done.json.id);
    await t.docs('DELETE', `/v1/files/${done.json.id}`);
    for (const store of [storeId, other]) {
      assert.equal((await t.docs('GET', `/v1/vector_stores/${store}/files/${done.json.id}`)).status, 404);
      assert.deepEqual((await t.docs('POST', `/v1/vector_stores/${store}/search`, { query: 'gamma' })).json.data, []);
    }
  });

  it('answers 404 for unknown stores and files', async () => {
    const fileId = (await t.upload('a.md', 'x')).json.id;
    const noStore = await t.docs('POST', '/v1/vector_stores/vs_nope/files', { file_id: fileId });
    assert.equal(noStore.status, 404);
    assert.equal(noStore.json.error.param, 'vector_store_id');
    const noFile = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: 'file-nope' });
    assert.equal(noFile.status, 404);
    assert.equal(noFile.json.error.param, 'file_id');
    assert.equal((await t.docs('GET', `/v1/vector_stores/${storeId}/files/file-nope`)).status, 404);
    assert.equal((await t.docs('PUT', `/v1/vector_stores/${storeId}/files/file-nope`, { metadata: {} })).status, 404);
    assert.equal((await t.docs('DELETE', `/v1/vector_stores/${storeId}/files/file-nope`)).status, 404);
    assert.equal((await t.docs('GET', '/v1/vector_stores/vs_nope/files')).status, 404);
  });

  it('validates the attach request', async () => {
    const fileId = (await t.upload('a.md', 'x')).json.id;
    const missing = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, {});
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error.param, 'file_id');
    const skip = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: fileId, skip_ocr: 'yes' });
    assert.equal(skip.status, 400);
    assert.equal(skip.json.error.param, 'skip_ocr');
    const meta = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: fileId, metadata: { k: 'v'.repeat(513) } });
    assert.equal(meta.status, 400);
    assert.equal(meta.json.error.param, 'metadata');
  });

  it('attaching an attached file again with other metadata sets that metadata, and without metadata keeps it', async () => {
    const first = await t.ingest(storeId, 'again.md', 'hello again', { metadata: { owner: 'ana' } });
    assert.equal(first.json.status, 'completed');
    const path = `/v1/vector_stores/${storeId}/files`;
    const same = await t.docs('POST', path, { file_id: first.json.id });
    assert.deepEqual(same.json.metadata, { owner: 'ana' });
    const changed = await t.docs('POST', path, { file_id: first.json.id, metadata: { owner: 'ben', team: 'ops' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.status, 'completed', 'not converted again');
    assert.deepEqual(changed.json.metadata, { owner: 'ben', team: 'ops' });
    assert.deepEqual((await t.docs('GET', `${path}/${first.json.id}`)).json.metadata, { owner: 'ben', team: 'ops' });
  });

  it("refuses metadata and OpenAI's attributes together, and a chunking strategy it cannot honour, naming them", async () => {
    const fileId = (await t.upload('both.md', 'both')).json.id;
    const path = `/v1/vector_stores/${storeId}/files`;
    const both = await t.docs('POST', path, { file_id: fileId, metadata: { a: '1' }, attributes: { a: '2' } });
    assert.equal(both.status, 400);
    assert.equal(both.json.error.param, 'attributes');
    assert.match(both.json.error.message, /metadata or attributes/);
    const fixed = await t.docs('POST', path, {
      file_id: fileId,
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100 } },
    });
    assert.equal(fixed.status, 400);
    assert.equal(fixed.json.error.param, 'chunking_strategy');
    assert.match(fixed.json.error.message, /"auto"/);
    assert.equal((await t.docs('GET', path)).json.data.length, 0, 'nothing attached by a refused request');
    const none = await t.docs('PUT', `${path}/${fileId}`, {});
    assert.equal(none.status, 400);
  });

  it('is idempotent for an attached file and retries a failed one', async () => {
    const first = await t.ingest(storeId, 'a.md', 'hello');
    const again = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: first.json.id });
    assert.equal(again.json.status, 'completed');
    const list = await t.docs('GET', `/v1/vector_stores/${storeId}/files`);
    assert.equal(list.json.data.length, 1);

    const failed = await t.ingest(storeId, 'big.md', 'x'.repeat(5000));
    assert.equal(failed.json.status, 'failed');
    const retried = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: failed.json.id });
    assert.equal(retried.json.status, 'in_progress');
    assert.equal((await t.waitUntilProcessed(storeId, failed.json.id)).json.status, 'failed');
  });

  it('fails clearly for unsupported, corrupt, too large and empty files', async () => {
    const heic = await t.ingest(storeId, 'photo.heic', Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70]));
    assert.equal(heic.json.status, 'failed');
    assert.match(
      heic.json.last_error,
      /Unsupported file type: photo\.heic is an HEIC photo, which OCR cannot read; export it as PNG or JPEG/,
    );
    const png = await t.ingest(storeId, 'photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    assert.equal(png.json.status, 'failed');
    assert.match(png.json.last_error, /photo\.png is not a readable image/);

    const binary = await t.ingest(storeId, 'blob.dat', Buffer.from([1, 0, 2, 0, 3]));
    assert.equal(binary.json.status, 'failed');
    assert.match(binary.json.last_error, /Unsupported file type/);

    const pdf = await t.ingest(storeId, 'broken.pdf', 'not a pdf at all');
    assert.equal(pdf.json.status, 'failed');
    assert.match(pdf.json.last_error, /not a valid PDF/);

    const large = await t.ingest(storeId, 'large.txt', 'y'.repeat(4097));
    assert.equal(large.json.status, 'failed');
    assert.match(large.json.last_error, /too large to convert.*limit is 4 KiB/);

    const empty = await t.ingest(storeId, 'empty.txt', '');
    assert.equal(empty.json.status, 'failed');
    assert.match(empty.json.last_error, /empty/);

    const counts = (await t.docs('GET', `/v1/vector_stores/${storeId}`)).json.file_counts;
    assert.equal(counts.failed, 6);
    const failedOnly = await t.docs('GET', `/v1/vector_stores/${storeId}/files?filter=failed`);
    assert.equal(failedOnly.json.data.length, 6);
    assert.equal((await t.docs('GET', `/v1/vector_stores/${storeId}/files?filter=completed`)).json.data.length, 0);
    assert.equal((await t.docs('GET', `/v1/vector_stores/${storeId}/files?filter=done`)).status, 400);
    const content = await t.docs('GET', `/v1/vector_stores/${storeId}/files/${png.json.id}/content`);
    // A failed conversion is final: the answer says it failed and why, not "not converted yet".
    assert.equal(content.status, 400);
    assert.equal(content.json.error.code, 'file_not_converted');
    assert.match(content.json.error.message, /could not be converted, so it has no text: .*photo\.png is not a readable image/);
    assert.doesNotMatch(content.json.error.message, /yet/);
  });

  it('lists store files with pagination limits', async () => {
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await t.ingest(storeId, `${name}.md`, name)).json.id);
    const page = await t.docs('GET', `/v1/vector_stores/${storeId}/files?order=asc&limit=2`);
    assert.deepEqual(
      page.json.data.map((f: { id: string }) => f.id),
      ids.slice(0, 2),
    );
    assert.equal(page.json.has_more, true);
    const rest = await t.docs('GET', `/v1/vector_stores/${storeId}/files?order=asc&after=${page.json.last_id}`);
    assert.deepEqual(
      rest.json.data.map((f: { id: string }) => f.id),
      ids.slice(2),
    );
    assert.equal((await t.docs('GET', `/v1/vector_stores/${storeId}/files?limit=10001`)).status, 400);
    const empty = await t.docs('GET', `/v1/vector_stores/${await t.createStore('empty')}/files`);
    assert.deepEqual([empty.json.first_id, empty.json.last_id, empty.json.has_more], [null, null, false]);
  });
});
