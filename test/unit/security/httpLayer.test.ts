/**
 * The HTTP layer answers every request: a client mistake gets a 4xx in the service's error shape
 * (never a 500 or a reset), ids are never path steps, an oversized body gets its 413 through a
 * real client, and a server fault is a 500 whose request id is in the log.
 */
import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { rawRequest, type RawReply } from '../../support/rawHttp';
import { API_KEY, startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

const auth = `Authorization: Bearer ${TOKEN}`;

function get(path: string, headers: string[] = [auth], method = 'GET'): string {
  return [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers, 'Connection: close', '', ''].join('\r\n');
}

function assertErrorShape(reply: { status: number; json: unknown }, status: number, code?: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.json));
  const error = (reply.json as { error: { message: string; type: string; code: string | null; param: unknown } }).error;
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 10, error.message);
  assert.equal(typeof error.type, 'string');
  assert.ok('param' in error && 'code' in error);
  if (code) assert.equal(error.code, code);
}

describe('security: the HTTP layer answers every request', function () {
  this.timeout(120_000);
  let t: TestBackend;
  before(async () => {
    t = await startTestBackend({ rateLimits: false });
  });
  after(async () => t?.close());

  async function stillServing() {
    const reply = await t.docs('GET', '/v1/vector_stores');
    assert.equal(reply.status, 200);
  }

  describe('malformed paths', () => {
    for (const path of ['/v1/vector_stores/%', '/v1/vector_stores/%E2%82', '/v1/vector_stores/vs_1/files/%zz', '/v1/inference/%C3']) {
      it(`answers 400 to the bad percent-encoding in ${path}, with or without credentials`, async () => {
        assertErrorShape(await rawRequest(t.url, get(path)), 400, 'invalid_path_encoding');
        assertErrorShape(await rawRequest(t.url, get(path, [])), 400, 'invalid_path_encoding');
        await stillServing();
      });
    }

    it('answers a request target the URL parser cannot read with a 4xx, never a 500', async () => {
      for (const target of ['//', '//x:abc/v1/files', '*', 'v1/files']) {
        const reply = await rawRequest(t.url, get(target));
        assert.ok(reply.status >= 400 && reply.status < 500, `${target}: ${reply.status} ${reply.body}`);
        assertErrorShape(reply, reply.status);
      }
      await stillServing();
    });

    it('reads the path of an absolute-form target', async () => {
      const reply = await rawRequest(t.url, get(`http://127.0.0.1/v1/vector_stores?limit=1`));
      assert.equal(reply.status, 200, reply.body);
      assert.equal(reply.json.object, 'list');
    });

    it('refuses an absolute-form target whose host is not valid', async () => {
      for (const target of ['http://%zz/v1/vector_stores', 'http://[::1/v1/vector_stores', 'http://a:99999/v1/vector_stores']) {
        const reply = await rawRequest(t.url, get(target));
        assertErrorShape(reply, 400, 'invalid_request_target');
        assert.match(reply.json.error.message, /host/, target);
      }
      await stillServing();
    });
  });

  describe('ids are never path steps', () => {
    let storeId: string;
    before(async () => {
      storeId = await t.createStore('dots');
    });

    for (const step of ['%2e%2e', '%2E%2E', '..', '.', '%2e', '.%2e']) {
      it(`refuses the dot segment ${step} instead of answering with the store`, async () => {
        const reply = await rawRequest(t.url, get(`/v1/vector_stores/${storeId}/files/${step}`));
        assert.ok(reply.status === 400 || reply.status === 404, `${reply.status} ${reply.body}`);
        assertErrorShape(reply, reply.status);
        assert.notEqual(reply.json.id, storeId);
        assert.doesNotMatch(reply.body, /"object":"vector_store"/);
      });
    }

    it('takes an id with an encoded slash whole', async () => {
      const reply = await rawRequest(t.url, get(`/v1/vector_stores/${storeId}%2Ffiles`));
      assertErrorShape(reply, 404, 'not_found');
      assert.match(reply.json.error.message, new RegExp(`${storeId}/files`));
    });

    it('still accepts a trailing slash and a query', async () => {
      const reply = await rawRequest(t.url, get(`/v1/vector_stores/${storeId}/?x=%zz`));
      assert.equal(reply.status, 200, reply.body);
      assert.equal(reply.json.id, storeId);
    });
  });

  describe('methods, sizes and content types', () => {
    it('answers 405 with Allow to a known method the path does not take', async () => {
      for (const method of ['PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) {
        const reply = await rawRequest(t.url, get('/v1/vector_stores', [auth], method));
        assertErrorShape(reply, 405, 'method_not_allowed');
        assert.equal(reply.headers.allow, 'POST, GET');
      }
    });

    it('answers 405 in the error shape to a method the HTTP parser does not know', async () => {
      const reply = await rawRequest(t.url, get('/v1/vector_stores', [auth], 'FROB'));
      assertErrorShape(reply, 405, 'method_not_allowed');
      await stillServing();
    });

    it('answers 405 in the error shape to CONNECT instead of closing the connection', async () => {
      const reply = await rawRequest(t.url, ['CONNECT 127.0.0.1:9 HTTP/1.1', 'Host: 127.0.0.1:9', '', ''].join('\r\n'));
      assertErrorShape(reply, 405, 'method_not_allowed');
      await stillServing();
    });

    it('answers 414 to an oversized URL, whether the server or the parser sees it first', async () => {
      for (const length of [9 * 1024, 20 * 1024, 100 * 1024]) {
        const reply = await rawRequest(t.url, get(`/v1/vector_stores/${'a'.repeat(length)}`));
        assertErrorShape(reply, 414, 'uri_too_long');
        assert.match(reply.json.error.message, /8 KiB/);
      }
      await stillServing();
    });

    it('answers 431 to oversized headers', async () => {
      const reply = await rawRequest(t.url, get('/v1/vector_stores', [auth, `X-Big: ${'b'.repeat(20 * 1024)}`]));
      assertErrorShape(reply, 431, 'request_header_fields_too_large');
      assert.match(reply.json.error.message, /16 KiB/);
      await stillServing();
    });

    it('answers 400 in the error shape to a request without Host and to broken framing', async () => {
      const noHost = await rawRequest(t.url, ['GET /v1/vector_stores HTTP/1.1', auth, 'Connection: close', '', ''].join('\r\n'));
      assertErrorShape(noHost, 400, 'missing_host');
      const badLength = await rawRequest(t.url, get('/v1/vector_stores', [auth, 'Content-Length: abc']));
      assertErrorShape(badLength, 400, 'invalid_http');
      await stillServing();
    });

    it('answers 415 to a JSON endpoint given another content type, and accepts JSON types', async () => {
      const body = JSON.stringify({ name: 'typed' });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
        const reply = await t.docs('POST', '/v1/vector_stores', undefined, { authorization: `Bearer ${TOKEN}`, 'content-type': type });
        assertErrorShape(reply, 415, 'unsupported_media_type');
        const withBody = await request(`${t.url}/v1/vector_stores`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
          body,
        });
        assert.equal(withBody.statusCode, 415);
        assert.match(((await withBody.body.json()) as { error: { message: string } }).error.message, /Content-Type: application\/json/);
      }
      const gateway = await request(`${t.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'api-key': API_KEY, 'content-type': 'text/plain' },
        body: '{}',
      });
      assert.equal(gateway.statusCode, 415);
      await gateway.body.dump();
      for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
        const reply = await request(`${t.url}/v1/vector_stores`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
          body,
        });
        assert.equal(reply.statusCode, 200, `${type}: ${await reply.body.text()}`);
        await reply.body.dump();
      }
    });
  });

  describe('oversized bodies get their 413 through a real client', () => {
    it('a 51 MiB upload (declared length) receives 413, not EPIPE or ECONNRESET', async () => {
      const boundary = 'big51';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
      const tail = Buffer.from(
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n--${boundary}--\r\n`,
      );
      const body = Buffer.concat([head, Buffer.alloc(51 * 1024 * 1024, 'z'), tail]);
      for (let attempt = 0; attempt < 2; attempt++) {
        const reply = await request(`${t.url}/v1/files`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
          body,
        });
        const json = (await reply.body.json()) as { error: { type: string; message: string } };
        assert.equal(reply.statusCode, 413);
        assert.equal(json.error.type, 'request_too_large');
        assert.match(json.error.message, /50 MiB/);
      }
      await stillServing();
    });

    it('a 51 MiB streamed upload (no declared length) receives 413', async () => {
      const boundary = 'stream51';
      async function* chunks() {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
        const block = Buffer.alloc(1024 * 1024, 'y');
        for (let i = 0; i < 51; i++) yield block;
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      }
      const reply = await request(`${t.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Readable.from(chunks()),
      });
      assert.equal(reply.statusCode, 413);
      assert.equal(((await reply.body.json()) as { error: { type: string } }).error.type, 'request_too_large');
    });

    it('a 20 MB JSON body through fetch receives 413 naming the 1 MiB limit', async () => {
      const body = JSON.stringify({ name: 'big', metadata: { filler: 'x'.repeat(20_000_000) } });
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await fetch(`${t.url}/v1/vector_stores`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        });
        assert.equal(response.status, 413);
        const json = (await response.json()) as { error: { message: string } };
        assert.match(json.error.message, /larger than the limit of 1 MiB/);
      }
      await stillServing();
    });

    it('an unauthenticated 20 MB body receives its 401', async () => {
      const response = await fetch(`${t.url}/v1/vector_stores`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(20_000_000),
      });
      assert.equal(response.status, 401);
      await response.arrayBuffer();
    });
  });

  describe('server faults', () => {
    it('a fault is a 500 whose request id is in the answer, the header and the log', async () => {
      const documents = t.backend.documents as unknown as { listStores: () => unknown };
      const original = documents.listStores;
      documents.listStores = () => {
        throw new Error('injected fault');
      };
      let reply: RawReply;
      try {
        reply = await rawRequest(t.url, get('/v1/vector_stores'));
      } finally {
        documents.listStores = original;
      }
      assertErrorShape(reply, 500, 'internal_error');
      const requestId = reply.headers['x-request-id']!;
      assert.match(requestId, /^req_[0-9a-f]{24}$/);
      assert.ok(reply.json.error.message.includes(requestId));
      assert.ok(t.logs.some((line) => line.startsWith('error:') && line.includes(requestId) && line.includes('injected fault')));
      await stillServing();
    });
  });
});
