import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import * as tls from 'node:tls';
import { secureContextFor, systemCertificates, trustedCertificates } from '../../../../src/api/http/certificates';
import { tlsOptions } from '../../../../src/api/http/dispatcher';
import { NetworkError, TimeoutError, ValidationError } from '../../../../src/api/http/errors';
import { ProxyServer } from '../../../support/servers/proxyServer';
import { chatChunk, ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';
import { TEST_HOST, TestCa } from '../../../support/servers/testCa';
import type { ChatStreamPart } from '../../../../src/api/gateway/schemas';
import { documentsClient, gatewayClient, recorder, rejects } from '../helpers';

const store = { id: 'vs_1', object: 'vector_store', name: 'n', created_at: 1, metadata: {} };
const serve = (server: ScriptServer) => server.on('GET', '/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('dispatcher: proxy, no-proxy and certificates', () => {
  let server: ScriptServer;
  let proxy: ProxyServer;
  /** The plain-http test server under a name only the proxy can resolve. */
  let named: string;

  before(async () => {
    server = await ScriptServer.start();
    serve(server);
    proxy = await ProxyServer.start();
    named = `http://${TEST_HOST}:${server.port}`;
  });
  beforeEach(() => {
    proxy.targets.length = 0;
    proxy.proxyAuth.length = 0;
    proxy.log.length = 0;
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  const viaName = (transport: Record<string, unknown>) =>
    documentsClient(named, { transport: { allowInsecureHttp: true, env: {}, ...transport } });

  it('sends a named host through the configured proxy', async () => {
    const client = viaName({ proxy: proxy.url });
    assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
    await client.close();
    assert.equal(proxy.targets.length, 1);
    assert.match(proxy.targets[0]!, new RegExp(`${TEST_HOST.replace(/\./g, '\\.')}:${server.port}`));
  });

  it('never sends loopback through the proxy, whatever the settings and environment say', async () => {
    for (const url of [server.url, `http://localhost:${server.port}`]) {
      const explicit = documentsClient(url, { transport: { proxy: proxy.url, noProxy: [], env: {} } });
      await explicit.retrieveVectorStore('vs_1');
      await explicit.close();
      // The usual corporate environment with VS Code's http.noProxy unset.
      const fromEnv = documentsClient(url, {
        transport: { noProxy: [], env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NO_PROXY: '' } },
      });
      await fromEnv.retrieveVectorStore('vs_1');
      await fromEnv.close();
    }
    assert.deepEqual(proxy.targets, []);
  });

  it('passes proxy credentials from the proxy URL and keeps them out of messages', async () => {
    const client = viaName({ proxy: proxy.url.replace('http://', 'http://alice:s3cret@') });
    await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.equal(proxy.proxyAuth[0], basic('alice', 's3cret'));
    const broken = viaName({ proxy: 'http://alice:s3cret@' });
    const error = await rejects(broken.retrieveVectorStore('vs_1'), ValidationError);
    assert.equal(error.field, 'transport.proxy');
    assert.ok(!error.message.includes('s3cret'), error.message);
  });

  it('sends http.proxyAuthorization as Proxy-Authorization, over credentials in the URL', async () => {
    const client = viaName({ proxy: proxy.url.replace('http://', 'http://alice:old@'), proxyAuthorization: 'Negotiate abc123' });
    await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.equal(proxy.proxyAuth[0], 'Negotiate abc123');
  });

  it('lets hosts in http.noProxy or NO_PROXY go direct (neither replaces the other)', async () => {
    const env = { HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1,.corp.test' };
    // Direct means this machine's resolver, which does not know *.test: the lookup fails, the proxy sees nothing.
    const byEnv = viaName({ noProxy: ['other.example'], env });
    const error = await rejects(byEnv.retrieveVectorStore('vs_1'), NetworkError);
    await byEnv.close();
    assert.match(error.message, /Could not find the host docs\.corp\.test/);
    const bySetting = viaName({ noProxy: ['corp.test'], env: { HTTP_PROXY: proxy.url } });
    await rejects(bySetting.retrieveVectorStore('vs_1'), NetworkError);
    await bySetting.close();
    assert.deepEqual(proxy.targets, []);
    const notExempt = viaName({ noProxy: ['other.example'], env: { HTTP_PROXY: proxy.url, NO_PROXY: 'docs.corp.test:1' } });
    await notExempt.retrieveVectorStore('vs_1');
    await notExempt.close();
    assert.equal(proxy.targets.length, 1, 'an exemption for another port does not apply');
  });

  it('uses HTTP_PROXY from the environment unless told not to', async () => {
    const viaEnv = viaName({ env: { http_proxy: proxy.url } });
    await viaEnv.retrieveVectorStore('vs_1');
    await viaEnv.close();
    assert.equal(proxy.targets.length, 1);
    const direct = viaName({ env: { HTTP_PROXY: proxy.url }, useEnvProxy: false });
    await rejects(direct.retrieveVectorStore('vs_1'), NetworkError);
    await direct.close();
    assert.equal(proxy.targets.length, 1);
  });

  it('refuses a proxy URL of another scheme with a sentence naming it', async () => {
    const client = viaName({ proxy: 'socks5://proxy.example:1080' });
    const error = await rejects(client.retrieveVectorStore('vs_1'), ValidationError);
    assert.match(error.message, /must start with http:\/\/ or https:\/\/ \(DocChat does not speak socks5 proxies\)/);
  });

  it('times out a connection that never completes its handshake, and retries even a POST then', async () => {
    // Accepts TCP but never answers the TLS hello.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const { port } = silent.address() as AddressInfo;
    const record = recorder();
    const client = documentsClient(`https://127.0.0.1:${port}`, { record, transport: { connectTimeoutMs: 100 } });
    const error = await rejects(client.createVectorStore({ name: 'n' }), TimeoutError);
    await client.close();
    assert.match(error.message, /Connecting to the documents service at https:\/\/127\.0\.0\.1:\d+ timed out/);
    assert.equal(record.retries.length, 2, 'nothing reached the server, so the POST was retried');
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  describe('TLS with a company certificate authority', () => {
    let ca: TestCa;
    let secure: ScriptServer;
    const extra: ScriptServer[] = [];

    const start = async (tls: { key: string; cert: string }) => {
      const s = await ScriptServer.start({ tls });
      serve(s);
      extra.push(s);
      return s;
    };

    before(async function () {
      this.timeout(60_000);
      ca = TestCa.create();
      secure = await start(ca.leaf('docs'));
    });
    after(async () => {
      for (const s of extra) await s.close();
      ca.dispose();
    });

    it('trusts the CA from docchat.network.caFiles, from NODE_EXTRA_CA_CERTS and as text', async () => {
      const fromFile = documentsClient(secure.url, { transport: { caFiles: [ca.certFile], env: {} } });
      assert.equal((await fromFile.retrieveVectorStore('vs_1')).id, 'vs_1');
      await fromFile.close();
      const fromEnv = documentsClient(secure.url, { transport: { env: { NODE_EXTRA_CA_CERTS: ca.certFile } } });
      assert.equal((await fromEnv.retrieveVectorStore('vs_1')).id, 'vs_1');
      await fromEnv.close();
      const fromText = documentsClient(secure.url, { transport: { ca: [ca.cert], env: {} } });
      assert.equal((await fromText.retrieveVectorStore('vs_1')).id, 'vs_1');
      await fromText.close();
    });

    it("keeps Node's roots and the system store beside a configured CA, in the context connections use", () => {
      // No public server is reachable from a test, so this looks at the list the TLS context is
      // built from (and at the one shared context tlsOptions hands the dispatcher) instead.
      const roots = [...tls.rootCertificates];
      const system = systemCertificates();
      const withSystem = trustedCertificates({ caFiles: [ca.certFile], env: { NODE_EXTRA_CA_CERTS: ca.certFile } });
      assert.deepEqual(withSystem, [...roots, ...system, ca.cert, ca.cert]);
      assert.deepEqual(trustedCertificates({ ca: [ca.cert], systemCertificates: false, env: {} }), [...roots, ca.cert]);
      assert.ok(roots.length > 100, `Node's roots: ${roots.length}`);
      const options = tlsOptions({ caFiles: [ca.certFile], env: {} });
      assert.equal(options.secureContext, secureContextFor([...roots, ...system, ca.cert]), 'the dispatcher uses the full list');
      assert.equal(options.rejectUnauthorized, true);
    });

    it('tunnels https through the proxy with the CA (the proxy logs the tunnel)', async () => {
      const client = documentsClient(`https://${TEST_HOST}:${secure.port}`, {
        transport: { proxy: proxy.url, caFiles: [ca.certFile], env: {} },
      });
      assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
      await client.close();
      assert.deepEqual(proxy.log, [`CONNECT ${TEST_HOST}:${secure.port} 200`]);
    });

    it("streams the gateway's chat answer through the proxy's tunnel, in pieces", async () => {
      const words = ['Through ', 'the ', 'tunnel.'];
      const events = [
        chatChunk('', { role: 'assistant' }),
        ...words.map((w) => chatChunk(w)),
        chatChunk(undefined, { finish_reason: 'stop' }),
      ];
      let received!: () => void;
      const firstWordReceived = new Promise<void>((resolve) => (received = resolve));
      secure.on('POST', '/v1/chat/completions', async (_r, res) => {
        // The rest is sent only once the first word came out of the tunnel: a proxy path that
        // buffered the answer would never finish.
        const first = sseBody(events.slice(0, 2), { done: false });
        await sendChunked(res, first, { end: false });
        await firstWordReceived;
        res.end(sseBody(events).slice(first.length));
      });
      const client = gatewayClient(`https://${TEST_HOST}:${secure.port}`, {
        transport: { proxy: proxy.url, caFiles: [ca.certFile], env: {} },
      });
      const parts: ChatStreamPart[] = [];
      for await (const part of client.streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })) {
        parts.push(part);
        if (part.content) received();
      }
      await client.close();
      assert.equal(parts.map((p) => p.content).join(''), words.join(''));
      assert.equal(parts.find((p) => p.content)?.content, words[0], 'the first word arrived before the rest was sent');
      assert.deepEqual(proxy.log, [`CONNECT ${TEST_HOST}:${secure.port} 200`]);
    });

    it('a proxy demanding credentials ends in one sentence naming it and the setting, then works with http.proxyAuthorization', async () => {
      const strict = await ProxyServer.start({ requireAuth: basic('bob', 'pw') });
      try {
        const url = `https://${TEST_HOST}:${secure.port}`;
        const without = documentsClient(url, { transport: { proxy: strict.url, caFiles: [ca.certFile], env: {} } });
        const error = await rejects(without.retrieveVectorStore('vs_1'), NetworkError);
        await without.close();
        assert.equal(
          error.message,
          `The proxy 127.0.0.1:${strict.port} asks for credentials (407 Proxy Authentication Required): set them in VS Code's http.proxyAuthorization setting or in the proxy URL (docchat.network.proxy).`,
        );
        assert.equal(error.retryable, false);
        const withAuth = documentsClient(url, {
          transport: { proxy: strict.url, caFiles: [ca.certFile], proxyAuthorization: basic('bob', 'pw'), env: {} },
        });
        assert.equal((await withAuth.retrieveVectorStore('vs_1')).id, 'vs_1');
        await withAuth.close();
        assert.deepEqual(strict.log, [`CONNECT ${TEST_HOST}:${secure.port} 407`, `CONNECT ${TEST_HOST}:${secure.port} 200`]);
      } finally {
        await strict.close();
      }
    });

    const failures: {
      name: string;
      code: string;
      why: RegExp;
      fix: RegExp;
      server: () => { key: string; cert: string };
      trustCa?: boolean;
    }[] = [
      {
        name: 'a self-signed certificate',
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        why: /is self-signed/,
        fix: /docchat\.network\.caFiles/,
        server: () => ca.selfSigned('self'),
      },
      {
        name: 'a leaf from an unknown CA',
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        why: /is signed by an unknown certificate authority/,
        fix: /docchat\.network\.caFiles \(or NODE_EXTRA_CA_CERTS\)/,
        server: () => ca.leaf('leafonly'),
      },
      {
        name: 'a chain ending in an untrusted root',
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
        why: /certificate authority that is not trusted/,
        fix: /docchat\.network\.caFiles/,
        server: () => {
          const leaf = ca.leaf('chain');
          return { key: leaf.key, cert: leaf.cert + ca.cert };
        },
      },
      {
        name: 'an expired certificate',
        code: 'CERT_HAS_EXPIRED',
        why: /has expired/,
        fix: /must renew it/,
        server: () => ca.leaf('old', { expired: true }),
        trustCa: true,
      },
      {
        name: 'a certificate for another host',
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        why: /is issued for another host name/,
        fix: /Check the URL/,
        server: () => ca.leaf('elsewhere', { names: 'DNS:elsewhere.test' }),
        trustCa: true,
      },
    ];
    for (const failure of failures) {
      it(`says which host, why and what fixes it for ${failure.name} (${failure.code}), without retrying`, async function () {
        this.timeout(30_000);
        const bad = await start(failure.server());
        const client = documentsClient(bad.url, { transport: { caFiles: failure.trustCa ? [ca.certFile] : [], env: {} } });
        const error = await rejects(client.retrieveVectorStore('vs_1'), NetworkError);
        await client.close();
        assert.match(error.message, new RegExp(`^The TLS certificate of 127\\.0\\.0\\.1:${bad.port} `));
        assert.match(error.message, failure.why);
        assert.ok(error.message.includes(`(${failure.code})`), error.message);
        assert.match(error.hint!, failure.fix);
        assert.equal(error.retryable, false);
        assert.equal(bad.requests.length, 0);
      });
    }

    it('accepts any certificate when strict SSL is off', async () => {
      const client = documentsClient(secure.url, { transport: { strictSSL: false, env: {} } });
      assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
      await client.close();
    });

    it('reads no certificates for plain http: a loopback service answers even with an unreadable CA file set', async () => {
      // The trust store is built for the first https connection only (it costs more than the rest of a first request).
      const client = documentsClient(server.url, { transport: { caFiles: [join(ca.dir, 'missing.pem')], env: {} } });
      assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
      await client.close();
    });

    it('reports an unreadable CA file as a setting problem', async () => {
      const client = documentsClient(secure.url, { transport: { caFiles: [join(ca.dir, 'missing.pem')] } });
      const error = await rejects(client.retrieveVectorStore('vs_1'), ValidationError);
      assert.equal(error.field, 'transport.caFiles');
      assert.match(error.message, /missing\.pem.*ENOENT/);
      const fromEnv = documentsClient(secure.url, { transport: { env: { NODE_EXTRA_CA_CERTS: join(ca.dir, 'gone.pem') } } });
      const envError = await rejects(fromEnv.retrieveVectorStore('vs_1'), ValidationError);
      assert.equal(envError.field, 'NODE_EXTRA_CA_CERTS');
    });
  });
});
