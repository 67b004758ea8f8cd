/**
 * llama.cpp's server answers a request it cannot serve (one longer than its context) with HTTP 200,
 * an `error: {…}` line (a field SSE does not define) and `data: [DONE]`. That is a failed answer
 * with llama.cpp's own sentence, never an empty one: read directly (a model server the client
 * talks to) and through the local gateway (Local mode's "Use a Language Model…"), each against a
 * real HTTP server on 127.0.0.1. The other servers' error shapes are in stream.test.ts.
 */
import * as assert from 'node:assert/strict';
import type { GatewayClient } from '../../../../src/api/gateway/client';
import { StreamError } from '../../../../src/api/http/errors';
import { chatChunk, ScriptServer, sendChunked } from '../../../support/servers/scriptServer';
import { startFakeUpstream, type FakeUpstream } from '../../backend/fakeUpstream';
import { API_KEY, parseSse, startTestBackend, type TestBackend } from '../../backend/helpers';
import { collect, gatewayClient, rejects } from '../helpers';

const request = { model: 'llama3', messages: [{ role: 'user', content: 'A very long question' }] };
const MESSAGE = 'request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it';
/** As llama.cpp's server writes it: the error object on an `error:` line. */
const llamaError = { code: 400, message: MESSAGE, type: 'exceed_context_size_error', n_prompt_tokens: 4476, n_ctx: 4096 };

const bodies: [string, string][] = [
  ['an error: line, then [DONE]', `error: ${JSON.stringify(llamaError)}\n\ndata: [DONE]\n\n`],
  ['an error: line wrapping {error}, then [DONE]', `error: ${JSON.stringify({ error: llamaError })}\n\ndata: [DONE]\n\n`],
  ['a data line with {error}, then [DONE]', `data: ${JSON.stringify({ error: llamaError })}\n\ndata: [DONE]\n\n`],
  [
    'some text, then an error: line',
    `data: ${JSON.stringify(chatChunk('Partial '))}\n\nerror: ${JSON.stringify(llamaError)}\n\ndata: [DONE]\n\n`,
  ],
];

describe('llama.cpp: an error inside a 200 stream is the failed answer it reports', () => {
  describe('read directly', () => {
    let server: ScriptServer;
    let client: GatewayClient;
    before(async () => (server = await ScriptServer.start()));
    beforeEach(() => {
      server.reset();
      client = gatewayClient(server.url);
    });
    afterEach(() => client.close());
    after(() => server.close());

    for (const [name, body] of bodies) {
      it(name, async () => {
        server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, body));
        const error = await rejects(collect(client.streamChatCompletion(request)), StreamError);
        assert.match(error.message, /exceeds the available context size \(4096 tokens\)/);
      });
    }

    it('an unknown field other than error is still ignored', async () => {
      server.on('POST', '/v1/chat/completions', (_r, res) =>
        sendChunked(
          res,
          `warning: slow\n\ndata: ${JSON.stringify(chatChunk('Hello'))}\n\ndata: ${JSON.stringify(chatChunk(undefined, { finish_reason: 'stop' }))}\n\ndata: [DONE]\n\n`,
        ),
      );
      const parts = await collect(client.streamChatCompletion(request));
      assert.equal(parts.map((p) => p.content).join(''), 'Hello');
    });
  });

  describe('through the local gateway', () => {
    let upstream: FakeUpstream;
    let t: TestBackend;
    before(async () => {
      upstream = await startFakeUpstream();
      t = await startTestBackend({ rateLimits: false, upstream: { url: upstream.url, key: 'up-secret' } });
    });
    after(async () => {
      await t.close();
      await upstream.close();
    });

    for (const [name, body] of bodies) {
      it(`${name}: forwarded as an error event, and the client fails with the sentence`, async () => {
        upstream.streamBody = body;
        const reply = await t.gw('POST', '/v1/chat/completions', { ...request, stream: true });
        assert.equal(reply.status, 200);
        const events = parseSse(reply.text);
        const error = events.find((e) => e.event === 'error');
        assert.ok(error, `an error event in:\n${reply.text}`);
        assert.match(JSON.parse(error.data).error.message, /exceeds the available context size/);
        assert.ok(!events.some((e) => e.data === '[DONE]'), 'the stream does not end as a complete answer');

        const client = gatewayClient(t.url, { token: API_KEY });
        try {
          const failure = await rejects(collect(client.streamChatCompletion(request)), StreamError);
          assert.match(failure.message, /exceeds the available context size \(4096 tokens\)/);
        } finally {
          await client.close();
        }
      });
    }
  });
});
