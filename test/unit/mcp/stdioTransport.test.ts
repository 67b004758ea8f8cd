/** The MCP server's stdio transport on its own: lines in, protocol errors out, the server's messages through. */
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { GuardedStdioTransport, MAX_MESSAGE_BYTES } from '../../../src/mcp/stdioTransport';

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
  return { input, transport, received, next };
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
    input.write('{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 7, method: 'initialize', params: {} }]);
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
    input.write('{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(received.length, 1);
    await transport.send({ jsonrpc: '2.0', id: 'a', result: {} } as never);
    assert.deepEqual(await next(), { jsonrpc: '2.0', id: 'a', result: {} });
    input.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(received.length, 2, 'served once initialize was answered');
    await transport.close();
  });
});
