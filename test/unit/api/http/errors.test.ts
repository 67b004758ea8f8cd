import * as assert from 'node:assert/strict';
import { Agent } from 'undici';
import {
  AbortedError,
  AuthError,
  DocChatError,
  isAbortError,
  NotFoundError,
  ProtocolError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../../../src/api/http/errors';
import { ScriptServer, sendJson, sendText } from '../../../support/servers/scriptServer';
import { documentsClient, gatewayClient, recorder, rejects, TOKEN } from '../helpers';

const store = { id: 'vs_1', object: 'vector_store', name: 'n', created_at: 1, metadata: {} };
const PATH = '/v1/vector_stores/vs_1';

describe('errors and the token', () => {
  let server: ScriptServer;

  before(async () => {
    server = await ScriptServer.start();
  });
  beforeEach(() => server.reset());
  after(() => server.close());

  async function failure<E extends DocChatError>(respond: Parameters<ScriptServer['on']>[2], type: new (...a: any[]) => E): Promise<E> {
    server.on('GET', PATH, respond);
    const client = documentsClient(server.url, { transport: { maxRetries: 0 } });
    try {
      return await rejects(client.retrieveVectorStore('vs_1'), type);
    } finally {
      await client.close();
    }
  }

  it('takes the message, type, code and param from an {error: {...}} body and keeps the request id', async () => {
    const error = await failure(
      (_r, res) =>
        sendJson(
          res,
          400,
          { error: { message: 'Name taken', type: 'invalid_request_error', param: 'name', code: 'duplicate' } },
          { 'x-request-id': 'req_42' },
        ),
      ValidationError,
    );
    assert.equal(error.message, 'Name taken.');
    assert.equal(error.field, 'name');
    assert.equal(error.code, 'duplicate');
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.status, 400);
    assert.equal(error.requestId, 'req_42');
    assert.match(error.describe(), /req_42/);
  });

  it('takes the message from other bodies: {message}, {error: "…"}, {detail}, plain text', async () => {
    assert.equal((await failure((_r, res) => sendJson(res, 404, { message: 'No such store' }), NotFoundError)).message, 'No such store.');
    server.reset();
    assert.equal((await failure((_r, res) => sendJson(res, 500, { error: 'database is down' }), ServerError)).message, 'database is down.');
    server.reset();
    const detail = await failure(
      (_r, res) => sendJson(res, 422, { detail: [{ loc: ['body', 'name'], msg: 'too long' }] }),
      ValidationError,
    );
    assert.equal(detail.message, 'name: too long.');
    assert.equal(detail.field, 'name');
    server.reset();
    assert.equal((await failure((_r, res) => sendText(res, 503, 'upstream overloaded'), ServerError)).message, 'upstream overloaded.');
    server.reset();
    const bare = await failure((_r, res) => sendText(res, 404, ''), NotFoundError);
    assert.match(bare.message, /Not found at the documents service: \/v1\/vector_stores\/vs_1/);
  });

  it('maps statuses to kinds', async () => {
    const cases: [number, new (...a: any[]) => DocChatError, string][] = [
      [401, AuthError, 'auth'],
      [403, AuthError, 'auth'],
      [404, NotFoundError, 'not_found'],
      [408, TimeoutError, 'timeout'],
      [409, ValidationError, 'validation'],
      [413, ValidationError, 'validation'],
      [429, RateLimitError, 'rate_limit'],
      [500, ServerError, 'server'],
      [501, ServerError, 'server'],
    ];
    for (const [status, type, kind] of cases) {
      server.reset();
      const error = await failure((_r, res) => sendJson(res, status, { error: { message: `e${status}` } }, { 'retry-after': '3' }), type);
      assert.equal(error.kind, kind, `status ${status}`);
      assert.equal(error.status, status);
    }
    server.reset();
    const auth = await failure((_r, res) => sendJson(res, 401, {}), AuthError);
    assert.match(auth.message, /rejected the token/);
    assert.match(auth.hint!, /token is set/);
    server.reset();
    const limited = await failure((_r, res) => sendJson(res, 429, {}, { 'retry-after': '3' }), RateLimitError);
    assert.equal(limited.retryAfterMs, 3000);
    assert.match(limited.message, /Try again in 3 s/);
  });

  it('reports a 5xx with an HTML, broken or empty body as a server error with its status', async () => {
    const html = await failure(
      (_r, res) => sendText(res, 502, '<!DOCTYPE html><html><body>Bad gateway</body></html>', 'text/html'),
      ServerError,
    );
    assert.equal(html.status, 502);
    assert.equal(
      html.message,
      'The documents service is failing behind its gateway (502 Bad Gateway) (it sent an error page instead of API data).',
    );
    assert.doesNotMatch(`${html.message} ${html.hint}`, /proxy or sign-in/);
    assert.equal(html.retryable, true);
    server.reset();
    const broken = await failure((_r, res) => sendText(res, 500, '{"error": {"message": ', 'application/json'), ServerError);
    assert.equal(broken.message, 'The documents service failed with a server error (500) (with a broken JSON body).');
    server.reset();
    const empty = await failure((_r, res) => sendText(res, 503, '', 'text/plain'), ServerError);
    assert.equal(empty.message, 'The documents service is unavailable (503 Service Unavailable).');
    server.reset();
    const gatewayTimeout = await failure((_r, res) => sendText(res, 504, '', 'application/json'), ServerError);
    assert.match(gatewayTimeout.message, /504 Gateway Timeout/);
    server.reset();
  });

  it('reports a 4xx web page (a proxy or sign-in page) and malformed JSON as protocol errors', async () => {
    const html = await failure(
      (_r, res) => sendText(res, 403, '<!DOCTYPE html><html><body>Sign in</body></html>', 'text/html'),
      ProtocolError,
    );
    assert.equal(html.status, 403);
    assert.match(html.message, /web page/);
    assert.match(html.hint!, /proxy/);
    server.reset();
    const malformed = await failure((_r, res) => sendText(res, 400, '{"error": {"message": ', 'application/json'), ProtocolError);
    assert.match(malformed.message, /malformed JSON/);
    server.reset();
    const okHtml = await failure((_r, res) => sendText(res, 200, '<html><body>Sign in</body></html>', 'text/html'), ProtocolError);
    assert.match(okHtml.message, /web page/);
    server.reset();
    const okBroken = await failure((_r, res) => sendText(res, 200, '{"id": "vs_1",', 'application/json'), ProtocolError);
    assert.match(okBroken.message, /malformed JSON/);
    server.reset();
    const wrongShape = await failure((_r, res) => sendJson(res, 200, { name: 'no id' }), ProtocolError);
    assert.match(wrongShape.message, /unexpected vector store.*"id"/);
  });

  it('never puts the token into an error message or a log line', async () => {
    const record = recorder();
    server.on('GET', PATH, (r, res) => sendJson(res, 401, { error: { message: `Token ${r.headers.authorization} is not valid` } }));
    const client = documentsClient(server.url, { record });
    const error = await rejects(client.retrieveVectorStore('vs_1'), AuthError);
    await client.close();
    assert.ok(!error.message.includes(TOKEN), error.message);
    assert.match(error.message, /Token Bearer \*\*\* is not valid/);
    assert.ok(record.logs.length > 0);
    for (const line of record.logs) assert.ok(!line.message.includes(TOKEN), line.message);
  });

  it('asks a token function for every request and refuses to send without a token', async () => {
    server.on('GET', PATH, (_r, res) => sendJson(res, 200, store));
    let n = 0;
    const client = documentsClient(server.url, { token: async () => `tok-${++n}` });
    await client.retrieveVectorStore('vs_1');
    await client.retrieveVectorStore('vs_1');
    await client.close();
    assert.deepEqual(
      server.requests.map((r) => r.headers.authorization),
      ['Bearer tok-1', 'Bearer tok-2'],
    );
    server.requests.length = 0;
    const none = documentsClient(server.url, { token: '' });
    const error = await rejects(none.retrieveVectorStore('vs_1'), AuthError);
    await none.close();
    assert.match(error.message, /No token is set/);
    assert.equal(server.requests.length, 0);
  });

  it('does not follow a redirect to another origin, so the token stays home', async () => {
    const other = await ScriptServer.start();
    other.on('GET', PATH, (_r, res) => sendJson(res, 200, store));
    server.on('GET', PATH, (_r, res) => {
      res.writeHead(307, { location: `${other.url}${PATH}` });
      res.end();
    });
    const client = documentsClient(server.url);
    const error = await rejects(client.retrieveVectorStore('vs_1'), ProtocolError);
    await client.close();
    assert.match(error.message, /redirected to another address \(http:\/\/127\.0\.0\.1:\d+\)/);
    assert.match(error.message, /token is not sent there/);
    assert.equal(other.requests.filter((r) => r.headers.authorization || r.headers['api-key']).length, 0);
    assert.equal(other.requests.length, 0);

    // The gateway's Api-Key is kept back the same way; localhost vs 127.0.0.1 is another origin too.
    other.on('GET', '/v1/completions/models', (_r, res) => sendJson(res, 200, []));
    server.on('GET', '/v1/completions/models', (_r, res) => {
      res.writeHead(302, { location: `http://localhost:${other.port}/v1/completions/models` });
      res.end();
    });
    const gateway = gatewayClient(server.url);
    await rejects(gateway.listCompletionModels(), ProtocolError);
    await gateway.close();
    assert.equal(other.requests.length, 0);
    await other.close();
  });

  it('follows a redirect on the same origin with the token', async () => {
    server.on('GET', '/v1/vector_stores/old', (_r, res) => {
      res.writeHead(301, { location: PATH });
      res.end();
    });
    server.on('GET', PATH, (_r, res) => sendJson(res, 200, store));
    const client = documentsClient(server.url);
    const result = await client.retrieveVectorStore('old');
    await client.close();
    assert.equal(result.id, 'vs_1');
    assert.deepEqual(
      server.requests.map((r) => [r.path, r.headers.authorization]),
      [
        ['/v1/vector_stores/old', `Bearer ${TOKEN}`],
        [PATH, `Bearer ${TOKEN}`],
      ],
    );
  });

  it('refuses plain http:// to a host other than this machine unless allowed', async () => {
    const client = documentsClient('http://docs.example.com');
    const error = await rejects(client.listVectorStores(), ValidationError);
    await client.close();
    assert.equal(error.field, 'baseUrl');
    assert.match(error.message, /plain http:\/\/ to docs\.example\.com/);
    for (const url of ['http://localhost:1', 'http://127.0.0.2:1', 'http://[::1]:1']) {
      const local = documentsClient(url, { transport: { maxRetries: 0 } });
      const e = await rejects(local.listVectorStores(), DocChatError);
      await local.close();
      assert.notEqual(e.kind, 'validation', url);
    }
    await rejects(documentsClient('ftp://x').listVectorStores(), ValidationError);
    await rejects(documentsClient('not a url').listVectorStores(), ValidationError);
    const invalid = await rejects(documentsClient('https://[docs/v1?key=s3cr3t').listVectorStores(), ValidationError);
    assert.match(invalid.message, /"https:\/\/\[docs\/v1" is not a valid URL/);
    assert.doesNotMatch(invalid.message, /s3cr3t/);
  });

  it("keeps the base URL's query on every request (a request's own parameter wins), drops its fragment, and logs only the path", async () => {
    server.on('GET', '/gw/v1/vector_stores', (_r, res) => sendJson(res, 200, { object: 'list', data: [store], has_more: false }));
    server.on('GET', '/gw/v1/vector_stores/vs_1', (_r, res) => sendJson(res, 200, store));
    const record = recorder();
    const client = documentsClient(`${server.url}/gw/v1/?api-version=2024-10-01&limit=7&key=s3cr3t&sig=a~b%2Fc&flag#frag`, { record });
    await client.retrieveVectorStore('vs_1');
    await client.listVectorStores({ limit: 2 });
    await client.close();
    const [one, list] = server.requests;
    assert.equal(one!.path, '/gw/v1/vector_stores/vs_1');
    assert.deepEqual(
      [...one!.query],
      [
        ['api-version', '2024-10-01'],
        ['limit', '7'],
        ['key', 's3cr3t'],
        ['sig', 'a~b/c'],
        ['flag', ''],
      ],
    );
    // As written: a signed query is not re-encoded.
    assert.equal(one!.search, '?api-version=2024-10-01&limit=7&key=s3cr3t&sig=a~b%2Fc&flag');
    assert.equal(list!.path, '/gw/v1/vector_stores');
    assert.equal(list!.query.get('api-version'), '2024-10-01');
    assert.deepEqual(list!.query.getAll('limit'), ['2'], "the request's own limit replaces the base URL's");
    assert.match(list!.search, /^\?api-version=2024-10-01&key=s3cr3t&sig=a~b%2Fc&flag&/);
    assert.ok(record.logs.length > 0, 'requests are logged');
    for (const { message } of record.logs) assert.doesNotMatch(message, /s3cr3t|api-version|frag/, message);
  });

  it('sends plain http:// to another host when allowInsecureHttp is set', async () => {
    server.on('GET', PATH, (_r, res) => sendJson(res, 200, store));
    // Every host name resolves to this machine, so nothing leaves 127.0.0.1.
    const local = new Agent({
      connect: {
        lookup: (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4),
      } as never,
    });
    const baseUrl = `http://docs.example.test:${server.port}`;
    const refused = documentsClient(baseUrl, { transport: { dispatcher: local } });
    await rejects(refused.retrieveVectorStore('vs_1'), ValidationError);
    assert.equal(server.count(), 0);
    const allowed = documentsClient(baseUrl, { transport: { dispatcher: local, allowInsecureHttp: true } });
    assert.equal((await allowed.retrieveVectorStore('vs_1')).id, 'vs_1');
    assert.equal(server.requests[0]!.headers.host, `docs.example.test:${server.port}`);
    await local.close();
  });

  it('times out waiting for headers, and cancels on abort', async () => {
    let arrived: () => void = () => undefined;
    server.on('GET', PATH, () => arrived()); // never answers
    const slow = documentsClient(server.url, { transport: { headersTimeoutMs: 100, maxRetries: 0 } });
    const timeout = await rejects(slow.retrieveVectorStore('vs_1'), TimeoutError);
    await slow.close();
    assert.match(timeout.message, /did not answer/);

    const client = documentsClient(server.url);
    const controller = new AbortController();
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const pending = client.retrieveVectorStore('vs_1', { signal: controller.signal });
    // Abort once the request is at the server, so the abort is of a request in flight.
    await reached;
    controller.abort();
    await rejects(pending, AbortedError);
    assert.equal(server.count('GET', PATH), 2, 'the aborted request is not retried');
    await rejects(client.retrieveVectorStore('vs_1', { signal: AbortSignal.abort() }), AbortedError);
    assert.equal(server.count('GET', PATH), 2, 'an already aborted signal sends nothing');
    await client.close();
  });

  it('tells a cancellation from a failure one way: DocChat’s aborted errors and an AbortError, nothing else', async () => {
    assert.equal(isAbortError(new AbortedError()), true);
    assert.equal(isAbortError(new DocChatError('aborted', 'Stopped.')), true);
    const signal = AbortSignal.abort();
    assert.equal(isAbortError(signal.reason), true, 'the reason of an aborted signal (a DOMException named AbortError)');
    const fetchAbort = await fetch('http://127.0.0.1:9', { signal }).catch((error: unknown) => error);
    assert.equal(isAbortError(fetchAbort), true, 'fetch with an aborted signal');
    for (const failure of [new TimeoutError('Slow.'), new ServerError('Down.'), new Error('aborted'), 'AbortError', undefined]) {
      assert.equal(isAbortError(failure), false, String(failure));
    }
  });
});
