import * as assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { detectModelServers, modelServerCandidates, probeModelServer } from '../../../src/services/modelServers';

// Detection of local language-model servers against real HTTP servers on 127.0.0.1: each model
// list shape, a port that answers something else, and a port that never answers (bounded).

interface TestServer {
  port: number;
  requests: string[];
  /** Resolves when the server has received a request for `path`. */
  received(path: string): Promise<void>;
  close(): Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TestServer> {
  const requests: string[] = [];
  const waiters: Array<{ path: string; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    for (const w of waiters.filter((w) => w.path === req.url)) w.resolve();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    received: (path) => (requests.includes(path) ? Promise.resolve() : new Promise((resolve) => waiters.push({ path, resolve }))),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const openAi = (req: http.IncomingMessage, res: http.ServerResponse) =>
  req.url === '/v1/models'
    ? json(res, 200, {
        object: 'list',
        data: [{ id: 'llama3.2', object: 'model' }, { id: 'nomic-embed-text', object: 'model' }, { id: 'qwen2.5' }],
      })
    : json(res, 404, { error: 'not found' });
/** An older Ollama: no OpenAI-compatible list, only its own `/api/tags`. */
const ollamaOnly = (req: http.IncomingMessage, res: http.ServerResponse) =>
  req.url === '/api/tags'
    ? json(res, 200, { models: [{ name: 'mistral:7b', size: 1 }, { name: 'gemma2:2b' }] })
    : json(res, 404, { error: 'not found' });
const somethingElse = (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<html><body>A web app, not a model server</body></html>');
};
const wrongJson = (_req: http.IncomingMessage, res: http.ServerResponse) => json(res, 200, { data: 'not a list' });
/** Accepts the request and never answers. */
const hangs = () => undefined;

describe('language-model server detection', () => {
  const servers: TestServer[] = [];
  async function start(handler: Parameters<typeof serve>[0]): Promise<TestServer> {
    const server = await serve(handler);
    servers.push(server);
    return server;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('finds an OpenAI-compatible server by GET /v1/models, leaving embedding models out', async () => {
    const server = await start(openAi);
    const found = await probeModelServer(`http://127.0.0.1:${server.port}`);
    assert.deepEqual(found, { url: `http://127.0.0.1:${server.port}/v1`, models: ['llama3.2', 'qwen2.5'], shape: 'openai' });
  });

  it('finds Ollama by its own /api/tags list when /v1/models does not answer, and forwards to its /v1', async () => {
    const server = await start(ollamaOnly);
    const found = await probeModelServer(`http://127.0.0.1:${server.port}/`, { ollama: true });
    assert.deepEqual(found, { url: `http://127.0.0.1:${server.port}/v1`, models: ['mistral:7b', 'gemma2:2b'], shape: 'ollama' });
    // Then what it says of each model (this older one answers no /api/show: both are kept).
    assert.deepEqual(server.requests, ['/v1/models', '/api/tags', '/api/v0/models', '/api/show', '/api/show']);
    // Without the Ollama flag only the OpenAI list is asked.
    assert.equal(await probeModelServer(`http://127.0.0.1:${server.port}`), undefined);
  });

  it("leaves out the models LM Studio's own list types as not chatting (embeddings), keeping llm and vlm", async () => {
    const server = await start((req, res) =>
      req.url === '/v1/models'
        ? json(res, 200, { data: ['qwen2.5-7b', 'bge-m3', 'llava-1.6', 'whisper-1'].map((id) => ({ id })) })
        : req.url === '/api/v0/models'
          ? json(res, 200, {
              data: [
                { id: 'qwen2.5-7b', type: 'llm' },
                { id: 'bge-m3', type: 'embeddings' },
                { id: 'llava-1.6', type: 'vlm' },
              ],
            })
          : json(res, 404, { error: 'not found' }),
    );
    const found = await probeModelServer(`http://127.0.0.1:${server.port}`);
    // whisper-1 has no type in that list: the server says nothing of it, so it stays.
    assert.deepEqual(found?.models, ['qwen2.5-7b', 'llava-1.6', 'whisper-1']);
  });

  it('leaves out the Ollama models whose /api/show capabilities lack completion (embedding models), keeping those it says nothing of', async () => {
    const capabilities: Record<string, string[] | undefined> = {
      'llama3.2': ['completion', 'tools'],
      'bge-m3': ['embedding'],
      'old-model': undefined,
    };
    const server = await start((req, res) => {
      if (req.url === '/v1/models') return json(res, 200, { data: Object.keys(capabilities).map((id) => ({ id })) });
      if (req.url === '/api/show' && req.method === 'POST') {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          const model = (JSON.parse(raw) as { model: string }).model;
          const caps = capabilities[model];
          json(res, 200, caps ? { capabilities: caps, details: {} } : { details: {} });
        });
        return;
      }
      json(res, 404, { error: 'not found' });
    });
    const found = await probeModelServer(`http://127.0.0.1:${server.port}`, { ollama: true });
    assert.deepEqual(found?.models, ['llama3.2', 'old-model']);
  });

  it('skips a port that answers something else (HTML, or JSON of another shape)', async () => {
    const html = await start(somethingElse);
    const other = await start(wrongJson);
    assert.equal(await probeModelServer(`http://127.0.0.1:${html.port}`, { ollama: true }), undefined);
    assert.equal(await probeModelServer(`http://127.0.0.1:${other.port}`, { ollama: true }), undefined);
  });

  it('gives up on a port that never answers once the probe is aborted', async () => {
    const server = await start(hangs);
    const abort = new AbortController();
    const probe = probeModelServer(`http://127.0.0.1:${server.port}`, { signal: abort.signal, timeoutMs: 600_000, ollama: true });
    await server.received('/v1/models');
    abort.abort();
    assert.equal(await probe, undefined);
    assert.deepEqual(server.requests, ['/v1/models'], 'nothing more is asked after the abort');
  });

  it('bounds every probe by its timeout: a hanging port does not hold up detection', async () => {
    const hanging = await start(hangs);
    const real = await start(openAi);
    const ollama = await start(ollamaOnly);
    const html = await start(somethingElse);
    const found = await detectModelServers(
      [
        { name: 'Hangs', port: hanging.port },
        { name: 'LM Studio', port: real.port },
        { name: 'Ollama', port: ollama.port, ollama: true },
        { name: 'Web app', port: html.port },
      ],
      // Long enough for a busy machine's real servers; the hanging port ends at this bound.
      { timeoutMs: 3000 },
    );
    assert.deepEqual(
      found.map((s) => [s.name, s.shape, s.models]),
      [
        ['LM Studio', 'openai', ['llama3.2', 'qwen2.5']],
        ['Ollama', 'ollama', ['mistral:7b', 'gemma2:2b']],
      ],
    );
    assert.deepEqual(hanging.requests, ['/v1/models'], 'the hanging port was asked, and skipped');
  });

  it('skips a port nobody listens on', async () => {
    const server = await start(openAi);
    const { port } = server;
    await server.close();
    servers.pop();
    assert.deepEqual(await detectModelServers([{ name: 'Gone', port }]), []);
  });

  it('sends the key the user gave as a bearer token', async () => {
    let authorization: string | undefined;
    const server = await start((req, res) => {
      authorization = req.headers.authorization;
      return authorization === 'Bearer sk-test' ? openAi(req, res) : json(res, 401, { error: 'unauthorized' });
    });
    assert.equal(await probeModelServer(`http://127.0.0.1:${server.port}/v1`), undefined);
    assert.ok(await probeModelServer(`http://127.0.0.1:${server.port}/v1`, { key: 'sk-test' }));
    assert.equal(authorization, 'Bearer sk-test');
  });

  it('probes the usual ports unless tests name others', () => {
    assert.deepEqual(
      modelServerCandidates(undefined).map((c) => c.port),
      [11434, 1234, 8080, 8000],
    );
    assert.equal(modelServerCandidates(undefined)[0]?.ollama, true);
    assert.deepEqual(
      modelServerCandidates('4567, 4568/ollama').map((c) => [c.port, c.ollama ?? false]),
      [
        [4567, false],
        [4568, true],
      ],
    );
    assert.deepEqual(
      modelServerCandidates('nonsense').map((c) => c.port),
      [11434, 1234, 8080, 8000],
    );
  });
});
