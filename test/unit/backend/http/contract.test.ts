/**
 * What a client of the backend is told when the HTTP layer refuses a request, down to the words:
 * the 401 per service with the scheme it expects (`WWW-Authenticate`), the 413 naming the limit,
 * the 415 naming the content type expected and the one given, the 400 for a body that is not a
 * JSON object, the 429 with the exact seconds until the oldest request leaves the minute, and
 * the router's 404/405. Bodies are read from streams the test controls, so a body that ends, is
 * cut off or breaks with an error is each seen as the server would see it.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { authenticate } from '../../../../src/backend/http/auth';
import { discardBody, formatBytes, MAX_JSON_BYTES, readBody, readJson, tooLarge } from '../../../../src/backend/http/body';
import { ApiError } from '../../../../src/backend/http/errors';
import { Router } from '../../../../src/backend/http/router';
import { SlidingWindowLimiter } from '../../../../src/backend/http/slidingWindowLimiter';
import { API_KEY, call, startTestBackend, TOKEN, type TestBackend } from '../helpers';

/** A request body the test feeds: write chunks, then end it, cut it off or break it. */
function body(headers: Record<string, string> = {}): PassThrough & IncomingMessage {
  const stream = new PassThrough() as PassThrough & IncomingMessage;
  (stream as { headers: Record<string, string> }).headers = headers;
  return stream;
}

function bytes(n: number): Buffer {
  return Buffer.alloc(n, 0x61);
}

/** The error a promise rejects with (it must reject). */
async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `an ApiError, not ${String(error)}`);
    return error;
  }
  assert.fail('the request was accepted');
}

function listeners(req: PassThrough): Record<string, number> {
  return Object.fromEntries(['data', 'end', 'error', 'close'].map((e) => [e, req.listenerCount(e)]));
}

const NONE = { data: 0, end: 0, error: 0, close: 0 };

describe('backend HTTP layer: what a refused client is told', () => {
  describe('authentication, per service', () => {
    let t: TestBackend;
    before(async () => {
      t = await startTestBackend();
    });
    after(async () => t.close());

    const documents = (headers: Record<string, string>) => call(t.url, 'GET', '/v1/vector_stores', { headers });
    const gateway = (headers: Record<string, string>) => call(t.url, 'GET', '/v1/completions/models', { headers });

    function assertUnauthorized(reply: Awaited<ReturnType<typeof call>>, message: string, scheme: string) {
      assert.equal(reply.status, 401);
      assert.deepEqual(reply.json.error, { type: 'authentication_error', message, param: null, code: 'invalid_api_key' });
      assert.equal(reply.headers['www-authenticate'], scheme);
    }

    it('asks for a bearer token on the documents service, naming the header', async () => {
      const missing = 'Missing bearer token: send the header "Authorization: Bearer <token>".';
      assertUnauthorized(await documents({}), missing, 'Bearer');
      assertUnauthorized(await documents({ authorization: `Basic ${TOKEN}` }), missing, 'Bearer');
      assertUnauthorized(await documents({ authorization: 'Bearer' }), missing, 'Bearer');
      // A scheme that only ends in "Bearer" is not the Bearer scheme.
      assertUnauthorized(await documents({ authorization: `XBearer ${TOKEN}` }), missing, 'Bearer');
    });

    it('refuses a wrong bearer token, and the gateway key, on the documents service', async () => {
      const wrong = 'The bearer token is not valid for this documents service.';
      assertUnauthorized(await documents({ authorization: 'Bearer nope' }), wrong, 'Bearer');
      assertUnauthorized(await documents({ authorization: `Bearer ${API_KEY}` }), wrong, 'Bearer');
      assertUnauthorized(
        await documents({ 'api-key': TOKEN }),
        'Missing bearer token: send the header "Authorization: Bearer <token>".',
        'Bearer',
      );
    });

    it('takes the Bearer scheme in any case, with any spacing', async () => {
      for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER   ${TOKEN}`]) {
        assert.equal((await documents({ authorization })).status, 200, authorization);
      }
    });

    it('asks for the Api-Key on the gateway, naming the header; a wrong key is refused as such', async () => {
      assertUnauthorized(await gateway({}), 'Missing API key: send the header "Api-Key: <key>".', 'Api-Key');
      assertUnauthorized(await gateway({ 'api-key': 'nope' }), 'The API key is not valid for this gateway.', 'Api-Key');
      assertUnauthorized(await gateway({ authorization: 'Bearer nope' }), 'The API key is not valid for this gateway.', 'Api-Key');
      // The Api-Key header is the gateway's own: a wrong one is not rescued by a right bearer key.
      assertUnauthorized(
        await gateway({ 'api-key': 'nope', authorization: `Bearer ${API_KEY}` }),
        'The API key is not valid for this gateway.',
        'Api-Key',
      );
      assert.equal((await gateway({ 'api-key': API_KEY })).status, 200);
      assert.equal((await gateway({ authorization: `bearer ${API_KEY}` })).status, 200);
    });

    it('names the caller by a short digest of its credential, never the credential, the same each time', () => {
      const credentials = { token: 'documents-secret', apiKey: 'gateway-secret' };
      const req = (headers: Record<string, string>) => ({ headers }) as IncomingMessage;
      const documentsUser = authenticate(req({ authorization: 'Bearer documents-secret' }), 'documents', credentials);
      const gatewayUser = authenticate(req({ 'api-key': 'gateway-secret' }), 'gateway', credentials);
      for (const user of [documentsUser, gatewayUser]) {
        assert.match(user, /^user:[0-9a-f]{16}$/);
        assert.ok(!user.includes('secret'));
      }
      assert.notEqual(documentsUser, gatewayUser, 'two credentials are two callers');
      assert.equal(authenticate(req({ authorization: 'Bearer documents-secret' }), 'documents', credentials), documentsUser);
      assert.equal(authenticate(req({ authorization: 'Bearer gateway-secret' }), 'gateway', credentials), gatewayUser);
    });
  });

  describe('request bodies', () => {
    it('names the limit in the 413, in the unit that reads best', () => {
      assert.equal(formatBytes(0), '0 bytes');
      assert.equal(formatBytes(1023), '1023 bytes');
      assert.equal(formatBytes(1024), '1 KiB');
      assert.equal(formatBytes(1536), '1.5 KiB');
      assert.equal(formatBytes(1024 * 1024 - 1), '1024 KiB');
      assert.equal(formatBytes(1024 * 1024), '1 MiB');
      assert.equal(formatBytes(50 * 1024 * 1024), '50 MiB');
      assert.equal(formatBytes(2.25 * 1024 * 1024), '2.3 MiB');
      const error = tooLarge(MAX_JSON_BYTES);
      assert.equal(error.status, 413);
      assert.deepEqual(error.toBody().error, {
        type: 'request_too_large',
        message: 'The request body is larger than the limit of 1 MiB.',
        param: null,
        code: 'request_too_large',
      });
      assert.deepEqual(error.headers, { connection: 'close' });
      assert.equal(tooLarge(100).message, 'The request body is larger than the limit of 100 bytes.');
    });

    it('reads a body of exactly the limit, declared or streamed', async () => {
      const declared = body({ 'content-length': '100' });
      const read = readBody(declared, 100);
      declared.end(bytes(100));
      assert.equal((await read).length, 100);

      const streamed = body();
      const readStreamed = readBody(streamed, 100);
      streamed.write(bytes(60));
      streamed.end(bytes(40));
      assert.deepEqual(await readStreamed, bytes(100));
      assert.deepEqual(listeners(streamed), NONE, 'nothing is left listening to the request');
    });

    it('refuses one byte past the limit, declared or streamed, with the 413 naming the limit, after draining the rest', async () => {
      const declared = body({ 'content-length': '2049' });
      const refusedDeclared = refusal(readBody(declared, 2048));
      declared.end(bytes(2049));
      const error = await refusedDeclared;
      assert.equal(error.status, 413);
      assert.equal(error.message, 'The request body is larger than the limit of 2 KiB.');
      assert.equal(declared.readableEnded, true, 'the body was drained before the answer');

      const streamed = body();
      const refusedStreamed = refusal(readBody(streamed, 2048));
      streamed.write(bytes(2048));
      streamed.write(bytes(1));
      streamed.end(bytes(5000));
      assert.equal((await refusedStreamed).message, 'The request body is larger than the limit of 2 KiB.');
      assert.equal(streamed.readableEnded, true, 'the body was drained before the answer');
      assert.deepEqual(listeners(streamed), NONE, 'nothing is left listening to the request');
    });

    it('passes on a body that breaks off with an error, and leaves nothing listening', async () => {
      const req = body();
      const read = readBody(req, 1000);
      req.write(bytes(10));
      req.destroy(new Error('aborted'));
      await assert.rejects(read, /aborted/);
      assert.deepEqual(listeners(req), NONE);
    });

    it('drains a refused body to its end, however large, up to 256 MiB', async () => {
      const req = body();
      const drained = discardBody(req);
      for (let i = 0; i < 16; i++) req.write(bytes(64 * 1024));
      req.end();
      assert.equal(await drained, true);
      assert.deepEqual(listeners(req), NONE);
    });

    it('drains exactly up to its bound, and past it stops reading (the caller then closes the connection)', async () => {
      const atBound = body();
      const drainedAtBound = discardBody(atBound, 1000);
      atBound.write(bytes(600));
      atBound.end(bytes(400));
      assert.equal(await drainedAtBound, true);

      const pastBound = body();
      const drainedPastBound = discardBody(pastBound, 1000);
      pastBound.write(bytes(600));
      pastBound.write(bytes(401));
      assert.equal(await drainedPastBound, false);
      assert.equal(pastBound.isPaused(), true, 'no more of the body is read');
      assert.deepEqual(listeners(pastBound), NONE);
    });

    it('knows a body already read, or a request already gone, without waiting', async () => {
      const ended = body();
      ended.end();
      ended.resume();
      await new Promise((resolve) => ended.once('end', resolve));
      assert.equal(await discardBody(ended), true);

      const gone = body();
      const closed = new Promise((resolve) => gone.once('close', resolve));
      gone.destroy();
      await closed;
      assert.equal(await discardBody(gone), false);
    });

    for (const [how, cut] of [
      ['closes', (req: PassThrough) => req.destroy()],
      ['fails', (req: PassThrough) => req.destroy(new Error('socket hang up'))],
    ] as const) {
      it(`stops draining a request that ${how} before its end`, async () => {
        const req = body();
        const drained = discardBody(req);
        req.write(bytes(10));
        cut(req);
        assert.equal(await drained, false);
        assert.deepEqual(listeners(req), NONE);
      });
    }

    describe('JSON bodies', () => {
      async function json(text: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
        const req = body(headers);
        const read = readJson(req);
        req.end(text);
        return read;
      }

      it('reads an empty body as an empty object', async () => {
        assert.deepEqual(await json(''), {});
        assert.deepEqual(await json('', {}), {});
      });

      it('refuses a body that is not JSON', async () => {
        const error = await refusal(json('{"name": '));
        assert.equal(error.status, 400);
        assert.deepEqual(error.toBody().error, {
          type: 'invalid_request_error',
          message: 'The request body is not valid JSON.',
          param: null,
          code: 'invalid_json',
        });
      });

      for (const value of ['null', '[]', '[{"name":"a"}]', '"text"', '3', '0', 'true', 'false']) {
        it(`refuses the JSON value ${value}: the body must be an object`, async () => {
          const error = await refusal(json(value));
          assert.equal(error.status, 400);
          assert.deepEqual(error.toBody().error, {
            type: 'invalid_request_error',
            message: 'The request body must be a JSON object.',
            param: null,
            code: 'invalid_json',
          });
        });
      }

      it('takes application/json and +json types, with parameters', async () => {
        for (const type of ['application/json', 'Application/JSON; charset=utf-8', 'application/vnd.api+json', 'application/json ;q=1']) {
          assert.deepEqual(await json('{"a":1}', { 'content-type': type }), { a: 1 }, type);
        }
      });

      for (const type of ['text/plain', 'x-application/json', 'application/jsonp', 'multipart/form-data; boundary=x']) {
        it(`refuses ${type} with a 415 naming the type expected and the one given`, async () => {
          const req = body({ 'content-type': type });
          const refused = refusal(readJson(req));
          req.end('{"a":1}');
          const error = await refused;
          assert.equal(error.status, 415);
          assert.deepEqual(error.toBody().error, {
            type: 'invalid_request_error',
            message: `The request body must be JSON: send "Content-Type: application/json" (got ${JSON.stringify(type)}).`,
            param: null,
            code: 'unsupported_media_type',
          });
          assert.equal(req.readableEnded, true, 'the body was drained before the answer');
        });
      }

      it('quotes at most 100 characters of a long content type it refuses', async () => {
        const type = `text/${'x'.repeat(300)}`;
        const req = body({ 'content-type': type });
        const refused = refusal(readJson(req));
        req.end();
        assert.equal(
          (await refused).message,
          `The request body must be JSON: send "Content-Type: application/json" (got ${JSON.stringify(type.slice(0, 100))}).`,
        );
      });

      it('refuses a JSON body past 1 MiB with the 413 naming 1 MiB', async () => {
        const error = await refusal(json(`{"a":"${'x'.repeat(MAX_JSON_BYTES)}"}`));
        assert.equal(error.status, 413);
        assert.equal(error.message, 'The request body is larger than the limit of 1 MiB.');
      });
    });
  });

  describe('rate limits (sliding minute)', () => {
    let now: number;
    const limiter = () => new SlidingWindowLimiter({ createStore: 2, search: 1 }, () => now);

    it('refuses the request past the limit with 429 and the exact wait until the oldest leaves the minute', () => {
      const limits = limiter();
      now = 1_000_000;
      limits.check('user:a', 'createStore');
      now += 10_000;
      limits.check('user:a', 'createStore');
      now += 10_300; // 20.3 s after the first: it leaves the window in 39.7 s
      const error = (() => {
        try {
          limits.check('user:a', 'createStore');
        } catch (e) {
          return e as ApiError;
        }
        return assert.fail('the third request in a minute was accepted');
      })();
      assert.equal(error.status, 429);
      assert.deepEqual(error.toBody().error, {
        type: 'rate_limit_error',
        message: 'Rate limit of 2 requests per minute for createStore reached; retry in 40 s.',
        param: null,
        code: 'rate_limit_exceeded',
      });
      assert.deepEqual(error.headers, { 'retry-after': '40', 'retry-after-ms': '39700' });
    });

    it('lets a request in again exactly one minute after the oldest, and counts per caller and operation', () => {
      const limits = limiter();
      now = 5_000;
      limits.check('user:a', 'search');
      limits.check('user:b', 'search');
      limits.check('user:a', 'createStore');
      now = 5_000 + 59_999;
      assert.throws(
        () => limits.check('user:a', 'search'),
        (e: ApiError) => e.headers['retry-after-ms'] === '1' && e.headers['retry-after'] === '1',
      );
      now = 5_000 + 60_000;
      limits.check('user:a', 'search');
      // Operations without a limit are never refused.
      for (let i = 0; i < 100; i++) limits.check('user:a', 'listFiles');
    });
  });

  describe('routes', () => {
    const handler = () => undefined;
    function router() {
      const r = new Router();
      r.add(
        { method: 'GET', path: '/v1/files/:file_id', service: 'documents', handler },
        { method: 'GET', path: '/v1/files/batch', service: 'documents', handler },
        { method: 'DELETE', path: '/v1/files/:file_id', service: 'documents', handler },
        { method: 'GET', path: '/v1/vector_stores/:vs/files/:file_id', service: 'documents', handler },
      );
      return r;
    }

    it('fills parameters from their segments', () => {
      const match = router().match('GET', ['v1', 'vector_stores', 'vs_1', 'files', 'file-2']);
      assert.equal(match.kind, 'found');
      assert.deepEqual(match.kind === 'found' && match.params, { vs: 'vs_1', file_id: 'file-2' });
    });

    it('never takes an empty segment for a parameter', () => {
      assert.deepEqual(router().match('GET', ['v1', 'vector_stores', '', 'files', 'file-2']), { kind: 'not_found' });
      assert.deepEqual(router().match('DELETE', ['v1', 'files', '']), { kind: 'not_found' });
    });

    it('lists each allowed method once for a method the path does not take', () => {
      assert.deepEqual(router().match('PUT', ['v1', 'files', 'batch']), { kind: 'method_not_allowed', allowed: ['GET', 'DELETE'] });
    });
  });
});
