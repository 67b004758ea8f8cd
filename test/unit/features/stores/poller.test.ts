import * as assert from 'node:assert/strict';
import type { VectorStoreFile } from '../../../../src/api/documents/schemas';
import { StatusPoller } from '../../../../src/features/stores/poller';
import { attachText, encode, startTestBackend, type TestBackend } from '../backend';
import { ManualTimers, settle, until } from '../manualTimers';

const OPTIONS = { initialDelayMs: 1000, maxDelayMs: 8000, factor: 2 };

describe('polling in-progress store files', () => {
  let backend: TestBackend;
  before(async () => {
    backend = await startTestBackend();
  });
  after(async () => {
    await backend?.stop();
  });

  function poller(fetch: (storeId: string, fileId: string) => Promise<VectorStoreFile>) {
    const timers = new ManualTimers();
    const updates: VectorStoreFile[] = [];
    const gone: string[] = [];
    const p = new StatusPoller({ fetch, onUpdate: (_s, f) => updates.push(f), onGone: (_s, id) => gone.push(id) }, OPTIONS, timers);
    return { p, timers, updates, gone };
  }

  it('polls only while active, and stops at a terminal status from the real backend', async () => {
    const store = await backend.client.createVectorStore({ name: 'poll' });
    const { storeFile } = await attachText(backend.client, store.id, 'note.md', '# Note\nHello');
    assert.equal(storeFile.status, 'completed');
    const { p, timers, updates } = poller((s, f) => backend.client.retrieveVectorStoreFile(s, f));
    p.track(store.id, storeFile.id);
    assert.equal(timers.count, 0, 'nothing is scheduled while the view is hidden');
    p.setActive(true);
    assert.deepEqual(timers.delays(), [1000]);
    timers.fireAll();
    await until(() => updates.length === 1);
    assert.equal(updates[0]!.status, 'completed');
    await settle();
    assert.equal(p.size, 0, 'a terminal file is no longer followed');
    assert.equal(timers.count, 0);
  });

  it('backs off exponentially up to the maximum while the status stays in_progress', async () => {
    const inProgress = { id: 'file-x', status: 'in_progress', last_error: null, metadata: {} } as VectorStoreFile;
    const { p, timers, updates } = poller(async () => inProgress);
    p.setActive(true);
    p.track('vs_1', 'file-x');
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      delays.push(...timers.delays());
      timers.fireAll();
      await until(() => updates.length === i + 1 && timers.count === 1);
    }
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 8000, 8000]);
    p.setActive(false);
    assert.equal(timers.count, 0, 'hiding the view stops polling');
    p.setActive(true);
    assert.deepEqual(timers.delays(), [1000], 'showing it again polls soon');
    p.clear();
  });

  it('stops following a file the service no longer knows', async () => {
    const store = await backend.client.createVectorStore({ name: 'gone' });
    const file = await backend.client.uploadFile({ filename: 'x.md', data: encode('x') });
    const { p, timers, gone } = poller((s, f) => backend.client.retrieveVectorStoreFile(s, f));
    p.setActive(true);
    p.track(store.id, file.id); // uploaded but never attached: 404
    timers.fireAll();
    await until(() => gone.length === 1);
    assert.deepEqual(gone, [file.id]);
    assert.equal(p.size, 0);
  });
});
