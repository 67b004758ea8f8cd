import * as assert from 'node:assert/strict';
import { syncIntoNewStore } from '../../../../src/features/sync/newStore';
import { encode } from '../backend';
import { useSyncSuite } from './helpers';

describe('folder sync into a store the command created', function () {
  this.timeout(30_000);
  const suite = useSyncSuite();

  const storeIds = async () => (await suite.backend.client.listVectorStores({ limit: 100 })).data.map((s) => s.id);

  it('deletes the new store, and the follow of it, when the plan is cancelled', async () => {
    const { client } = suite.backend;
    const store = await client.createVectorStore({ name: 'docs' });
    let forgotten = 0;
    const outcome = await syncIntoNewStore({
      client,
      storeId: store.id,
      sync: () => Promise.resolve(), // the user pressed Cancel in the plan's dialog
      confirmed: () => false,
      forget: () => Promise.resolve(void forgotten++),
    });
    assert.equal(outcome, 'deleted');
    assert.equal(forgotten, 1);
    assert.ok(!(await storeIds()).includes(store.id), 'no empty store is left behind');
  });

  it('keeps the store once the plan is confirmed, and one that has files', async () => {
    const { client } = suite.backend;
    const confirmed = await client.createVectorStore({ name: 'confirmed' });
    assert.equal(
      await syncIntoNewStore({
        client,
        storeId: confirmed.id,
        sync: () => Promise.resolve(),
        confirmed: () => true,
        forget: () => assert.fail(),
      }),
      undefined,
    );
    const used = await client.createVectorStore({ name: 'used' });
    const file = await client.uploadFile({ filename: 'a.md', data: encode('# A') });
    await client.attachFile(used.id, { file_id: file.id });
    assert.equal(
      await syncIntoNewStore({
        client,
        storeId: used.id,
        sync: () => Promise.resolve(),
        confirmed: () => false,
        forget: () => assert.fail(),
      }),
      undefined,
    );
    const ids = await storeIds();
    assert.ok(ids.includes(confirmed.id) && ids.includes(used.id));
  });

  it('deletes the new store when planning failed before the plan was shown, and still reports the failure', async () => {
    const { client } = suite.backend;
    const store = await client.createVectorStore({ name: 'failed' });
    await assert.rejects(
      syncIntoNewStore({
        client,
        storeId: store.id,
        sync: () => Promise.reject(new Error('the folder could not be read')),
        confirmed: () => false,
        forget: () => Promise.resolve(),
      }),
      /could not be read/,
    );
    assert.ok(!(await storeIds()).includes(store.id));
  });
});
