import * as assert from 'node:assert/strict';
import { createDocumentsClient } from '../../../src/services/clientFactory';
import { normaliseSettings } from '../../../src/services/settingsModel';
import { startTestBackend, TOKEN, type TestBackend } from '../features/backend';

describe("the extension's documents client", function () {
  this.timeout(30_000);
  let backend: TestBackend;
  before(async () => (backend = await startTestBackend()));
  after(() => backend.stop());

  it("keeps to the service's per-minute limits, unless told there are none (Local mode's own backend)", async () => {
    const settings = normaliseSettings({ docchat: {} });
    const endpoint = { url: backend.url, token: TOKEN };
    const waits: string[] = [];
    const unlimited = createDocumentsClient(settings, endpoint, { rateLimits: false, onRateLimitWait: (e) => waits.push(e.operation) });
    for (let i = 0; i < 31; i++) await unlimited.createVectorStore({ name: `free-${i}` });
    assert.equal(waits.length, 0, 'no request waited');
    await unlimited.close();

    const abort = new AbortController();
    const limited = createDocumentsClient(settings, endpoint, {
      onRateLimitWait: (e) => {
        waits.push(e.operation);
        abort.abort();
      },
    });
    // 30 stores a minute: the 31st waits for the client's limiter.
    await assert.rejects(async () => {
      for (let i = 0; i < 31; i++) await limited.createVectorStore({ name: `kept-${i}` }, { signal: abort.signal });
    });
    assert.deepEqual(waits, ['createVectorStore']);
    await limited.close();
  });
});
