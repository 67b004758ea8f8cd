import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { NetworkError, TimeoutError, ValidationError } from '../../../src/api/http/errors';
import { ProxyServer } from '../../support/servers/proxyServer';
import { ScriptServer, sendJson } from '../../support/servers/scriptServer';
import { documentsClient, recorder, rejects } from './helpers';

const store = { id: 'vs_1', object: 'vector_store', name: 'n', created_at: 1, metadata: {} };
const serve = (server: ScriptServer) => server.on('GET', '/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));

describe('dispatcher: proxy, no-proxy and certificates', () => {
  let server: ScriptServer;
  let proxy: ProxyServer;

  before(async () => {
    server = await ScriptServer.start();
    serve(server);
    proxy = await ProxyServer.start();
  });
  beforeEach(() => {
    proxy.targets.length = 0;
    proxy.proxyAuth.length = 0;
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  it('sends through the configured proxy', async () => {
    const client = documentsClient(server.url, { transport: { proxy: proxy.url } });
    assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
    await client.close();
    assert.equal(proxy.targets.length, 1);
    assert.match(proxy.targets[0]!, new RegExp(`127\\.0\\.0\\.1:${server.port}`));
  });

  it('passes proxy credentials from the proxy URL and keeps them out of messages', async () => {
    const withAuth = proxy.url.replace('http://', 'http://alice:s3cret@');
    const client = documentsClient(server.url, { transport: { proxy: withAuth } });
    await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.equal(proxy.proxyAuth[0], `Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
    const broken = documentsClient(server.url, { transport: { proxy: 'http://alice:s3cret@' } });
    const error = await rejects(broken.retrieveVectorStore('vs_1'), ValidationError);
    assert.equal(error.field, 'transport.proxy');
    assert.ok(!error.message.includes('s3cret'), error.message);
  });

  it('bypasses the proxy for hosts on the no-proxy list', async () => {
    const client = documentsClient(server.url, { transport: { proxy: proxy.url, noProxy: ['localhost', '127.0.0.1'] } });
    await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.deepEqual(proxy.targets, []);
  });

  it('uses HTTP_PROXY from the environment unless told not to', async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
    process.env.HTTP_PROXY = proxy.url;
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    try {
      const viaEnv = documentsClient(server.url);
      await viaEnv.retrieveVectorStore('vs_1');
      await viaEnv.close();
      assert.equal(proxy.targets.length, 1);
      const direct = documentsClient(server.url, { transport: { useEnvProxy: false } });
      await direct.retrieveVectorStore('vs_1');
      await direct.close();
      assert.equal(proxy.targets.length, 1);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
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

  describe('TLS', () => {
    let dir: string;
    let certFile: string;
    let secure: ScriptServer;

    before(async function () {
      dir = mkdtempSync(join(tmpdir(), 'docchat-tls-'));
      certFile = join(dir, 'cert.pem');
      const keyFile = join(dir, 'key.pem');
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
      ], { stdio: 'ignore' });
      secure = await ScriptServer.start({ tls: { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') } });
      serve(secure);
    });
    after(async () => {
      await secure.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses an unknown certificate authority with a hint, without retrying', async () => {
      const client = documentsClient(secure.url);
      const error = await rejects(client.retrieveVectorStore('vs_1'), NetworkError);
      await client.close();
      assert.match(error.message, /certificate of 127\.0\.0\.1:\d+ could not be verified/);
      assert.match(error.hint!, /extra CA certificates/);
      assert.equal(error.retryable, false);
      assert.equal(secure.requests.length, 0);
    });

    it('trusts extra CA files and CA text, keeping the system roots', async () => {
      const fromFile = documentsClient(secure.url, { transport: { caFiles: [certFile] } });
      assert.equal((await fromFile.retrieveVectorStore('vs_1')).id, 'vs_1');
      await fromFile.close();
      const fromText = documentsClient(secure.url, { transport: { ca: [readFileSync(certFile, 'utf8')] } });
      assert.equal((await fromText.retrieveVectorStore('vs_1')).id, 'vs_1');
      await fromText.close();
    });

    it('tunnels https through the proxy with the extra CA', async () => {
      const client = documentsClient(secure.url, { transport: { proxy: proxy.url, caFiles: [certFile] } });
      assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
      await client.close();
      assert.deepEqual(proxy.targets, [`127.0.0.1:${secure.port}`]);
    });

    it('accepts any certificate when strict SSL is off', async () => {
      const client = documentsClient(secure.url, { transport: { strictSSL: false } });
      assert.equal((await client.retrieveVectorStore('vs_1')).id, 'vs_1');
      await client.close();
    });

    it('reports an unreadable CA file as a setting problem', async () => {
      const client = documentsClient(secure.url, { transport: { caFiles: [join(dir, 'missing.pem')] } });
      const error = await rejects(client.retrieveVectorStore('vs_1'), ValidationError);
      assert.equal(error.field, 'transport.caFiles');
      assert.match(error.message, /missing\.pem.*ENOENT/);
    });
  });
});
