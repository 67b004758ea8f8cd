import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { call, multipart, peakBufferGrowth, startTestBackend, TOKEN, type TestBackend } from '../helpers';

describe('backend: files', () => {
  let t: TestBackend;
  beforeEach(async () => {
    t = await startTestBackend({ rateLimits: false, maxUploadBytes: 1024 });
  });
  afterEach(async () => t.close());

  it('uploads, retrieves, lists, updates metadata, returns the bytes and deletes', async () => {
    const uploaded = await t.upload('notes.md', '# Notes\n\nhello', { metadata: JSON.stringify({ owner: 'ana' }) });
    assert.equal(uploaded.status, 200, uploaded.text);
    const file = uploaded.json;
    assert.match(file.id, /^file-/);
    assert.equal(file.object, 'file');
    assert.equal(file.filename, 'notes.md');
    assert.equal(file.bytes, 14);
    assert.equal(file.purpose, 'assistants');
    assert.deepEqual(file.metadata, { owner: 'ana' });
    assert.equal(file.url, `${t.url}/v1/files/${file.id}/content`);
    assert.ok(Number.isInteger(file.created_at));

    assert.deepEqual((await t.docs('GET', `/v1/files/${file.id}`)).json, file);
    const list = await t.docs('GET', '/v1/files');
    assert.deepEqual(
      list.json.data.map((f: { id: string }) => f.id),
      [file.id],
    );

    const updated = await t.docs('PUT', `/v1/files/${file.id}`, { metadata: { owner: 'bo', topic: 'x' } });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.json.metadata, { owner: 'bo', topic: 'x' });
    assert.deepEqual((await t.docs('GET', `/v1/files/${file.id}`)).json.metadata, { owner: 'bo', topic: 'x' });

    const content = await t.docs('GET', `/v1/files/${file.id}/content`);
    assert.equal(content.status, 200);
    assert.equal(content.text, '# Notes\n\nhello');

    const deleted = await t.docs('DELETE', `/v1/files/${file.id}`);
    assert.deepEqual(deleted.json, { id: file.id, object: 'file.deleted', deleted: true });
    assert.equal((await t.docs('GET', `/v1/files/${file.id}`)).status, 404);
    assert.equal((await t.docs('GET', `/v1/files/${file.id}/content`)).status, 404);
    assert.equal((await t.docs('PUT', `/v1/files/${file.id}`, { metadata: {} })).status, 404);
  });

  it('keeps binary content byte for byte and strips paths from file names', async () => {
    const data = Buffer.from([0, 1, 2, 255, 254, 13, 10, 45, 45]);
    const uploaded = await t.upload('C:\\Users\\ana\\data.bin', data);
    assert.equal(uploaded.json.filename, 'data.bin');
    const { request } = await import('undici');
    const response = await request(`${t.url}/v1/files/${uploaded.json.id}/content`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.deepEqual(Buffer.from(await response.body.arrayBuffer()), data);
  });

  it('accepts exactly maxUploadBytes and answers 413 one byte above', async () => {
    const atLimit = await t.upload('a.txt', 'x'.repeat(1024));
    assert.equal(atLimit.status, 200, atLimit.text);
    const above = await t.upload('b.txt', 'x'.repeat(1025));
    assert.equal(above.status, 413);
    assert.equal(above.json.error.type, 'request_too_large');
    assert.match(above.json.error.message, /1 KiB/);
  });

  it('answers 413 to a streamed body far above the limit after draining it, keeping none of it past the limit', async () => {
    // What is true by design: past the limit nothing more is kept, but the rest of the body is read
    // and dropped (up to MAX_DISCARD_BYTES) before the answer, so the client reads a 413 instead of
    // a reset. 240 MiB (under MAX_DISCARD_BYTES) without Content-Length reaches the streamed path; one reused chunk keeps the
    // client's side of the count flat.
    const boundary = 'drainboundary';
    const chunk = Buffer.alloc(256 * 1024, 'd');
    const total = 240 * 1024 * 1024;
    let sent = 0;
    async function* body() {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n`);
      for (; sent < total; sent += chunk.length) yield chunk;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    let status = 0;
    let answer = '';
    const held = await peakBufferGrowth(async () => {
      const reply = await request(`${t.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Readable.from(body()),
      });
      status = reply.statusCode;
      answer = await reply.body.text();
    });
    assert.equal(status, 413, answer);
    assert.equal(JSON.parse(answer).error.type, 'request_too_large');
    assert.match(JSON.parse(answer).error.message, /larger than the (upload )?limit of 1 KiB/);
    assert.equal(sent, total, 'the client sent the whole body and read the answer, no reset');
    assert.ok(held < 96 * 1024 * 1024, `held ${Math.round(held / 1024 / 1024)} MiB of a 240 MiB body refused at 1 KiB`);
    assert.equal((await t.docs('GET', '/v1/files')).status, 200, 'the server is still healthy afterwards');
  });

  it('validates the upload request', async () => {
    const notMultipart = await t.docs('POST', '/v1/files', { file: 'x' });
    assert.equal(notMultipart.status, 400);
    assert.equal(notMultipart.json.error.code, 'invalid_content_type');

    const { body, contentType } = multipart([{ name: 'purpose', value: 'assistants' }]);
    const noFile = await call(t.url, 'POST', '/v1/files', {
      raw: body,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
    });
    assert.equal(noFile.status, 400);
    assert.equal(noFile.json.error.param, 'file');

    const purpose = await t.upload('a.txt', 'x', { purpose: 'nonsense' });
    assert.equal(purpose.status, 400);
    assert.equal(purpose.json.error.param, 'purpose');

    const metadata = await t.upload('a.txt', 'x', { metadata: JSON.stringify({ k: 'v'.repeat(513) }) });
    assert.equal(metadata.status, 400);
    assert.equal(metadata.json.error.param, 'metadata');
  });

  it('validates file metadata updates at the limits', async () => {
    const id = (await t.upload('a.txt', 'x')).json.id;
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    assert.equal((await t.docs('PUT', `/v1/files/${id}`, { metadata: pairs(16) })).status, 200);
    const tooMany = await t.docs('PUT', `/v1/files/${id}`, { metadata: pairs(17) });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.json.error.code, 'metadata_too_many_pairs');
    const missing = await t.docs('PUT', `/v1/files/${id}`, {});
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error.param, 'metadata');
    // POST (OpenAI's modify verb) does the same.
    assert.equal((await t.docs('POST', `/v1/files/${id}`, { metadata: { a: 'b' } })).json.metadata.a, 'b');
  });
});
