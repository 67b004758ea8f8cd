import * as assert from 'node:assert/strict';
import { FileCatalog } from '../../../../src/features/stores/fileCatalog';
import { PagedList } from '../../../../src/features/stores/paging';
import { encode, startTestBackend, type TestBackend } from '../backend';

describe('tree paging and file names against the embedded backend', () => {
  let backend: TestBackend;

  before(async () => {
    backend = await startTestBackend();
  });
  after(async () => {
    await backend?.stop();
  });

  it('pages stores newest first with "load more", without duplicates, and resets', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      created.push((await backend.client.createVectorStore({ name: `paging-${i}` })).id);
    }
    let requests = 0;
    const list = new PagedList(
      (request) => {
        requests++;
        return backend.client.listVectorStores(request);
      },
      () => 3,
    );
    await list.ensureLoaded();
    assert.equal(list.items.length, 3);
    assert.equal(list.hasMore, true);
    assert.deepEqual(
      list.items.map((s) => s.id),
      created.slice(-3).reverse(),
      'the first page holds the three newest stores',
    );
    await list.ensureLoaded();
    assert.equal(requests, 1, 'a loaded list is not fetched again');
    await Promise.all([list.loadMore(), list.loadMore()]);
    assert.equal(requests, 2, 'concurrent "load more" share one request');
    await list.loadMore();
    const ids = list.items.map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length, 'no store twice');
    assert.ok(
      created.every((id) => ids.includes(id)),
      'all stores reached by paging',
    );
    while (list.hasMore) {
      await list.loadMore();
    }
    const before = requests;
    await list.loadMore();
    assert.equal(requests, before, 'nothing more to load');
    list.reset();
    assert.equal(list.loaded, false);
    await list.ensureLoaded();
    assert.equal(list.items.length, 3);
  });

  it('drops a page that arrives after a reset (never shows a stale list)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const list = new PagedList(
      async (request) => {
        await gate;
        return backend.client.listVectorStores(request);
      },
      () => 2,
    );
    const loading = list.ensureLoaded();
    list.reset();
    release();
    await loading;
    assert.equal(list.loaded, false);
    assert.equal(list.items.length, 0);
  });

  it('updates and prepends items in place', async () => {
    const store = await backend.client.createVectorStore({ name: 'inplace' });
    const list = new PagedList(
      (request) => backend.client.listVectorStores(request),
      () => 2,
    );
    await list.ensureLoaded();
    const renamed = { ...list.items[0]!, name: 'changed' };
    assert.equal(list.update(renamed), true);
    assert.equal(list.items[0]!.name, 'changed');
    const newer = await backend.client.createVectorStore({ name: 'newer' });
    list.prepend(newer);
    assert.equal(list.items[0]!.id, newer.id);
    list.remove(store.id);
    assert.ok(!list.items.some((s) => s.id === store.id));
  });

  it('keeps a file attached while the first page of its store was on its way, first and in its newer state', async () => {
    const store = await backend.client.createVectorStore({ name: 'racing' });
    const file = await backend.client.uploadFile({ filename: 'racing.md', data: encode('# Racing') });
    // The page is asked for before the attach and answered after it: it does not hold the file.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const list = new PagedList(
      async (request) => {
        const page = await backend.client.listVectorStoreFiles(store.id, request);
        await held;
        return page;
      },
      () => 10,
    );
    list.prepend({ id: 'file-before-any-load', status: 'completed' } as never);
    const loading = list.ensureLoaded();
    const attached = await backend.client.attachFile(store.id, { file_id: file.id });
    list.prepend(attached);
    list.prepend({ ...attached, status: 'completed' });
    answer();
    await loading;
    assert.deepEqual(
      list.items.map((f) => [f.id, f.status]),
      [[file.id, 'completed']],
      'the file once, in its newer state; nothing prepended before the load was asked for',
    );
    assert.equal(list.has(file.id), true);
  });

  it('names store files from one files listing, and single retrievals for new files', async () => {
    const a = await backend.client.uploadFile({ filename: 'alpha.md', data: encode('# Alpha') });
    const b = await backend.client.uploadFile({ filename: 'beta.txt', data: encode('beta') });
    let lists = 0;
    let retrievals = 0;
    const catalog = new FileCatalog(() => ({
      listFiles: (p) => {
        lists++;
        return backend.client.listFiles(p);
      },
      retrieveFile: (id) => {
        retrievals++;
        return backend.client.retrieveFile(id);
      },
    }));
    await catalog.ensure([a.id, b.id]);
    assert.equal(catalog.get(a.id)?.filename, 'alpha.md');
    assert.equal(catalog.get(b.id)?.filename, 'beta.txt');
    assert.equal(lists, 1);
    assert.equal(retrievals, 0);
    const c = await backend.client.uploadFile({ filename: 'gamma.md', data: encode('gamma') });
    await catalog.ensure([a.id, c.id, 'file-does-not-exist']);
    assert.equal(lists, 1, 'the full list is loaded once');
    assert.equal(catalog.get(c.id)?.filename, 'gamma.md');
    assert.equal(catalog.get('file-does-not-exist'), undefined);
    const afterUnknown = retrievals;
    await catalog.ensure(['file-does-not-exist']);
    assert.equal(retrievals, afterUnknown, 'an unknown id is not asked for again');
    catalog.invalidate();
    await catalog.ensure([a.id]);
    assert.equal(lists, 2);
  });

  it('stops listing files from a server that ignores the cursor, instead of asking for ever', async () => {
    let lists = 0;
    const catalog = new FileCatalog(() => ({
      listFiles: async () => {
        lists++;
        return {
          data: [
            { id: 'file-1', object: 'file', filename: 'one.md', bytes: 1, created_at: 1, purpose: 'assistants' },
            { id: 'file-2', object: 'file', filename: 'two.md', bytes: 1, created_at: 1, purpose: 'assistants' },
          ],
          firstId: 'file-1',
          lastId: 'file-2',
          hasMore: true,
        } as never;
      },
      retrieveFile: async () => {
        throw new Error('not asked');
      },
    }));
    await catalog.ensure(['file-1', 'file-2']);
    assert.equal(catalog.get('file-2')?.filename, 'two.md');
    assert.equal(lists, 2, 'the first page, and the one that showed the cursor did not move');
  });

  it('names a page of store files from the first page of the files list, without waiting for the rest', async () => {
    const newest = await backend.client.uploadFile({ filename: 'newest.md', data: encode('# Newest') });
    const pages: Array<string | undefined> = [];
    let releaseRest!: () => void;
    const rest = new Promise<void>((resolve) => (releaseRest = resolve));
    const catalog = new FileCatalog(() => ({
      listFiles: async (p) => {
        pages.push(p.after);
        // The rest of the list only comes when the test says so.
        if (p.after) await rest;
        const page = await backend.client.listFiles(p);
        return p.after ? page : { ...page, hasMore: true, lastId: page.data.at(-1)?.id ?? null };
      },
      retrieveFile: (id) => backend.client.retrieveFile(id),
    }));
    await catalog.ensure([newest.id]);
    assert.equal(catalog.get(newest.id)?.filename, 'newest.md');
    assert.equal(pages.length >= 1 && pages[0], undefined);
    releaseRest();
  });

  it('stops reading a files list that a refresh made stale, and keeps its names out', async () => {
    const newest = await backend.client.uploadFile({ filename: 'fresh.md', data: encode('# Fresh') });
    let releaseStale!: () => void;
    const stalePage = new Promise<void>((resolve) => (releaseStale = resolve));
    const afterIds: string[] = [];
    const catalog = new FileCatalog(() => ({
      listFiles: async (p) => {
        const page = await backend.client.listFiles({ limit: p.limit });
        if (!p.after) return { ...page, hasMore: true, lastId: page.data.at(-1)?.id ?? null };
        afterIds.push(p.after);
        if (afterIds.length > 1) return { data: [], hasMore: false, lastId: null };
        // The rest of the first list arrives only after the refresh, naming a file of its own.
        await stalePage;
        return { data: [{ ...page.data[0]!, id: 'file-stale', filename: 'stale.md' }], hasMore: true, lastId: 'file-stale' };
      },
      retrieveFile: (id) => backend.client.retrieveFile(id),
    }));
    await catalog.ensure([newest.id]);
    catalog.invalidate();
    releaseStale();
    // A fresh list after the refresh: the stale one has had its page back by the time this one's
    // first page (a real request) is in.
    await catalog.ensure([newest.id]);
    assert.equal(catalog.get(newest.id)?.filename, 'fresh.md');
    assert.equal(catalog.get('file-stale'), undefined, 'the stale page named nothing');
    assert.ok(!afterIds.includes('file-stale'), 'the stale list was not read further');
  });

  it('looks up no file one by one for a list a refresh cut short (the tree asks again)', async () => {
    let releaseStale!: () => void;
    const stalePage = new Promise<void>((resolve) => (releaseStale = resolve));
    const retrieved: string[] = [];
    const catalog = new FileCatalog(() => ({
      listFiles: async (p) => {
        const page = await backend.client.listFiles({ limit: p.limit });
        if (!p.after) return { ...page, hasMore: true, lastId: page.data.at(-1)?.id ?? null };
        await stalePage;
        return { data: [], hasMore: false, lastId: null };
      },
      retrieveFile: (id) => {
        retrieved.push(id);
        return backend.client.retrieveFile(id);
      },
    }));
    const pending = catalog.ensure(['file-not-listed-yet']);
    catalog.invalidate();
    releaseStale();
    await pending;
    assert.deepEqual(retrieved, [], 'the stale ensure looked files up one by one');
  });
});
