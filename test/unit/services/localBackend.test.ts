import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DocumentsClient } from '../../../src/api/documents/client';
import type { Logger } from '../../../src/common/log';
import { LocalBackend, type LocalUpstream } from '../../../src/services/localBackend';
import type { SecretsService } from '../../../src/services/secrets';
import { startFakeUpstream, type FakeUpstream } from '../backend/fakeUpstream';

const silentLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
  sink: () => () => undefined,
};

/** SecretStorage as a map: the local token only needs get and set. */
function memorySecrets(): SecretsService {
  const values = new Map<string, string>();
  return {
    get: async (key: string) => values.get(key),
    set: async (key: string, value: string) => void values.set(key, value),
  } as unknown as SecretsService;
}

describe('Local mode backend with the gateway as its embeddings upstream', () => {
  let root: string;
  let gateway: FakeUpstream;
  let local: LocalBackend;

  beforeEach(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'docchat-local-'));
    // The extension loads dist/backend.js at run time; here it points at the sources.
    mkdirSync(path.join(root, 'extension/dist'), { recursive: true });
    const source = path.resolve(__dirname, '../../../src/backend/index.ts');
    writeFileSync(path.join(root, 'extension/dist/backend.js'), `module.exports = require(${JSON.stringify(source)});\n`);
    gateway = await startFakeUpstream();
    local = new LocalBackend(
      { extensionPath: path.join(root, 'extension'), globalStorageUri: { fsPath: path.join(root, 'storage') } as never },
      memorySecrets(),
      silentLogger,
    );
  });

  afterEach(async () => {
    local.dispose();
    await local.stop();
    await gateway.close();
    rmSync(root, { recursive: true, force: true });
  });

  const upstream = (): LocalUpstream => ({ url: gateway.url, key: 'gateway-key', embeddingModel: 'text-embed-3-large', embedPath: '/embed' });

  it('searches hybrid with the gateway embeddings, and restarts only when the upstream changes', async () => {
    const first = await local.start(upstream());
    assert.equal((await local.start(upstream())).url, first.url, 'same upstream: the same backend');

    const client = new DocumentsClient({ baseUrl: first.url, token: first.token, rateLimits: false, transport: { maxRetries: 0 } });
    const store = await client.createVectorStore({ name: 'pets' });
    for (const [name, text] of [['felines.md', 'Felines sleep sixteen hours a day.'], ['dogs.md', 'Dogs need a walk twice a day.']]) {
      const file = await client.uploadFile({ filename: name, data: new TextEncoder().encode(text) });
      await client.attachFile(store.id, { file_id: file.id });
      assert.equal((await client.waitUntilProcessed(store.id, file.id)).status, 'completed');
    }
    const result = await client.search(store.id, { query: 'kitten' });
    assert.equal((result as { ranking?: string }).ranking, 'hybrid');
    assert.match(result.data[0].content, /Felines/);
    const embeds = gateway.requests.filter((r) => r.path === '/v1/embed');
    assert.ok(embeds.length > 0);
    assert.ok(embeds.every((r) => (r.body as { model: string }).model === 'text-embed-3-large'));
    await client.close();

    const withoutGateway = await local.start(undefined);
    const plain = new DocumentsClient({ baseUrl: withoutGateway.url, token: withoutGateway.token, rateLimits: false, transport: { maxRetries: 0 } });
    const again = await plain.search(store.id, { query: 'felines' });
    assert.notEqual((again as { ranking?: string }).ranking, 'hybrid', 'restarted without the upstream');
    assert.match(again.data[0].content, /Felines/, 'the data folder survived the restart');
    await plain.close();
  });
});
