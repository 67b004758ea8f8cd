/**
 * The documents client against response shapes that real OpenAI-style servers send and the
 * contract does not show: `null` for an optional field (Jackson, pydantic's `Optional`), an ISO
 * date for `created_at`, OpenAI's `attributes` in place of `metadata`, an empty `last_error`
 * object, a deletion answered `"deleted": false`, FastAPI's `detail` as an object and a proxy's
 * page for a 413.
 */
import * as assert from 'node:assert/strict';
import type { DocumentsClient } from '../../../../src/api/documents/client';
import { AuthError, ProtocolError, ValidationError } from '../../../../src/api/http/errors';
import { ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { collect, documentsClient, rejects } from '../helpers';

describe('documents client: shapes of real servers', () => {
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

  it('keeps every store of a page when one sends null for optional fields or an ISO date', async () => {
    server.on('GET', '/v1/vector_stores', (_r, res) =>
      sendJson(res, 200, {
        object: 'list',
        data: [
          { id: 'vs_1', object: 'vector_store', name: 'a', created_at: 1714564800, metadata: {} },
          {
            id: 'vs_2',
            object: null,
            name: 'b',
            created_at: '2024-05-01T12:00:00Z',
            usage_bytes: null,
            file_counts: null,
            status: null,
            metadata: null,
          },
          { id: 'vs_3', name: 'c', created_at: 'yesterday', file_counts: { completed: 2, failed: null } },
          { id: 'vs_4', name: 'd', created_at: '2024-05-01T12:00:00.000000', metadata: {} },
          { id: 'vs_5', name: 'e', created_at: '1714564800', metadata: {} },
        ],
        first_id: 'vs_1',
        last_id: 'vs_3',
        has_more: false,
      }),
    );
    const stores = await collect(client.vectorStores());
    assert.deepEqual(
      stores.map((s) => [s.id, s.created_at, s.usage_bytes, s.status]),
      [
        ['vs_1', 1714564800, undefined, undefined],
        ['vs_2', 1714564800, undefined, undefined],
        ['vs_3', undefined, undefined, undefined],
        ['vs_4', 1714564800, undefined, undefined],
        ['vs_5', 1714564800, undefined, undefined],
      ],
    );
    assert.equal(stores[2]!.file_counts?.completed, 2);
  });

  it("reads OpenAI's attributes as a store file's metadata, and an empty last_error as none", async () => {
    server.on('GET', '/v1/vector_stores/vs_1/files/file-1', (_r, res) =>
      sendJson(res, 200, {
        id: 'file-1',
        object: 'vector_store.file',
        vector_store_id: null,
        status: 'completed',
        last_error: { code: null, message: null },
        attributes: { author: 'John Doe', year: 2023, draft: false },
        usage_bytes: null,
      }),
    );
    const file = await client.retrieveVectorStoreFile('vs_1', 'file-1');
    assert.deepEqual(file.metadata, { author: 'John Doe', year: '2023', draft: 'false' });
    assert.equal(file.last_error, null);
    assert.equal(file.vector_store_id, undefined);
  });

  it('says a deletion answered "deleted": false did not happen, for stores, files and store files', async () => {
    server.on('DELETE', '/v1/vector_stores/vs_1', (_r, res) =>
      sendJson(res, 200, { id: 'vs_1', object: 'vector_store.deleted', deleted: false }),
    );
    server.on('DELETE', '/v1/files/file-1', (_r, res) => sendJson(res, 200, { id: 'file-1', object: 'file', deleted: false }));
    server.on('DELETE', '/v1/vector_stores/vs_1/files/file-1', (_r, res) =>
      sendJson(res, 200, { id: 'file-1', object: 'vector_store.file.deleted', deleted: false }),
    );
    server.on('DELETE', '/v1/vector_stores/vs_2', (_r, res) =>
      sendJson(res, 200, { id: 'vs_2', object: 'vector_store.deleted', deleted: true }),
    );
    assert.match((await rejects(client.deleteVectorStore('vs_1'), ProtocolError)).message, /did not delete the vector store/);
    assert.match((await rejects(client.deleteFile('file-1'), ProtocolError)).message, /did not delete the file/);
    assert.match(
      (await rejects(client.deleteVectorStoreFile('vs_1', 'file-1'), ProtocolError)).message,
      /did not delete the file from the vector store/,
    );
    await client.deleteVectorStore('vs_2');
  });

  it("shows the sentence of a FastAPI detail object and of problem+json, and a proxy's 413 page as too large", async () => {
    server.once('POST', '/v1/vector_stores', (_r, res) =>
      sendJson(res, 400, { detail: { error: 'Invalid model name passed in model=x' } }),
    );
    assert.match((await rejects(client.createVectorStore({ name: 'a' }), ValidationError)).message, /Invalid model name/);
    server.once('POST', '/v1/vector_stores', (_r, res) =>
      sendJson(res, 400, { detail: { message: 'Store quota exceeded', code: 'quota' } }),
    );
    assert.match((await rejects(client.createVectorStore({ name: 'a' }), ValidationError)).message, /Store quota exceeded/);
    server.once('POST', '/v1/vector_stores', (_r, res) =>
      sendJson(res, 400, {
        type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
        title: 'One or more validation errors occurred.',
        status: 400,
      }),
    );
    assert.match((await rejects(client.createVectorStore({ name: 'a' }), ValidationError)).message, /validation errors occurred/);
    server.once('POST', '/v1/vector_stores', (_r, res) => {
      res.writeHead(413, { 'content-type': 'text/html' });
      res.end('<html><head><title>413 Request Entity Too Large</title></head><body>nginx</body></html>');
    });
    const tooLarge = await rejects(client.createVectorStore({ name: 'a' }), ValidationError);
    assert.match(tooLarge.message, /too large for the documents service or a proxy in front of it \(413\)/);
  });

  it('reads an error whose body broke off by its status', async () => {
    server.once('GET', '/v1/vector_stores/vs_1', (_r, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"error":{"message":"Invalid');
      setImmediate(() => res.socket?.destroy());
    });
    await rejects(client.retrieveVectorStore('vs_1'), AuthError);
  });
});
