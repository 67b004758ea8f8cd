import * as assert from 'node:assert/strict';
import type { DocumentsClient } from '../../../../src/api/documents/client';
import { listPage, ScriptServer, sendJson } from '../../../support/servers/scriptServer';
import { collect, documentsClient, recorder } from '../helpers';

const stores = Array.from({ length: 7 }, (_, i) => ({
  id: `vs_${i}`,
  object: 'vector_store',
  name: `store_${i}`,
  created_at: 1_700_000_000 + i,
  metadata: {},
}));
const ids = (items: { id: string }[]) => items.map((i) => i.id);

describe('pagination', () => {
  let server: ScriptServer;
  let client: DocumentsClient;
  let nullIds = false;

  before(async () => {
    server = await ScriptServer.start();
    server.on('GET', '/v1/vector_stores', (r, res) => sendJson(res, 200, listPage(stores, r.query, { nullIds })));
    server.on('GET', '/v1/files', (r, res) =>
      sendJson(
        res,
        200,
        listPage(
          stores.map((s) => ({ ...s, filename: s.name })),
          r.query,
          { nullIds },
        ),
      ),
    );
    server.on('GET', '/v1/vector_stores/vs_0/files', (r, res) =>
      sendJson(res, 200, listPage(stores, r.query, { nullIds, extra: { vector_store_id: 'vs_0' } })),
    );
    client = documentsClient(server.url);
  });
  beforeEach(() => {
    server.requests.length = 0;
    nullIds = false;
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('walks every item forwards with after = last_id, newest first by default', async () => {
    const items = await collect(client.vectorStores({ limit: 3 }));
    assert.deepEqual(ids(items), ['vs_6', 'vs_5', 'vs_4', 'vs_3', 'vs_2', 'vs_1', 'vs_0']);
    assert.deepEqual(
      server.requests.map((r) => r.query.get('after')),
      [null, 'vs_4', 'vs_1'],
    );
  });

  it('walks ascending order page by page with the pages iterator', async () => {
    const pages = await collect(client.files({ limit: 3, order: 'asc' }).pages());
    assert.deepEqual(
      pages.map((p) => ids(p.data)),
      [['vs_0', 'vs_1', 'vs_2'], ['vs_3', 'vs_4', 'vs_5'], ['vs_6']],
    );
    assert.deepEqual(
      pages.map((p) => p.hasMore),
      [true, true, false],
    );
    assert.deepEqual(
      pages.map((p) => [p.firstId, p.lastId]),
      [
        ['vs_0', 'vs_2'],
        ['vs_3', 'vs_5'],
        ['vs_6', 'vs_6'],
      ],
    );
    assert.ok(server.requests.every((r) => r.query.get('order') === 'asc' && r.query.get('limit') === '3'));
  });

  it('walks backwards with before = first_id', async () => {
    const pages = await collect(client.vectorStores({ limit: 2, order: 'asc', before: 'vs_6' }).pages());
    assert.deepEqual(
      pages.map((p) => ids(p.data)),
      [
        ['vs_4', 'vs_5'],
        ['vs_2', 'vs_3'],
        ['vs_0', 'vs_1'],
      ],
    );
    assert.deepEqual(
      server.requests.map((r) => [r.query.get('before'), r.query.get('after')]),
      [
        ['vs_6', null],
        ['vs_4', null],
        ['vs_2', null],
      ],
    );
  });

  it('continues from item ids when first_id and last_id are null', async () => {
    nullIds = true;
    const forwards = await collect(client.vectorStoreFiles('vs_0', { limit: 4 }));
    assert.deepEqual(ids(forwards), ['vs_6', 'vs_5', 'vs_4', 'vs_3', 'vs_2', 'vs_1', 'vs_0']);
    const page = await client.listVectorStoreFiles('vs_0', { limit: 4 });
    assert.equal(page.firstId, 'vs_6');
    assert.equal(page.lastId, 'vs_3');
    server.requests.length = 0;
    const backwards = await collect(client.vectorStoreFiles('vs_0', { limit: 4, before: 'vs_0' }).pages());
    assert.deepEqual(
      backwards.map((p) => ids(p.data)),
      [
        ['vs_4', 'vs_3', 'vs_2', 'vs_1'],
        ['vs_6', 'vs_5'],
      ],
    );
  });

  it('fetches lazily: stopping early sends no more requests', async () => {
    for await (const store of client.vectorStores({ limit: 2 })) {
      if (store.id === 'vs_5') break;
    }
    assert.equal(server.requests.length, 1);
  });

  it('stops, with a warning, when a server repeats the same cursor', async () => {
    const looping = await ScriptServer.start();
    looping.on('GET', '/v1/vector_stores', (_r, res) =>
      sendJson(res, 200, { object: 'list', data: [stores[0]], first_id: 'vs_0', last_id: 'vs_0', has_more: true }),
    );
    const record = recorder();
    const looped = documentsClient(looping.url, { record });
    const items = await collect(looped.vectorStores());
    await looped.close();
    await looping.close();
    assert.deepEqual(
      items.map((s) => s.id),
      ['vs_0'],
      'the first page once, not its repeat',
    );
    assert.ok(record.logs.some((l) => l.level === 'warn' && /same page cursor/.test(l.message)));
  });

  it('hands out no item twice when a server goes round its pages', async () => {
    const round = await ScriptServer.start();
    const page = (after: string | null) => {
      // Two pages, then the first again: a server that ignores its own cursor at the end.
      const ids = after === 'vs_1' ? ['vs_2', 'vs_3'] : ['vs_0', 'vs_1'];
      return { object: 'list', data: ids.map((id) => ({ ...stores[0], id })), first_id: ids[0], last_id: ids[1], has_more: true };
    };
    round.on('GET', '/v1/vector_stores', (req, res) => sendJson(res, 200, page(req.query.get('after'))));
    const circling = documentsClient(round.url);
    const items = await collect(circling.vectorStores());
    await circling.close();
    await round.close();
    assert.deepEqual(
      items.map((s) => s.id),
      ['vs_0', 'vs_1', 'vs_2', 'vs_3'],
    );
  });
});
