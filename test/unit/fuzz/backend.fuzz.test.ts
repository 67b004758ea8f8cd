/**
 * Property-based fuzzing of the running backend with fast-check: random paths, methods, headers,
 * bodies and files, sent over raw sockets a few at a time. Invariants: every request gets an
 * answer (a silent connection fails the run), never a 5xx for a client mistake, every error in
 * the service's shape with a request id, the server answers correctly after each batch, and
 * every acknowledged write is present at the end, also after a restart.
 *
 * The seed is printed; `DOCCHAT_FUZZ_SEED=<seed>` replays a run (add `DOCCHAT_FUZZ_PATH=<path>`
 * from fast-check's report to replay only the failing case), `DOCCHAT_FUZZ_RUNS=<n>` runs longer.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { rawRequest, type RawReply } from '../../support/rawHttp';
import { API_KEY, startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';
import { hostileFile, randomRequest, validWrite, type FuzzRequest } from './arbitraries';

const SEED = process.env.DOCCHAT_FUZZ_SEED ? Number(process.env.DOCCHAT_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const PATH = process.env.DOCCHAT_FUZZ_PATH || undefined;
const RUNS = Number(process.env.DOCCHAT_FUZZ_RUNS ?? 150);
/** A connection silent this long is a hang (answers normally take milliseconds). */
const IDLE_MS = 30_000;

interface Ledger {
  stores: string[];
  files: string[];
  liveStores: Set<string>;
  liveFiles: Set<string>;
  deletedStores: Set<string>;
  deletedFiles: Set<string>;
}

function render(request: FuzzRequest, ledger: Ledger): { head: boolean; bytes: Buffer; description: string } {
  const ids = [...request.ids];
  const path = request.template.replace(/\{id\}/g, () => {
    const id = ids.shift() ?? { raw: 'x' };
    if ('raw' in id) return id.raw;
    const list = id.known === 'store' ? ledger.stores : ledger.files;
    return list.length ? encodeURIComponent(list[id.index % list.length]!) : 'none';
  });
  let payload: Buffer | undefined;
  let contentType = request.contentType;
  if (request.body.kind === 'bytes') payload = Buffer.from(request.body.data);
  if (request.body.kind === 'multipart') {
    payload = request.body.data;
    contentType ??= `multipart/form-data; boundary=${request.body.boundary}`;
  }
  // The crawl tool fetches the URLs it is given: keep the fuzz on loopback.
  if (request.template.endsWith('/crawl') && payload && /urls/.test(payload.toString('latin1'))) payload = Buffer.from('{}');
  const lines = [`${request.method} ${path}${request.query} HTTP/1.1`, 'Host: 127.0.0.1'];
  if (request.auth === 'documents' || request.auth === 'both') lines.push(`Authorization: Bearer ${TOKEN}`);
  if (request.auth === 'gateway' || request.auth === 'both') lines.push(`Api-Key: ${API_KEY}`);
  if (request.auth === 'wrong') lines.push('Authorization: Bearer not-the-token', 'Api-Key: not-the-key');
  if (request.auth === 'empty') lines.push('Authorization: Bearer ', 'Api-Key: ');
  if (contentType !== undefined) lines.push(`Content-Type: ${contentType}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.padHeaderBytes) lines.push(`X-Pad: ${'p'.repeat(request.padHeaderBytes)}`);
  lines.push('Connection: close');
  let framed: Buffer = Buffer.alloc(0);
  if (payload && request.chunked) {
    lines.push('Transfer-Encoding: chunked');
    framed = Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')]);
    if (!payload.length) framed = Buffer.from('0\r\n\r\n');
  } else if (payload) {
    lines.push(`Content-Length: ${payload.length}`);
    framed = payload;
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const shown = `${request.method} ${path.slice(0, 120)}${request.query.slice(0, 60)} [${request.auth}, ${contentType ?? 'no type'}, ${payload?.length ?? 0} bytes${request.chunked ? ' chunked' : ''}]`;
  return { head: request.method === 'HEAD', bytes: Buffer.concat([head, framed]), description: shown };
}

function checkAnswer(description: string, head: boolean, reply: RawReply): void {
  const where = `${description} -> ${reply.status} ${reply.body.slice(0, 300)}`;
  assert.ok(reply.status >= 200 && reply.status < 600, where);
  // 501: the web tools need an upstream this backend does not have; that is an answer, not a fault.
  assert.ok(reply.status < 500 || reply.status === 501, `server fault for a client request: ${where}`);
  assert.match(reply.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/, `no request id: ${where}`);
  if (head) return;
  if (reply.status >= 400) {
    const error = reply.json?.error;
    assert.ok(error && typeof error.message === 'string' && error.message.length > 0, `not the error shape: ${where}`);
    assert.equal(typeof error.type, 'string', where);
    assert.ok('param' in error && 'code' in error, where);
  } else if (/json/.test(reply.headers['content-type'] ?? '') && reply.headers['content-length'] !== undefined) {
    assert.notEqual(reply.json, undefined, `a 2xx JSON answer that does not parse: ${where}`);
  }
}

function record(ledger: Ledger, request: FuzzRequest, reply: RawReply): void {
  if (reply.status !== 200 || !reply.json) return;
  const { object, id } = reply.json as { object?: string; id?: string };
  if (typeof id !== 'string') return;
  if (request.method === 'POST' && object === 'vector_store' && !ledger.stores.includes(id)) {
    ledger.stores.push(id);
    ledger.liveStores.add(id);
  } else if (request.method === 'POST' && object === 'file' && !ledger.files.includes(id)) {
    ledger.files.push(id);
    ledger.liveFiles.add(id);
  } else if (request.method === 'DELETE' && object === 'vector_store.deleted') {
    ledger.liveStores.delete(id);
    ledger.deletedStores.add(id);
  } else if (request.method === 'DELETE' && object === 'file.deleted') {
    ledger.liveFiles.delete(id);
    ledger.deletedFiles.add(id);
  }
}

describe('fuzz: the backend answers whatever arrives', function () {
  this.timeout(240_000);
  let t: TestBackend;
  const ledger: Ledger = {
    stores: [],
    files: [],
    liveStores: new Set(),
    liveFiles: new Set(),
    deletedStores: new Set(),
    deletedFiles: new Set(),
  };

  before(async () => {
    console.log(`      fuzz seed ${SEED}, ${RUNS} runs (replay: DOCCHAT_FUZZ_SEED=${SEED} npx mocha test/unit/fuzz/backend.fuzz.test.ts)`);
    t = await startTestBackend({ rateLimits: false });
  });
  after(async () => t?.close());

  async function healthy(): Promise<void> {
    const health = await t.gw('GET', '/health');
    assert.equal(health.status, 200);
    assert.equal(health.json.status, 'ok');
    const list = await t.docs('GET', '/v1/vector_stores?limit=1');
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.object, 'list');
  }

  it('random requests, a few at a time: an answer in the error shape for each, never a 5xx', async () => {
    const batch = fc.array(fc.oneof({ weight: 3, arbitrary: randomRequest }, { weight: 1, arbitrary: validWrite }), {
      minLength: 1,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(batch, async (requests) => {
        const rendered = requests.map((request) => ({ request, ...render(request, ledger) }));
        const replies = await Promise.all(
          rendered.map(({ bytes, head, description }) =>
            rawRequest(t.url, bytes, { head, idleMs: IDLE_MS }).catch((error: Error) => {
              throw new Error(`no answer to ${description}: ${error.message}`);
            }),
          ),
        );
        rendered.forEach(({ request, head, description }, i) => {
          checkAnswer(description, head, replies[i]!);
          record(ledger, request, replies[i]!);
        });
        await healthy();
      }),
      { seed: SEED, path: PATH, numRuns: RUNS, endOnFailure: false, interruptAfterTimeLimit: 180_000, markInterruptAsFailure: false },
    );
    assert.ok(ledger.stores.length > 0 && ledger.files.length > 0, 'the run acknowledged no writes to check');
  });

  it('every acknowledged write is present, and stays so after a restart', async () => {
    // Run alone (--grep), the random run above did not fill the ledger: acknowledge a few writes here.
    if (ledger.liveStores.size === 0) {
      const store = await t.docs('POST', '/v1/vector_stores', { name: 'ledger' });
      assert.equal(store.status, 200, store.text);
      ledger.stores.push(store.json.id);
      ledger.liveStores.add(store.json.id);
    }
    if (ledger.liveFiles.size === 0) {
      const file = await t.upload('ledger.md', '# Ledger\n\nacknowledged');
      assert.equal(file.status, 200, file.text);
      ledger.files.push(file.json.id);
      ledger.liveFiles.add(file.json.id);
    }
    assert.ok(ledger.liveStores.size > 0 && ledger.liveFiles.size > 0, 'writes to check');
    for (const pass of ['running', 'restarted']) {
      if (pass === 'restarted') await t.restart();
      const stores = await t.docs('GET', '/v1/vector_stores?limit=10000');
      const files = await t.docs('GET', '/v1/files?limit=10000');
      const storeIds = new Set((stores.json.data as { id: string }[]).map((s) => s.id));
      const fileIds = new Set((files.json.data as { id: string }[]).map((f) => f.id));
      for (const id of ledger.liveStores) assert.ok(storeIds.has(id), `${pass}: acknowledged store ${id} is missing`);
      for (const id of ledger.liveFiles) assert.ok(fileIds.has(id), `${pass}: acknowledged file ${id} is missing`);
      for (const id of ledger.deletedStores) assert.ok(!storeIds.has(id), `${pass}: deleted store ${id} is back`);
      for (const id of ledger.deletedFiles) assert.ok(!fileIds.has(id), `${pass}: deleted file ${id} is back`);
    }
  });

  it('hostile files end completed or failed with a last_error, and search keeps answering', async () => {
    const storeId = await t.createStore('fuzzfiles');
    await fc.assert(
      fc.asyncProperty(hostileFile, async ({ name, data }) => {
        const uploaded = await t.upload(name, data);
        if (uploaded.status !== 200) {
          assert.ok(uploaded.status >= 400 && uploaded.status < 500, `${name}: upload answered ${uploaded.status} ${uploaded.text}`);
          return;
        }
        const attached = await t.docs('POST', `/v1/vector_stores/${storeId}/files`, { file_id: uploaded.json.id });
        assert.equal(attached.status, 200, attached.text);
        const done = await t.waitUntilProcessed(storeId, uploaded.json.id);
        assert.equal(done.status, 200, done.text);
        assert.ok(['completed', 'failed'].includes(done.json.status), `${name}: ${done.text}`);
        if (done.json.status === 'failed') {
          assert.ok(typeof done.json.last_error === 'string' && done.json.last_error.length > 10, `${name}: ${done.text}`);
          assert.doesNotMatch(done.json.last_error, /call stack|out of memory|undefined|\[object /i, `${name}: ${done.json.last_error}`);
        }
        const search = await t.docs('POST', `/v1/vector_stores/${storeId}/search`, { query: 'text' });
        assert.equal(search.status, 200, search.text);
      }),
      {
        seed: SEED,
        path: PATH,
        numRuns: Math.max(10, Math.round(RUNS / 5)),
        endOnFailure: false,
        interruptAfterTimeLimit: 120_000,
        markInterruptAsFailure: false,
      },
    );
  });
});
