import * as assert from 'node:assert/strict';
import type { GatewayClient } from '../../../../src/api/gateway/client';
import type { ChatStreamPart } from '../../../../src/api/gateway/schemas';
import { Client } from 'undici';
import { AbortedError, ProtocolError, ServerError, StreamError, TimeoutError } from '../../../../src/api/http/errors';
import { chatChunk, ScriptServer, sendChunked, sendJson, sseBody } from '../../../support/servers/scriptServer';
import { collect, gatewayClient, recorder, rejects } from '../helpers';

const request = { model: 'alpha-5-mini', messages: [{ role: 'user', content: 'Hi' }] };
const usage = { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 };
/** Multi-byte characters on purpose: split points fall inside them. */
const pieces = ['Grüße, ', 'naïve ', '世界 ', '😀!'];
const standardStream = sseBody([
  chatChunk('', { role: 'assistant' }),
  ...pieces.map((p) => chatChunk(p)),
  chatChunk(undefined, { finish_reason: 'stop' }),
  chatChunk(undefined, { usage }),
]);

function text(parts: ChatStreamPart[]): string {
  return parts.map((p) => p.content).join('');
}

describe('streamed chat completions', () => {
  let server: ScriptServer;
  let client: GatewayClient;

  before(async () => {
    server = await ScriptServer.start();
  });
  beforeEach(() => {
    server.reset();
    client = gatewayClient(server.url);
  });
  afterEach(() => client.close());
  after(() => server.close());

  it('yields deltas, the finish reason and the final usage', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, standardStream));
    const parts = await collect(client.streamChatCompletion(request));
    assert.equal(server.requests[0]!.json.stream, true);
    assert.match(server.requests[0]!.headers.accept!, /text\/event-stream/);
    assert.equal(text(parts), pieces.join(''));
    assert.equal(parts[0]!.role, 'assistant');
    assert.equal(parts.find((p) => p.finishReason)!.finishReason, 'stop');
    assert.deepEqual(parts.at(-1)!.usage, usage);
    assert.equal(parts[1]!.id, 'chatcmpl-test');
    assert.equal(parts[1]!.model, 'alpha-5-mini');
  });

  it('gives the same content whatever byte the stream is split at', async function () {
    this.timeout(120_000);
    const bytes = Buffer.from(standardStream, 'utf8');
    let cut = 0;
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, bytes, { cuts: [cut] }));
    for (cut = 1; cut < bytes.length; cut++) {
      const parts = await collect(client.streamChatCompletion(request));
      assert.equal(text(parts), pieces.join(''), `split at byte ${cut}`);
      assert.deepEqual(parts.at(-1)!.usage, usage, `split at byte ${cut}`);
    }
    assert.equal(server.requests.length, bytes.length - 1);
  });

  it('survives one byte per network chunk', async () => {
    const bytes = Buffer.from(standardStream, 'utf8');
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(res, bytes, { cuts: Array.from({ length: bytes.length }, (_, i) => i), pauseMs: 0 }),
    );
    assert.equal(text(await collect(client.streamChatCompletion(request))), pieces.join(''));
  });

  it('ignores comments, joins multi-line data and accepts CRLF line ends', async () => {
    const chunk = JSON.stringify(chatChunk('multi'), null, 2)
      .split('\n')
      .map((line) => `data: ${line}`)
      .join('\r\n');
    const body = `: keep-alive\r\n\r\n${chunk}\r\n\r\n: ping\n\ndata: ${JSON.stringify(chatChunk(' line', { finish_reason: 'stop' }))}\n\ndata: [DONE]\n\n`;
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, body));
    assert.equal(text(await collect(client.streamChatCompletion(request))), 'multi line');
  });

  it('hands the text of events that arrived in one read as one part; role, finish reason and usage stay parts of their own', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, standardStream));
    const parts = await collect(client.streamChatCompletion(request));
    assert.deepEqual(
      parts.map((p) => [p.content, p.role, p.finishReason ?? undefined, p.usage]),
      [
        ['', 'assistant', undefined, undefined],
        [pieces.join(''), undefined, undefined, undefined],
        ['', undefined, 'stop', undefined],
        ['', undefined, undefined, usage],
      ],
    );
    assert.equal(parts[1]!.id, 'chatcmpl-test');
  });

  it('joins an event to the text before it only when a part of its own would say nothing else', async () => {
    // Each variant follows a text event, once in the same network read (where text may join the
    // part before it) and once in a read of its own (where it cannot). Joining the separate
    // parts as the rule says (adjacent text-only parts of the same id and model) must give the
    // same parts, and the same error.
    const base = chatChunk('a');
    const choice = base.choices[0]!;
    const variants: [string, unknown][] = [
      ['plain text', chatChunk('b')],
      ['text and a role', chatChunk('b', { role: 'assistant' })],
      ['text and a role of null', { ...base, choices: [{ ...choice, delta: { content: 'b', role: null } }] }],
      ['text and a finish reason', chatChunk('b', { finish_reason: 'stop' })],
      ['text and an empty finish reason', chatChunk('b', { finish_reason: '' })],
      ['text without finish_reason', { ...base, choices: [{ index: 0, delta: { content: 'b' } }] }],
      ['text and usage', { ...chatChunk('b'), usage }],
      ['text and usage that is not usage', { ...chatChunk('b'), usage: 'none' }],
      ['text and usage null', { ...chatChunk('b'), usage: null }],
      ['text and tool calls', { ...base, choices: [{ ...choice, delta: { content: 'b', tool_calls: [{ index: 0, id: 't' }] } }] }],
      ['text and tool calls null', { ...base, choices: [{ ...choice, delta: { content: 'b', tool_calls: null } }] }],
      ['another id', { ...chatChunk('b'), id: 'chatcmpl-other' }],
      ['no id', { ...chatChunk('b'), id: undefined }],
      ['an id that is not a string', { ...chatChunk('b'), id: 7 }],
      ['another model', { ...chatChunk('b'), model: 'beta' }],
      ['a message beside the choices', { ...chatChunk('b'), message: { role: 'assistant', content: 'm' } }],
      ['a message in the choice', { ...base, choices: [{ ...choice, message: { role: 'assistant', content: 'm' } }] }],
      ['an error beside the choices', { ...chatChunk('b'), error: { message: 'overloaded' } }],
      ['type error', { ...chatChunk('b'), type: 'error', message: 'overloaded' }],
      ['object error', { ...chatChunk('b'), object: 'error' }],
      ['status error', { ...chatChunk('b'), status: 'error' }],
      ['done', { ...chatChunk('b'), done: true }],
      ['empty text', chatChunk('')],
      ['text that is not a string', { ...base, choices: [{ ...choice, delta: { content: 5 } }] }],
      ['no choices', { ...base, choices: [] }],
      ['a choice that is not an object', { ...base, choices: ['b'] }],
      ['a delta that is a list', { ...base, choices: [{ ...choice, delta: ['b'] }] }],
      ['legacy completion text', { ...base, choices: [{ index: 0, text: 'b', finish_reason: null }] }],
      ['Ollama-style message', { model: 'alpha-5-mini', message: { content: 'b' }, done: false }],
      ['a list', [chatChunk('b')]],
      ['a JSON string', '"server says no"'],
    ];
    const joined = (parts: ChatStreamPart[]) => {
      const out: ChatStreamPart[] = [];
      const textOnly = (p: ChatStreamPart) => p.role === undefined && !p.finishReason && p.usage === undefined && p.toolCalls === undefined;
      for (const part of parts) {
        const last = out.at(-1);
        if (last && textOnly(last) && textOnly(part) && last.id === part.id && last.model === part.model) {
          out[out.length - 1] = { ...last, content: last.content + part.content };
        } else {
          out.push({ ...part });
        }
      }
      return out;
    };
    const outcome = async () => {
      try {
        return { parts: joined(await collect(client.streamChatCompletion(request))) };
      } catch (error) {
        return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
      }
    };
    for (const [name, variant] of variants) {
      const events = [base, variant, chatChunk('c'), chatChunk(undefined, { finish_reason: 'stop' })];
      const body = sseBody(events);
      const cuts: number[] = [];
      for (let i = 0, at = 0; i < events.length; i++) cuts.push((at += Buffer.byteLength(sseBody([events[i]], { done: false }))));
      server.reset();
      server.once('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, body));
      server.once('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, body, { cuts }));
      const together = await outcome();
      const apart = await outcome();
      assert.deepEqual(together, apart, name);
    }
  });

  it('raises a StreamError with the message of an `event: error`, after the parts before it', async () => {
    const body =
      `data: ${JSON.stringify(chatChunk('partial'))}\n\n` +
      `event: error\ndata: ${JSON.stringify({ error: { message: 'Upstream model crashed', type: 'server_error', code: 'upstream' } })}\n\n`;
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, body, { headers: { 'x-request-id': 'req_s1' } }));
    const seen: string[] = [];
    const error = await rejects(
      (async () => {
        for await (const part of client.streamChatCompletion(request)) seen.push(part.content);
      })(),
      StreamError,
    );
    assert.deepEqual(seen, ['partial']);
    assert.equal(error.message, 'Upstream model crashed.');
    assert.equal(error.code, 'upstream');
    assert.equal(error.requestId, 'req_s1');
  });

  it('raises a StreamError for an error object in a data line', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(res, sseBody([{ error: { message: 'context too long' } }], { done: false })),
    );
    const error = await rejects(collect(client.streamChatCompletion(request)), StreamError);
    assert.match(error.message, /context too long/);
  });

  it('raises a StreamError when the stream ends before it is complete', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, sseBody([chatChunk('half an ans')], { done: false })));
    const error = await rejects(collect(client.streamChatCompletion(request)), StreamError);
    assert.match(error.message, /ended the stream before the answer was complete/);
  });

  it('raises a StreamError when the connection drops mid-stream, and never retries a started stream', async () => {
    // The connection drops once the client has the first chunk: mid-stream whatever the timing.
    let startArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (startArrived = resolve));
    server.on('POST', '/v1/chat/completions', async (_r, res) => {
      await sendChunked(res, `data: ${JSON.stringify(chatChunk('start'))}\n\n`, { end: false });
      await arrived;
      res.socket?.destroy();
    });
    const seen: string[] = [];
    await rejects(
      (async () => {
        for await (const part of client.streamChatCompletion(request)) {
          seen.push(part.content);
          startArrived();
        }
      })(),
      StreamError,
    );
    assert.deepEqual(seen, ['start']);
    assert.equal(server.requests.length, 1);
  });

  it('does not retry a streamed POST that failed with 500', async () => {
    server.once('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 500, { error: { message: 'down' } }));
    await rejects(collect(client.streamChatCompletion(request)), ServerError);
    assert.equal(server.requests.length, 1);
  });

  it('stops on abort mid-stream with an AbortedError', async () => {
    server.on('POST', '/v1/chat/completions', async (_r, res) => {
      await sendChunked(res, `data: ${JSON.stringify(chatChunk('first'))}\n\n`, { end: false });
    });
    const controller = new AbortController();
    const seen: string[] = [];
    await rejects(
      (async () => {
        for await (const part of client.streamChatCompletion(request, { signal: controller.signal })) {
          seen.push(part.content);
          controller.abort();
        }
      })(),
      AbortedError,
    );
    assert.deepEqual(seen, ['first']);
  });

  it('times out when the stream goes idle between events', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, `data: ${JSON.stringify(chatChunk('a'))}\n\n`, { end: false }));
    const idle = gatewayClient(server.url, { transport: { streamIdleTimeoutMs: 100 } });
    const error = await rejects(collect(idle.streamChatCompletion(request)), TimeoutError);
    await idle.close();
    assert.match(error.message, /sent nothing for/);
  });

  it('releases the connection when the caller stops early', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, standardStream));
    for await (const part of client.streamChatCompletion(request)) {
      if (part.content) break;
    }
    // The client is still usable afterwards.
    assert.equal(text(await collect(client.streamChatCompletion(request))), pieces.join(''));
  });

  it('keeps the connection after a long answer ends with [DONE] before the response does', async () => {
    // Over 128 KiB (undici's default drain limit) of answer; the response stays open after
    // [DONE] until the client has finished with it, so the client must drain, not abort, it.
    const long = sseBody([
      ...Array.from({ length: 2_000 }, (_, i) => chatChunk(`piece ${i} `)),
      chatChunk(undefined, { finish_reason: 'stop' }),
    ]);
    assert.ok(Buffer.byteLength(long) > 128 * 1024);
    const sockets: unknown[] = [];
    let endFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (endFirst = resolve));
    server.once('POST', '/v1/chat/completions', async (_r, res, raw) => {
      sockets.push(raw.socket);
      await sendChunked(res, long, { end: false });
      await firstMayEnd;
      res.end();
    });
    server.once('POST', '/v1/chat/completions', (_r, res, raw) => {
      sockets.push(raw.socket);
      return sendChunked(res, standardStream);
    });
    // One connection, so the second request waits for the first one's socket (or a new one).
    const connection = new Client(server.url);
    const single = gatewayClient(server.url, { transport: { dispatcher: connection } });
    try {
      const parts = await collect(single.streamChatCompletion(request));
      assert.equal(parts.find((p) => p.finishReason)?.finishReason, 'stop');
      endFirst();
      assert.equal(text(await collect(single.streamChatCompletion(request))), pieces.join(''));
    } finally {
      await single.close();
      await connection.close();
    }
    assert.equal(sockets.length, 2);
    assert.ok(sockets[1] === sockets[0], 'the second request went over a new connection: the first was aborted, not drained');
  });

  it('closes the connection of a response that stays open after [DONE] once the idle timeout passes', async () => {
    let responseClosed!: () => void;
    const closed = new Promise<void>((resolve) => (responseClosed = resolve));
    server.once('POST', '/v1/chat/completions', async (_r, res) => {
      res.on('close', () => responseClosed());
      await sendChunked(res, standardStream, { end: false });
      // Never ends the response.
    });
    const connection = new Client(server.url);
    const client = gatewayClient(server.url, { transport: { dispatcher: connection, streamIdleTimeoutMs: 100 } });
    try {
      assert.equal(text(await collect(client.streamChatCompletion(request))), pieces.join(''));
      // The drain gives up after the idle timeout and closes the socket: the server sees it.
      await closed;
    } finally {
      await client.close();
      await connection.close();
    }
  });

  it('reads NDJSON streams, by content type or by sniffing', async () => {
    const lines = [chatChunk('nd'), chatChunk('json', { finish_reason: 'stop' })].map((c) => JSON.stringify(c)).join('\n') + '\n';
    server.once('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(res, lines, { contentType: 'application/x-ndjson', cuts: [5, 40, 41] }),
    );
    server.once('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, lines, { contentType: 'text/plain' }));
    const ollama = [
      { message: { role: 'assistant', content: 'Hi' }, done: false },
      { message: { content: ' there' }, done: true },
    ]
      .map((c) => JSON.stringify(c))
      .join('\n');
    server.once('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, ollama, { contentType: 'application/x-ndjson' }));
    assert.equal(text(await collect(client.streamChatCompletion(request))), 'ndjson');
    assert.equal(text(await collect(client.streamChatCompletion(request))), 'ndjson');
    const parts = await collect(client.streamChatCompletion(request));
    assert.equal(text(parts), 'Hi there');
    assert.equal(parts.at(-1)!.finishReason, 'stop');
  });

  it('rejects a chunk that is not JSON as a protocol error', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, 'data: {not json\n\n'));
    await rejects(collect(client.streamChatCompletion(request)), ProtocolError);
  });

  it('accepts a server that ignores stream: true and answers in one JSON piece', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendJson(res, 200, {
        id: 'c',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Whole' } }],
        usage,
      }),
    );
    const parts = await collect(client.streamChatCompletion(request));
    assert.deepEqual(
      parts.map((p) => [p.content, p.finishReason]),
      [['Whole', 'stop']],
    );
  });

  it("gives the error a JSON answer to a stream carries (Ollama's and LM Studio's status-200 errors), not an empty answer", async () => {
    for (const [body, message] of [
      [{ error: "model 'm' not found" }, /model 'm' not found/],
      [{ detail: 'Upstream unavailable' }, /Upstream unavailable/],
      [{ error: { message: 'Rate limit', type: 'rate_limit' } }, /Rate limit/],
    ] as const) {
      server.reset();
      server.on('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 200, body));
      const error = await rejects(collect(client.streamChatCompletion(request)), StreamError);
      assert.match(error.message, message);
    }
    server.reset();
    server.on('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 200, { unrelated: true }));
    await rejects(collect(client.streamChatCompletion(request)), ProtocolError);
  });

  it('reads content given as a list of parts, and a refusal as what the model said, streamed or whole', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendJson(res, 200, {
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Two ' },
                { type: 'text', text: 'parts' },
              ],
            },
          },
        ],
      }),
    );
    assert.equal(text(await collect(client.streamChatCompletion(request))), 'Two parts');
    server.reset();
    const refusal = "I'm sorry, I can't help with that.";
    server.on('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([
          { id: 'r', choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: '' }, finish_reason: null }] },
          { id: 'r', choices: [{ index: 0, delta: { refusal }, finish_reason: null }] },
          { id: 'r', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        ]),
      ),
    );
    const parts = await collect(client.streamChatCompletion(request));
    assert.equal(text(parts), refusal);
    assert.equal(parts.find((p) => p.finishReason)?.finishReason, 'stop');
  });

  it("keeps a reasoning model's reasoning out of the answer, as its own parts (llama.cpp, vLLM, Ollama's two APIs)", async () => {
    const reasoningOf = (parts: ChatStreamPart[]) => parts.map((p) => p.reasoning ?? '').join('');
    // llama.cpp's and vLLM's `reasoning_content`, then the answer, in one read.
    server.once('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([
          { id: 'q', choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }] },
          { id: 'q', choices: [{ index: 0, delta: { reasoning_content: 'The user asks ' }, finish_reason: null }] },
          { id: 'q', choices: [{ index: 0, delta: { reasoning_content: 'for a greeting.' }, finish_reason: null }] },
          { id: 'q', choices: [{ index: 0, delta: { content: 'Hello', reasoning_content: null }, finish_reason: null }] },
          { id: 'q', choices: [{ index: 0, delta: { content: ' there' }, finish_reason: 'stop' }] },
        ]),
      ),
    );
    // Ollama's OpenAI API: `reasoning`, with an empty content beside it.
    server.once('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([
          { id: 'o', choices: [{ index: 0, delta: { role: 'assistant', content: '', reasoning: 'Short.' }, finish_reason: null }] },
          { id: 'o', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] },
        ]),
      ),
    );
    // Ollama's own NDJSON: `message.thinking`.
    const ollama = [
      { message: { role: 'assistant', content: '', thinking: 'Hmm.' }, done: false },
      { message: { content: 'Yes' }, done: true },
    ]
      .map((c) => JSON.stringify(c))
      .join('\n');
    server.once('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, ollama, { contentType: 'application/x-ndjson' }));

    const llama = await collect(client.streamChatCompletion(request));
    assert.equal(text(llama), 'Hello there');
    assert.equal(reasoningOf(llama), 'The user asks for a greeting.');
    const firstText = llama.findIndex((p) => p.content !== '');
    assert.ok(
      llama.slice(0, firstText).some((p) => p.reasoning),
      'the reasoning comes before the answer, in parts of its own',
    );
    const openai = await collect(client.streamChatCompletion(request));
    assert.deepEqual([text(openai), reasoningOf(openai)], ['Hi', 'Short.']);
    const native = await collect(client.streamChatCompletion(request));
    assert.deepEqual([text(native), reasoningOf(native)], ['Yes', 'Hmm.']);

    // A delta with both, right after text (the path that joins plain text deltas): neither is lost.
    server.once('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([
          chatChunk('A'),
          {
            id: 'chatcmpl-test',
            model: 'alpha-5-mini',
            choices: [{ index: 0, delta: { content: 'B', reasoning_content: 'R' }, finish_reason: null }],
          },
        ]),
      ),
    );
    const both = await collect(client.streamChatCompletion(request));
    assert.deepEqual([text(both), reasoningOf(both)], ['AB', 'R']);
    // Reasoning alone, then the end: parts of reasoning and no text, not a stream DocChat does not understand.
    server.once('POST', '/v1/chat/completions', (_r, res) =>
      sendChunked(
        res,
        sseBody([{ id: 'x', choices: [{ index: 0, delta: { reasoning_content: 'Only thoughts.' }, finish_reason: null }] }]),
      ),
    );
    const thoughts = await collect(client.streamChatCompletion(request));
    assert.deepEqual([text(thoughts), reasoningOf(thoughts)], ['', 'Only thoughts.']);
  });

  it('keeps a last event that ends the body without its blank line', async () => {
    const lastWithoutBlank = `data: ${JSON.stringify(chatChunk('Hello'))}\n\ndata: ${JSON.stringify(chatChunk(' end', { finish_reason: 'stop' }))}\n`;
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, lastWithoutBlank));
    const parts = await collect(client.streamChatCompletion(request));
    assert.equal(text(parts), 'Hello end');
    server.reset();
    server.on('POST', '/v1/chat/completions', (_r, res) => sendChunked(res, `data: ${JSON.stringify(chatChunk('All'))}\n\ndata: [DONE]`));
    assert.equal(text(await collect(client.streamChatCompletion(request))), 'All');
  });

  it('calls an NDJSON stream cut in its last line incomplete, as an SSE one', async () => {
    server.on('POST', '/v1/chat/completions', (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(`${JSON.stringify({ message: { role: 'assistant', content: 'Hel' }, done: false })}\n{"message":{"con`);
    });
    const error = await rejects(collect(client.streamChatCompletion(request)), StreamError);
    assert.match(error.message, /ended the stream before the answer was complete/);
  });

  it('takes an empty one-piece answer as an empty answer', async () => {
    for (const body of [
      { response: '' },
      { model: 'm', response: null },
      { choices: [{ message: { content: '' }, finish_reason: null }] },
    ]) {
      server.reset();
      server.on('POST', '/v1/chat/completions', (_r, res) => sendJson(res, 200, body));
      const parts = await collect(client.streamChatCompletion(request));
      assert.deepEqual(
        parts.map((p) => [p.content, p.finishReason]),
        [['', 'stop']],
        JSON.stringify(body),
      );
    }
  });

  it('keeps an answer whose finish reason came before the connection broke', async () => {
    // The connection breaks once the client has the finish reason (before usage and [DONE]).
    let finishArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (finishArrived = resolve));
    server.on('POST', '/v1/chat/completions', async (_r, res) => {
      await sendChunked(res, sseBody([chatChunk('Hello'), chatChunk(undefined, { finish_reason: 'stop' })], { done: false }), {
        end: false,
      });
      await arrived;
      res.socket?.destroy();
    });
    const parts: ChatStreamPart[] = [];
    for await (const part of client.streamChatCompletion(request)) {
      parts.push(part);
      if (part.finishReason) finishArrived();
    }
    assert.equal(text(parts), 'Hello');
    assert.equal(parts.find((p) => p.finishReason)?.finishReason, 'stop');
  });

  it('times out a streamed request whose error body or JSON answer stops arriving, instead of waiting forever', async () => {
    const idle = gatewayClient(server.url, { transport: { streamIdleTimeoutMs: 100 } });
    try {
      server.on('POST', '/v1/chat/completions', (_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices":[');
      });
      const stalled = await rejects(collect(idle.streamChatCompletion(request)), TimeoutError);
      assert.match(stalled.message, /sent nothing for/);
      server.reset();
      server.on('POST', '/v1/chat/completions', (_r, res) => {
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': '200' });
        res.write('{"error":{"message":"x"');
      });
      const failed = await rejects(collect(idle.streamChatCompletion(request)), ServerError);
      assert.equal(failed.status, 500);
    } finally {
      await idle.close();
    }
  });

  it('falls back to /v1/completions for streams too', async () => {
    server.on('POST', '/v1/completions', (_r, res) => sendChunked(res, standardStream));
    assert.equal(text(await collect(client.streamChatCompletion(request))), pieces.join(''));
    assert.deepEqual(
      server.requests.map((r) => r.path),
      ['/v1/chat/completions', '/v1/completions'],
    );
  });

  it('validates a streamed request before sending anything', async () => {
    await assert.rejects(collect(client.streamChatCompletion({ model: '', messages: [] })), /model/);
    assert.equal(server.requests.length, 0);
  });

  it('streams the deprecated inference endpoint, warning once', async () => {
    const body = sseBody([
      { model: 'nemo', response: 'Bon' },
      { model: 'nemo', response: 'jour', done: true },
    ]);
    server.on('POST', '/v1/inference/nemo', (_r, res) => sendChunked(res, body));
    const record = recorder();
    const legacy = gatewayClient(server.url, { record });
    const parts = await collect(legacy.streamInference('nemo', { prompt: 'Hello in French' }));
    await collect(legacy.streamInference('nemo', { prompt: 'Again' }));
    await legacy.close();
    assert.equal(text(parts), 'Bonjour');
    assert.deepEqual(server.requests[0]!.json, { prompt: 'Hello in French', project_code: 'NA', stream: true });
    assert.equal(record.logs.filter((l) => l.level === 'warn' && /December 17/.test(l.message)).length, 1);
  });
});
