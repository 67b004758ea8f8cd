/**
 * The lease client against the real embedded backend in shared-process mode, over HTTP on
 * 127.0.0.1: leases are counted by the backend, the wrong token is refused, requests that break
 * a limit are refused before they are sent, and the backend refuses the same input with a 400.
 */
import * as assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { request } from 'undici';
import { startBackend, type RunningBackend } from '../../../../src/backend';
import { AuthError, ValidationError } from '../../../../src/api/http/errors';
import { LeaseClient } from '../../../../src/api/lifetime/client';
import { MAX_LEASE_TTL_MS } from '../../../../src/api/lifetime/schemas';
import { pollUntil } from '../../../support/harness/poll';
import { tempDir } from '../../backend/helpers';
import { API_KEY, TOKEN } from '../helpers';

describe('lease client (local backend lifetime API)', () => {
  let backend: RunningBackend;
  let dataDir: string;
  const stops: string[] = [];
  const clients: LeaseClient[] = [];
  const leaseClient = (token = TOKEN) => {
    const client = new LeaseClient({ baseUrl: backend.url, token });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    dataDir = await tempDir('docchat-leases-');
    stops.length = 0;
    backend = await startBackend({
      dataDir,
      token: TOKEN,
      apiKey: API_KEY,
      port: 0,
      lifetime: { idleExitMs: 60_000, version: '1.2.3', onStop: (reason) => stops.push(reason) },
    });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes, renews and releases leases, and the backend counts them', async () => {
    const client = leaseClient();
    const first = await client.renew('window-a', 90_000);
    assert.deepEqual({ pid: first.pid, version: first.version, leases: first.leases }, { pid: process.pid, version: '1.2.3', leases: 1 });
    assert.equal((await client.renew('window-b')).leases, 2, 'a second window holds its own lease');
    assert.equal((await client.renew('window-a', 90_000)).leases, 2, 'renewing does not add a lease');
    const released = await client.release('window-a');
    assert.deepEqual({ pid: released.pid, leases: released.leases }, { pid: process.pid, leases: 1 });
    assert.equal((await client.release('window-b')).leases, 0);
  });

  it('a token the backend does not accept is an AuthError with status 401', async () => {
    await assert.rejects(leaseClient('not-the-token').renew('window-a'), (error: unknown) => {
      assert.ok(error instanceof AuthError, String(error));
      assert.equal(error.status, 401);
      assert.ok(!error.message.includes('not-the-token'), 'the token is not in the message');
      return true;
    });
  });

  it('refuses a bad lease id or lifetime before sending, naming the limit', async () => {
    // Nothing listens at this address: a ValidationError (not a network error) shows nothing was sent.
    const client = new LeaseClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN });
    clients.push(client);
    await assert.rejects(client.renew('has space'), (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.field, 'id');
      assert.match(error.message, /1 to 100 letters, digits, dots, dashes or underscores/);
      return true;
    });
    await assert.rejects(client.renew('window-a', MAX_LEASE_TTL_MS + 1), (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.field, 'ttl_ms');
      assert.match(error.message, new RegExp(`up to ${MAX_LEASE_TTL_MS}`));
      return true;
    });
    await assert.rejects(client.release('../shutdown'), ValidationError);
  });

  it('the backend refuses the same input with a 400 naming the field', async () => {
    const send = async (body: unknown) => {
      const response = await request(`${backend.url}/v1/local/leases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.statusCode, body: (await response.body.json()) as { error: { param: string; message: string } } };
    };
    const badId = await send({ id: 'has space' });
    assert.equal(badId.status, 400);
    assert.equal(badId.body.error.param, 'id');
    assert.match(badId.body.error.message, /1 to 100 letters/);
    const badTtl = await send({ id: 'window-a', ttl_ms: -5 });
    assert.equal(badTtl.status, 400);
    assert.equal(badTtl.body.error.param, 'ttl_ms');
    assert.match(badTtl.body.error.message, /positive number of milliseconds/);
    const newer = await send({ id: 'window-a', ttl_ms: 1000, from_a_newer_window: true });
    assert.equal(newer.status, 200, 'a field this backend does not know is ignored (windows of several versions share it)');
  });

  it('asks the backend to stop, which answers first', async () => {
    const answer = await leaseClient().shutdown();
    assert.deepEqual({ pid: answer.pid, stopping: answer.stopping }, { pid: process.pid, stopping: true });
    await pollUntil(
      () => stops.length,
      (n) => n > 0,
      { timeoutMs: 10_000, intervalMs: 10, what: 'the backend to be asked to stop' },
    );
    assert.deepEqual(stops, ['shutdown requested']);
  });
});
