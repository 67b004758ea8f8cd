/** The MCP server's stdio transport on its own: lines in, protocol errors out, the server's messages through. */
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  GuardedStdioTransport,
  JsonRpcErrors,
  MAX_MESSAGE_BYTES,
  MAX_RUNNING_REQUESTS,
  MAX_WAITING_REQUESTS,
} from '../../../src/mcp/stdioTransport';

/** What a client's `initialize` carries. */
const INITIALIZE_PARAMS = '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}';

function harness() {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new GuardedStdioTransport(input, output);
  const received: unknown[] = [];
  transport.onmessage = (message) => received.push(message);
  let buffer = '';
  const written: Array<Record<string, unknown>> = [];
  let wake: (() => void) | undefined;
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      written.push(JSON.parse(buffer.slice(0, i)) as Record<string, unknown>);
      buffer = buffer.slice(i + 1);
    }
    wake?.();
  });
  /** The next line the transport wrote, waiting for it. */
  const next = async () => {
    while (!written.length) await new Promise<void>((resolve) => (wake = resolve));
    return written.shift()!;
  };
  /** Sends `initialize` as request `id` and answers it with `result`, as the server would. */
  const initialized = async (id: number, result: Record<string, unknown> = {}) => {
    input.write(`{"jsonrpc":"2.0","id":${id},"method":"initialize","params":${INITIALIZE_PARAMS}}\n`);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await transport.send({ jsonrpc: '2.0', id, result } as never);
    await next();
  };
  return { input, transport, received, next, initialized };
}

describe('MCP stdio transport', () => {
  it('refuses a message longer than the limit with an error naming it, then reads the next line', async () => {
    const { input, transport, received, next } = harness();
    await transport.start();
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    for (let sent = 0; sent <= MAX_MESSAGE_BYTES; sent += chunk.length) input.write(chunk);
    input.write('\n');
    const refused = await next();
    assert.equal((refused.error as { code: number }).code, -32600);
    assert.match((refused.error as { message: string }).message, /larger than 32 MB/);
    input.write(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":${INITIALIZE_PARAMS}}\n`);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 7, method: 'initialize', params: JSON.parse(INITIALIZE_PARAMS) }]);
    await transport.close();
  });

  it('reads a message split across chunks, multi-byte characters included', async () => {
    const { input, transport, received, next } = harness();
    await transport.start();
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"note":"Grüße"}}\n', 'utf8');
    const cut = line.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    input.write(line.subarray(0, cut));
    input.write(line.subarray(cut));
    input.write('not json\n');
    assert.equal(((await next()).error as { code: number }).code, -32700);
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 1, method: 'ping', params: { note: 'Grüße' } }]);
    await transport.close();
  });

  it('drops notifications before initialize and passes the server answers through', async () => {
    const { input, transport, received, next } = harness();
    await transport.start();
    input.write('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n');
    input.write(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":${INITIALIZE_PARAMS}}\n`);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(received.length, 1);
    await transport.send({ jsonrpc: '2.0', id: 'a', result: {} } as never);
    assert.deepEqual(await next(), { jsonrpc: '2.0', id: 'a', result: {} });
    input.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(received.length, 2, 'served once initialize was answered');
    await transport.close();
  });

  it('serves a client whose first initialize was refused once a retried one is answered', async () => {
    const { input, transport, received, next, initialized } = harness();
    await transport.start();
    input.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":${INITIALIZE_PARAMS}}\n`);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await transport.send({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad params' } } as never);
    await next();
    await initialized(2);
    input.write('{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(received.length, 3, 'served once the retried initialize was answered');
    await transport.close();
  });

  it('leaves no listener behind on its output after waiting for a slow reader', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 16 });
    const transport = new GuardedStdioTransport(input, output);
    await transport.start();
    const before = output.listenerCount('error') + output.listenerCount('drain');
    const sent = Array.from({ length: 50 }, (_, id) => transport.send({ jsonrpc: '2.0', id, result: {} } as never));
    output.resume();
    await Promise.all(sent);
    assert.equal(output.listenerCount('error') + output.listenerCount('drain'), before);
    await transport.close();
  });

  it('answers the requests the server would drop unanswered, so they take no place among the running ones', async () => {
    const { input, transport, received, next, initialized } = harness();
    await transport.start();
    await initialized(0);
    received.length = 0;
    const malformed = [
      ['{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', 1.5, JsonRpcErrors.invalidRequest],
      ['{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1,2]}', 2, JsonRpcErrors.invalidParams],
      ['{"jsonrpc":"2.0","id":3,"method":"ping","params":"x"}', 3, JsonRpcErrors.invalidParams],
      ['{"jsonrpc":"2.0","id":4,"method":"tools/list","extra":true}', 4, JsonRpcErrors.invalidRequest],
      ['{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"progressToken":1.5}}}', 5, JsonRpcErrors.invalidParams],
    ] as const;
    // More of them than can run at once: were any taken as running, the valid request after them would wait.
    for (let round = 0; round < MAX_RUNNING_REQUESTS; round++) {
      for (const [line, id, code] of malformed) {
        input.write(`${line}\n`);
        const answer = await next();
        assert.deepEqual([answer.id, (answer.error as { code: number }).code], [id, code], line);
      }
    }
    input.write('{"jsonrpc":"2.0","id":99,"method":"tools/list"}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 99, method: 'tools/list' }]);
    await transport.close();
  });

  it('answers params a method does not take with -32602, naming the field, before the server would call it an internal error', async () => {
    const { input, transport, received, next, initialized } = harness();
    await transport.start();
    input.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
    const init = await next();
    assert.deepEqual([init.id, (init.error as { code: number }).code], [1, JsonRpcErrors.invalidParams]);
    assert.match((init.error as { message: string }).message, /^Invalid params for initialize: params\.protocolVersion/);
    await initialized(2);
    const cases = [
      ['{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{}}', /resources\/read: params\.uri/],
      ['{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":42}}', /resources\/read: params\.uri/],
      ['{"jsonrpc":"2.0","id":5,"method":"resources/list","params":{"cursor":5}}', /resources\/list: params\.cursor/],
      ['{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":5}}', /tools\/list: params\.cursor/],
    ] as const;
    for (const [line, message] of cases) {
      input.write(`${line}\n`);
      const answer = await next();
      assert.equal((answer.error as { code: number }).code, JsonRpcErrors.invalidParams, line);
      assert.match((answer.error as { message: string }).message, message);
    }
    input.write('{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"docchat://x"}}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(
      received.map((m) => (m as { id: number }).id),
      [2, 6],
    );
    await transport.close();
  });

  it('takes a batch only in a 2024-11-05 or 2025-03-26 session: one array of answers once all its requests are answered', async () => {
    const { input, transport, received, next, initialized } = harness();
    await transport.start();
    input.write('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    assert.match(((await next()).error as { message: string }).message, /only in a session of protocol revision 2024-11-05 or 2025-03-26/);
    await initialized(0, { protocolVersion: '2025-03-26' });
    received.length = 0;
    input.write('[]\n');
    assert.match(((await next()).error as { message: string }).message, /the batch is empty/);
    input.write(
      `[{"jsonrpc":"2.0","id":"a","method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":"x"},{"jsonrpc":"2.0","id":"c","method":"ping"},{"jsonrpc":"2.0","id":"d","method":"initialize","params":${INITIALIZE_PARAMS}}]\n`,
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(
      received.map((m) => (m as { id?: string; method: string }).id ?? (m as { method: string }).method),
      ['a', 'notifications/roots/list_changed', 'c'],
    );
    // Nothing is written until both requests the server took are answered, in whatever order.
    await transport.send({ jsonrpc: '2.0', id: 'c', result: {} } as never);
    await transport.send({ jsonrpc: '2.0', id: 'a', result: { tools: [] } } as never);
    const batch = (await next()) as unknown as Array<{ id: string; result?: unknown; error?: { code: number } }>;
    assert.deepEqual(
      batch.map((a) => [a.id, a.error?.code ?? 'result']),
      [
        ['b', JsonRpcErrors.invalidParams],
        ['d', JsonRpcErrors.invalidRequest],
        ['c', 'result'],
        ['a', 'result'],
      ],
    );
    // A batch of notifications only is answered with nothing; a cancelled request of a batch leaves it out.
    input.write('[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]\n');
    input.write('[{"jsonrpc":"2.0","id":"e","method":"tools/list"},{"jsonrpc":"2.0","id":"f","method":"ping"}]\n');
    input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e"}}\n');
    await transport.send({ jsonrpc: '2.0', id: 'f', result: {} } as never);
    assert.deepEqual(await next(), [{ jsonrpc: '2.0', id: 'f', result: {} }]);
    await transport.close();
  });

  it('refuses a batch in a session of 2025-06-18 or later, naming the revision', async () => {
    const { input, transport, next, initialized } = harness();
    await transport.start();
    await initialized(0, { protocolVersion: '2025-11-25' });
    input.write('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    const refused = await next();
    assert.deepEqual([refused.id, (refused.error as { code: number }).code], [null, JsonRpcErrors.invalidRequest]);
    assert.match((refused.error as { message: string }).message, /2025-11-25 has no JSON-RPC batches/);
    await transport.close();
  });

  it('hands the server a bounded number of requests, queues a bounded number, and answers the rest busy', async () => {
    const { input, transport, received, next, initialized } = harness();
    await transport.start();
    await initialized(0);
    received.length = 0;
    const total = MAX_RUNNING_REQUESTS + MAX_WAITING_REQUESTS + 2;
    for (let id = 1; id <= total; id++) input.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{}}\n`);
    const busy = [await next(), await next()];
    assert.deepEqual(
      busy.map((m) => [m.id, (m.error as { code: number }).code]),
      [
        [total - 1, JsonRpcErrors.busy],
        [total, JsonRpcErrors.busy],
      ],
    );
    assert.match((busy[0]!.error as { message: string }).message, /busy: 8 requests are running and at most 64 .*can wait/);
    const ids = () => received.map((m) => (m as { id?: number }).id);
    assert.deepEqual(ids(), [1, 2, 3, 4, 5, 6, 7, 8]);
    // A ping is never queued.
    input.write('{"jsonrpc":"2.0","id":"p","method":"ping"}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(ids().at(-1), 'p');
    // A waiting request that is cancelled is dropped, the notification with it.
    input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}\n');
    // An answer frees a place for the next waiting request.
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} } as never);
    await next();
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(ids().slice(9), [10]);
    // A running request that is cancelled frees its place too (the server does not answer it).
    input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: {} });
    assert.deepEqual(received.slice(9), [
      call(10),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } },
      call(11),
    ]);
    await transport.close();
  });
});
