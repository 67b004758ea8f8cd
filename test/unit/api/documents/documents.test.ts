import * as assert from 'node:assert/strict';
import { DocumentsClient } from '../../../../src/api/documents/client';
import { AbortedError, NotFoundError, TimeoutError, ValidationError } from '../../../../src/api/http/errors';
import { ScriptServer, sendJson, sendText } from '../../../support/servers/scriptServer';
import { documentsClient, FakeClock, recorder, rejects, TOKEN } from '../helpers';

const store = {
  id: 'vs_abc',
  object: 'vector_store',
  name: 'handbook',
  created_at: 1_700_000_000,
  expires_at: null,
  metadata: { team: 'docs' },
  file_counts: { in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 },
  status: 'completed',
  usage_bytes: 2048,
  vendor_extra: { kept: true },
};
const file = {
  id: 'file-1',
  object: 'file',
  filename: 'guide.md',
  url: 'https://x/guide.md',
  bytes: 12,
  created_at: 1_700_000_001,
  metadata: {},
};
const storeFile = (status: string, last_error: unknown = null) => ({
  id: 'file-1',
  object: 'vector_store.file',
  vector_store_id: 'vs_abc',
  created_at: 1_700_000_002,
  status,
  last_error,
  metadata: {},
});

/** Splits a multipart body into its named parts. */
function multipartParts(body: Buffer, contentType: string): Map<string, { headers: string; value: Buffer }> {
  const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
  const parts = new Map<string, { headers: string; value: Buffer }>();
  const text = body.toString('latin1');
  for (const chunk of text.split(`--${boundary}`).slice(1, -1)) {
    const [headers, ...rest] = chunk.replace(/^\r\n/, '').split('\r\n\r\n');
    const value = Buffer.from(rest.join('\r\n\r\n').replace(/\r\n$/, ''), 'latin1');
    parts.set(/name="([^"]+)"/.exec(headers!)![1]!, { headers: headers!, value });
  }
  return parts;
}

describe('DocumentsClient endpoints', () => {
  let server: ScriptServer;
  let client: DocumentsClient;

  before(async () => {
    server = await ScriptServer.start();
  });
  beforeEach(() => {
    server.reset();
    client = documentsClient(server.url);
  });
  afterEach(() => client.close());
  after(() => server.close());

  it('creates, retrieves and deletes a vector store with the bearer token, keeping unknown fields', async () => {
    server.on('POST', '/v1/vector_stores', (_r, res) => sendJson(res, 200, store));
    server.on('GET', '/v1/vector_stores/vs_abc', (_r, res) => sendJson(res, 200, store));
    server.on('DELETE', '/v1/vector_stores/vs_abc', (_r, res) =>
      sendJson(res, 200, { id: 'vs_abc', object: 'vector_store.deleted', deleted: true }),
    );

    const created = await client.createVectorStore({ name: 'handbook', metadata: { team: 'docs' } });
    assert.deepEqual(server.requests[0]!.json, { name: 'handbook', metadata: { team: 'docs' } });
    assert.equal(server.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(created.id, 'vs_abc');
    assert.equal(created.expires_at, null);
    assert.equal(created.file_counts?.completed, 2);
    assert.deepEqual(created.vendor_extra, { kept: true });

    const retrieved = await client.retrieveVectorStore('vs_abc');
    assert.equal(retrieved.name, 'handbook');
    await client.deleteVectorStore('vs_abc');
    assert.deepEqual(
      server.requests.map((r) => `${r.method} ${r.path}`),
      ['POST /v1/vector_stores', 'GET /v1/vector_stores/vs_abc', 'DELETE /v1/vector_stores/vs_abc'],
    );
  });

  it('accepts a base URL that already ends in /v1 and escapes ids in paths', async () => {
    server.on('GET', /^\/v1\/vector_stores\//, (_r, res) => sendJson(res, 200, store));
    const other = documentsClient(`${server.url}/v1/`);
    await other.retrieveVectorStore('vs a/b');
    await other.close();
    assert.equal(server.requests[0]!.path, '/v1/vector_stores/vs%20a%2Fb');
  });

  it('refuses "." and ".." as ids, which the URL would resolve to another path', async () => {
    server.on('DELETE', /^\/v1\//, (_r, res) => sendJson(res, 200, { id: 'x', object: 'vector_store.deleted', deleted: true }));
    server.on('GET', /^\/v1\//, (_r, res) => sendText(res, 200, 'text'));
    for (const id of ['..', '.']) {
      await rejects(client.retrieveVectorStoreFileContent('vs_abc', id), ValidationError);
      await rejects(client.deleteVectorStoreFile('vs_abc', id), ValidationError);
      await rejects(client.retrieveVectorStore(id), ValidationError);
    }
    assert.deepEqual(server.requests, []);
  });

  it('lists, retrieves, updates and deletes files, and reads their content', async () => {
    server.on('GET', '/v1/files', (_r, res) =>
      sendJson(res, 200, { object: 'list', data: [file], first_id: 'file-1', last_id: 'file-1', has_more: false }),
    );
    server.on('GET', '/v1/files/file-1', (_r, res) => sendJson(res, 200, { ...file, metadata: null }));
    server.on('PUT', '/v1/files/file-1', (r, res) => sendJson(res, 200, { ...file, metadata: r.json.metadata }));
    server.on('DELETE', '/v1/files/file-1', (_r, res) => sendJson(res, 200, { id: 'file-1', object: 'file.deleted', deleted: true }));
    server.on('GET', '/v1/files/file-1/content', (_r, res) => sendText(res, 200, '\u0000\u00ffbytes', 'application/octet-stream'));

    const page = await client.listFiles();
    assert.equal(page.data[0]!.filename, 'guide.md');
    assert.equal(page.hasMore, false);
    assert.deepEqual((await client.retrieveFile('file-1')).metadata, {}, 'null metadata is shown as empty');
    const updated = await client.updateFileMetadata('file-1', { owner: 'ana' });
    assert.deepEqual(server.requests[2]!.json, { metadata: { owner: 'ana' } });
    assert.deepEqual(updated.metadata, { owner: 'ana' });
    const content = await client.retrieveFileContent('file-1');
    assert.deepEqual(Buffer.from(content), Buffer.from('\u0000\u00ffbytes', 'utf8'));
    await client.deleteFile('file-1');
    assert.equal(server.count('DELETE', '/v1/files/file-1'), 1);
  });

  it("stops reading a file's converted text past the caller's limit, with the caller's error", async () => {
    const limit = { maxBytes: 100, tooLarge: () => new ValidationError('content', 'at most 100 bytes', 'The text is over 100 bytes.') };
    server.on('GET', '/v1/vector_stores/vs_abc/files/json/content', (_r, res) =>
      sendJson(res, 200, { object: 'vector_store.file_content.page', data: [{ type: 'text', text: 'x'.repeat(200) }] }),
    );
    // Streamed without a length: refused while reading.
    server.on('GET', '/v1/vector_stores/vs_abc/files/text/content', (_r, res) => {
      res.writeHead(200, { 'content-type': 'text/markdown' });
      for (let i = 0; i < 10; i++) res.write('y'.repeat(50));
      res.end();
    });
    server.on('GET', '/v1/vector_stores/vs_abc/files/small/content', (_r, res) => sendText(res, 200, '# Small', 'text/markdown'));
    for (const id of ['json', 'text']) {
      const error = await rejects(client.retrieveVectorStoreFileContent('vs_abc', id, { limit }), ValidationError);
      assert.equal(error.message, 'The text is over 100 bytes.');
    }
    assert.equal(await client.retrieveVectorStoreFileContent('vs_abc', 'small', { limit }), '# Small');
    assert.equal((await client.retrieveVectorStoreFileContent('vs_abc', 'text')).length, 500, 'no limit but the client-wide one');
  });

  it('uploads a file as multipart/form-data with file and purpose', async () => {
    server.on('POST', '/v1/files', (_r, res) => sendJson(res, 200, { ...file, filename: 'ü "q".pdf', bytes: 4 }));
    const data = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0x0d, 0x0a]);
    const uploaded = await client.uploadFile({ filename: 'ü "q".pdf', data });
    assert.equal(uploaded.id, 'file-1');
    const request = server.requests[0]!;
    assert.match(request.headers['content-type']!, /^multipart\/form-data; boundary=/);
    const parts = multipartParts(request.body, request.headers['content-type']!);
    assert.equal(parts.get('purpose')!.value.toString(), 'assistants');
    assert.deepEqual([...parts.get('file')!.value], [...data]);
    assert.match(parts.get('file')!.headers, /filename="_ %22q%22\.pdf"; filename\*=UTF-8''%C3%BC%20%22q%22\.pdf/);
    assert.match(parts.get('file')!.headers, /Content-Type: application\/pdf/);
  });

  it('attaches a file with the skip-OCR option under the default and a configured field name', async () => {
    server.on('POST', '/v1/vector_stores/vs_abc/files', (_r, res) => sendJson(res, 200, storeFile('in_progress')));
    const attached = await client.attachFile('vs_abc', { file_id: 'file-1', metadata: { a: 'b' }, skipOcr: true });
    assert.equal(attached.status, 'in_progress');
    assert.deepEqual(server.requests[0]!.json, { file_id: 'file-1', metadata: { a: 'b' }, skip_ocr: true });

    const custom = documentsClient(server.url, { skipOcrField: 'fast_mode' });
    await custom.attachFile('vs_abc', { file_id: 'file-1', skipOcr: false });
    await custom.close();
    assert.deepEqual(server.requests[1]!.json, { file_id: 'file-1', fast_mode: false });

    await client.attachFile('vs_abc', { file_id: 'file-1' });
    assert.deepEqual(server.requests[2]!.json, { file_id: 'file-1' }, 'the option is left out when not set');
  });

  it('lists, retrieves, updates and deletes vector store files and reads their markdown', async () => {
    server.on('GET', '/v1/vector_stores/vs_abc/files', (_r, res) =>
      sendJson(res, 200, {
        object: 'list',
        data: [storeFile('completed')],
        first_id: null,
        last_id: null,
        has_more: false,
        vector_store_id: 'vs_abc',
      }),
    );
    server.on('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('completed')));
    server.on('PUT', '/v1/vector_stores/vs_abc/files/file-1', (r, res) =>
      sendJson(res, 200, { ...storeFile('completed'), metadata: r.json.metadata }),
    );
    server.on('DELETE', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) =>
      sendJson(res, 200, { id: 'file-1', object: 'vector_store.file.deleted', deleted: true }),
    );
    server.once('GET', '/v1/vector_stores/vs_abc/files/file-1/content', (_r, res) =>
      sendJson(res, 200, {
        object: 'vector_store.file_content.page',
        data: [
          { type: 'text', text: '# Title' },
          { type: 'text', text: 'Body' },
        ],
      }),
    );
    server.once('GET', '/v1/vector_stores/vs_abc/files/file-1/content', (_r, res) => sendText(res, 200, '# Plain', 'text/markdown'));

    const page = await client.listVectorStoreFiles('vs_abc');
    assert.equal(page.firstId, 'file-1', 'a null first_id falls back to the first item');
    assert.equal(page.lastId, 'file-1');
    assert.equal((page.raw as { vector_store_id: string }).vector_store_id, 'vs_abc');
    assert.equal((await client.retrieveVectorStoreFile('vs_abc', 'file-1')).status, 'completed');
    const updated = await client.updateVectorStoreFileMetadata('vs_abc', 'file-1', { tag: 'x' });
    assert.deepEqual(updated.metadata, { tag: 'x' });
    assert.equal(await client.retrieveVectorStoreFileContent('vs_abc', 'file-1'), '# Title\n\nBody');
    assert.equal(await client.retrieveVectorStoreFileContent('vs_abc', 'file-1'), '# Plain');
    await client.deleteVectorStoreFile('vs_abc', 'file-1');
    assert.equal(server.count('DELETE'), 1);
  });

  it('searches with the file restriction under the default and a configured field, best score first', async () => {
    server.on('POST', '/v1/vector_stores/vs_abc/search', (r, res) =>
      sendJson(res, 200, {
        object: 'vector_store.search_results.page',
        query: r.json.query,
        max_num_results: 10,
        vector_store_id: 'vs_abc',
        files: ['file-1'],
        data: [
          { id: 'c1', object: 'chunk', score: 0.2, content: 'low', file_id: 'file-1' },
          { id: 'c2', object: 'chunk', score: 0.9, content: [{ type: 'text', text: 'high' }], file_id: 'file-1', filename: 'guide.md' },
        ],
      }),
    );
    const result = await client.search('vs_abc', { query: 'q', max_num_results: 5, file_ids: ['file-1'] });
    assert.deepEqual(server.requests[0]!.json, { query: 'q', max_num_results: 5, file_ids: ['file-1'] });
    assert.deepEqual(
      result.data.map((d) => d.content),
      ['high', 'low'],
    );
    assert.equal(result.data[0]!.filename, 'guide.md', 'unknown fields are kept');

    const custom = documentsClient(server.url, { fileIdsField: 'files' });
    await custom.search('vs_abc', { query: 'q', file_ids: ['file-2'] });
    await custom.close();
    assert.deepEqual(server.requests[1]!.json, { query: 'q', files: ['file-2'] });
  });

  it('refuses a field name option with spaces, and uses the default for a blank one', async () => {
    assert.throws(() => new DocumentsClient({ baseUrl: server.url, token: 't', skipOcrField: 'skip ocr' }), /must not contain spaces/);
    server.on('POST', '/v1/vector_stores/vs_abc/search', (_r, res) => sendJson(res, 200, { data: [] }));
    const blank = documentsClient(server.url, { fileIdsField: '  ' });
    await blank.search('vs_abc', { query: 'q', file_ids: ['f'] });
    await blank.close();
    assert.deepEqual(server.requests[0]!.json, { query: 'q', file_ids: ['f'] });
  });

  describe('waitUntilProcessed', () => {
    it('polls in_progress → completed with growing delays', async () => {
      const clock = new FakeClock();
      const polling = documentsClient(server.url, { clock });
      for (const status of ['in_progress', 'in_progress', 'completed']) {
        server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile(status)));
      }
      const seen: string[] = [];
      const done = await polling.waitUntilProcessed('vs_abc', 'file-1', { onStatus: (f) => seen.push(f.status), initialDelayMs: 100 });
      await polling.close();
      assert.equal(done.status, 'completed');
      assert.deepEqual(seen, ['in_progress', 'in_progress', 'completed']);
      assert.deepEqual(clock.sleeps, [100, 200]);
    });

    it('returns a failed file with last_error as a string, from a string or an object', async () => {
      server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('failed', 'OCR crashed')));
      server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) =>
        sendJson(res, 200, storeFile('failed', { code: 'unsupported_file', message: 'Not a PDF' })),
      );
      const first = await client.waitUntilProcessed('vs_abc', 'file-1');
      assert.equal(first.status, 'failed');
      assert.equal(first.last_error, 'OCR crashed');
      const second = await client.waitUntilProcessed('vs_abc', 'file-1');
      assert.equal(second.last_error, 'Not a PDF (unsupported_file)');
    });

    it('reports an unknown status, keeps polling, and stops at cancelled', async () => {
      const record = recorder();
      const polling = documentsClient(server.url, { record });
      server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('queued_for_ocr')));
      server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('cancelled')));
      const seen: string[] = [];
      const done = await polling.waitUntilProcessed('vs_abc', 'file-1', { onStatus: (f) => seen.push(f.status) });
      await polling.close();
      assert.deepEqual(seen, ['queued_for_ocr', 'cancelled']);
      assert.equal(done.status, 'cancelled');
      assert.ok(record.logs.some((l) => l.level === 'warn' && l.message.includes('"queued_for_ocr"')));
    });

    it('gives up with a TimeoutError after timeoutMs', async () => {
      server.on('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('in_progress')));
      const error = await rejects(
        client.waitUntilProcessed('vs_abc', 'file-1', { initialDelayMs: 1000, maxDelayMs: 1000, timeoutMs: 3500 }),
        TimeoutError,
      );
      assert.match(error.message, /still "in_progress"/);
      assert.equal(server.count('GET'), 4);
    });

    it('stops at once when the signal aborts during the wait between polls, without waiting it out', async () => {
      // The abort comes while the client sleeps a minute before its second poll (FakeClock.onSleep).
      // Virtual time moves only when a sleep is waited out, so the clock shows whether it was.
      const controller = new AbortController();
      const clock = new FakeClock();
      clock.onSleep = async () => {
        await null; // once the sleep listens to the signal
        controller.abort();
      };
      const polling = documentsClient(server.url, { clock });
      server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('in_progress')));
      server.once('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => sendJson(res, 200, storeFile('completed')));
      const started = clock.now();
      try {
        await rejects(polling.waitUntilProcessed('vs_abc', 'file-1', { signal: controller.signal, initialDelayMs: 60_000 }), AbortedError);
      } finally {
        await polling.close();
      }
      assert.deepEqual(clock.sleeps, [60_000]);
      assert.equal(clock.now() - started, 0, 'the minute between polls was not waited out');
      assert.equal(server.count('GET'), 1, 'no poll after the abort');
    });

    it('stops when the signal aborts during a poll, and surfaces a 404', async () => {
      const controller = new AbortController();
      server.on('GET', '/v1/vector_stores/vs_abc/files/file-1', (_r, res) => {
        controller.abort();
        sendJson(res, 200, storeFile('in_progress'));
      });
      await rejects(client.waitUntilProcessed('vs_abc', 'file-1', { signal: controller.signal }), AbortedError);
      await rejects(client.waitUntilProcessed('vs_abc', 'missing'), NotFoundError);
    });
  });
});
