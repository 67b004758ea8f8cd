import * as assert from 'node:assert/strict';
import { deleteFile, deleteVectorStore, removeFileFromStore } from '../../../../src/api/documents/deletion';
import { ServerError } from '../../../../src/api/http/errors';
import { ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { attachText, startTestBackend, type TestBackend } from '../../features/backend';
import { documentsClient } from '../helpers';

// Removing a file from a store, deleting a file, deleting a store: against the embedded backend,
// and against services that refuse DELETE (405, or 404 for something that exists).

describe('documents deletion', () => {
  let backend: TestBackend;

  before(async () => {
    backend = await startTestBackend();
  });
  after(() => backend.stop());

  it('removes a file from one store (it stays in the other and in the files), then deletes the file and a store', async () => {
    const client = backend.client;
    const [a, b] = [await client.createVectorStore({ name: 'del-a' }), await client.createVectorStore({ name: 'del-b' })];
    const { file } = await attachText(client, a.id, 'guide.md', '# Guide\n\nRollback with the pipeline.');
    await client.attachFile(b.id, { file_id: file.id });

    assert.equal(await removeFileFromStore(client, a.id, file.id), 'deleted');
    assert.deepEqual(
      (await client.listVectorStoreFiles(a.id)).data.map((f) => f.id),
      [],
    );
    assert.deepEqual(
      (await client.listVectorStoreFiles(b.id)).data.map((f) => f.id),
      [file.id],
    );
    assert.equal((await client.retrieveFile(file.id)).id, file.id, 'the file itself stays');
    assert.equal(await removeFileFromStore(client, a.id, file.id), 'gone', 'removing it again finds it gone');

    assert.equal(await deleteFile(client, file.id), 'deleted');
    assert.deepEqual((await client.listVectorStoreFiles(b.id)).data, [], 'a deleted file leaves every store');
    assert.equal(await deleteFile(client, file.id), 'gone');

    assert.equal(await deleteVectorStore(client, b.id), 'deleted');
    assert.ok(!(await client.listVectorStores({ limit: 100 })).data.some((s) => s.id === b.id));
    assert.equal(await deleteVectorStore(client, b.id), 'gone');
  });

  describe('a service without deletion', () => {
    let server: ScriptServer;
    before(async () => {
      server = await ScriptServer.start();
    });
    after(() => server.close());
    afterEach(() => server.reset());

    const store = { id: 'vs_1', object: 'vector_store', name: 'kept', created_at: 1, metadata: {} };

    it('answers 405: unsupported, and nothing else is asked', async () => {
      server.on('DELETE', /.*/, (_req, res) => sendJson(res, 405, { error: { message: 'Method Not Allowed' } }));
      const client = documentsClient(server.url);
      assert.equal(await deleteVectorStore(client, 'vs_1'), 'unsupported');
      assert.equal(await deleteFile(client, 'file_1'), 'unsupported');
      assert.equal(await removeFileFromStore(client, 'vs_1', 'file_1'), 'unsupported');
      assert.equal(server.count('GET'), 0);
    });

    it('answers 404 for a store that is still there: unsupported; for one that is not: gone', async () => {
      server.on('DELETE', /.*/, (_req, res) => sendJson(res, 404, { error: { message: 'Not found' } }));
      server.on('GET', '/v1/vector_stores/vs_1', (_req, res) => sendJson(res, 200, store));
      server.on('GET', /.*/, (_req, res) => sendJson(res, 404, { error: { message: 'No such store' } }));
      const client = documentsClient(server.url);
      assert.equal(await deleteVectorStore(client, 'vs_1'), 'unsupported');
      assert.equal(await deleteVectorStore(client, 'vs_2'), 'gone');
    });

    it('passes any other failure on as it is', async () => {
      server.on('DELETE', /.*/, (_req, res) => sendJson(res, 500, { error: { message: 'Database down' } }));
      const client = documentsClient(server.url, { transport: { maxRetries: 0 } });
      await assert.rejects(deleteFile(client, 'file_1'), ServerError);
    });
  });
});
