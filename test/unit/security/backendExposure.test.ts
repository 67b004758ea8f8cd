/**
 * The embedded backend is reachable from this machine only, and only with its token: it binds
 * 127.0.0.1, refuses every documents and gateway path without (or with a near-miss of) its
 * credentials, does not take them from the query string, and gives no browser page a way to read
 * its answers (no CORS). Per-path 401s are in test/unit/backend/http/auth.test.ts.
 */
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import { call, startTestBackend, TOKEN, API_KEY, type TestBackend } from '../backend/helpers';

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('backend exposure: loopback only, token required', () => {
  let t: TestBackend;
  before(async () => {
    t = await startTestBackend({ rateLimits: false });
  });
  after(() => t.close());

  it("listens on 127.0.0.1 and not on the machine's other addresses", async () => {
    const url = new URL(t.url);
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal(await canConnect('127.0.0.1', Number(url.port)), true);
    // 127.0.0.2 is this machine too (all of 127.0.0.0/8 is loopback on Linux), so a server bound to
    // every address answers there even on a machine without a network interface.
    const others = [
      '127.0.0.2',
      ...Object.values(os.networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal)
        .map((a) => a!.address),
    ];
    if (process.platform === 'linux') {
      // The probe itself works: a server bound to every address is found on 127.0.0.2.
      const everywhere = createServer().listen(0, '0.0.0.0');
      await once(everywhere, 'listening');
      try {
        assert.equal(
          await canConnect('127.0.0.2', (everywhere.address() as AddressInfo).port),
          true,
          'the probe finds a server bound to 0.0.0.0',
        );
      } finally {
        everywhere.close();
      }
    }
    for (const address of others) assert.equal(await canConnect(address, Number(url.port)), false, `reachable on ${address}`);
  });

  it('refuses requests without the token, with a near-miss of it, or with it in the query string', async () => {
    const attempts: [string, Record<string, string>][] = [
      ['nothing', {}],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['the token minus its last character', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['the token plus a character', { authorization: `Bearer ${TOKEN}x` }],
      ['the gateway key as a documents token', { authorization: `Bearer ${API_KEY}` }],
      ['the token in another header', { 'x-api-key': TOKEN, 'api-key': TOKEN }],
      ['basic auth', { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` }],
    ];
    for (const [what, headers] of attempts) {
      const reply = await call(t.url, 'GET', '/v1/vector_stores', { headers });
      assert.equal(reply.status, 401, what);
      assert.equal(reply.json.error.type, 'authentication_error', what);
      assert.ok(!reply.text.includes(TOKEN), `${what}: the answer echoes no secret`);
    }
    const query = await call(t.url, 'GET', `/v1/vector_stores?token=${TOKEN}&api_key=${TOKEN}`);
    assert.equal(query.status, 401, 'a token in the URL is not accepted');
    const gateway = await call(t.url, 'GET', '/v1/completions/models', { headers: { 'api-key': TOKEN.slice(1) } });
    assert.equal(gateway.status, 401);
    const ok = await t.docs('GET', '/v1/vector_stores');
    assert.equal(ok.status, 200, 'the real token works');
  });

  it('allows no cross-origin reads from a web page', async () => {
    const preflight = await call(t.url, 'OPTIONS', '/v1/vector_stores', {
      headers: {
        origin: 'https://attacker.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const simple = await t.docs('GET', '/v1/vector_stores', undefined, {
      authorization: `Bearer ${TOKEN}`,
      origin: 'https://attacker.example',
    });
    assert.equal(simple.headers['access-control-allow-origin'], undefined);
    assert.equal(simple.headers['access-control-allow-credentials'], undefined);
  });
});
