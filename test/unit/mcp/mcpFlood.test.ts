/**
 * DocChat's MCP server (run from source on stdio, raw JSON-RPC lines) under a client that sends
 * requests without waiting: a proxy in front of the embedded backend holds every call until the
 * test lets them go, so the requests the server works on, those that wait and those refused busy
 * are counted exactly.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { forward } from '../../support/servers/forward';
import { McpEnv } from '../../../src/mcp/environment';
import { JsonRpcErrors, MAX_RUNNING_REQUESTS, MAX_WAITING_REQUESTS } from '../../../src/mcp/stdioTransport';
import { ToolNames } from '../../../src/mcp/tools';
import { startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const SERVER_SOURCE = path.join(ROOT, 'src/mcp/main.ts');

type Message = Record<string, unknown> & { id?: unknown; error?: { code: number; message: string; data?: unknown } };

describe('MCP server: a flood of requests over stdio', function () {
  this.timeout(120_000);
  let backend: TestBackend;
  let proxy: http.Server;
  let child: ChildProcessWithoutNullStreams | undefined;
  /** Calls held at the proxy until `release()`. */
  let held: Array<() => void> = [];
  let gateOpen = false;
  /** Called on each line of the server's output and each call reaching the proxy. */
  let wake: (() => void) | undefined;

  before(async () => {
    backend = await startTestBackend({ rateLimits: false });
    await backend.createStore('handbook');
    proxy = http.createServer((req, res) => {
      const pass = () => forward(req, res, backend.url);
      if (gateOpen) pass();
      else {
        held.push(pass);
        wake?.();
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    child?.kill();
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    await backend?.close();
  });

  it('works on a bounded number, queues a bounded number, answers the rest busy, and stays alive', async () => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('DOCCHAT_')),
    ) as Record<string, string>;
    const server = spawn(process.execPath, ['--require', 'tsx/cjs', SERVER_SOURCE], {
      cwd: ROOT,
      stdio: 'pipe',
      env: {
        ...inherited,
        [McpEnv.documentsUrl]: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        [McpEnv.documentsToken]: TOKEN,
      },
    });
    child = server;
    const answers: Message[] = [];
    let exited = false;
    server.once('exit', () => {
      exited = true;
      wake?.();
    });
    let buffer = '';
    server.stdout.setEncoding('utf8');
    server.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i).trim();
        buffer = buffer.slice(i + 1);
        if (line) answers.push(JSON.parse(line) as Message);
      }
      wake?.();
    });
    /** Waits (for output, never a fixed time) until `done` holds. */
    const until = async (done: () => boolean) => {
      while (!done()) {
        if (exited) throw new Error('the server exited');
        await new Promise<void>((resolve) => (wake = resolve));
      }
    };
    const send = (message: Record<string, unknown>) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

    send({
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
    });
    await until(() => answers.some((a) => a.id === 0));
    send({ method: 'notifications/initialized' });

    const FLOOD = 300;
    // One write: the whole flood arrives before any call can finish (the proxy holds them all).
    server.stdin.write(
      Array.from(
        { length: FLOOD },
        (_, i) =>
          `${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: ToolNames.listStores, arguments: {} } })}\n`,
      ).join(''),
    );
    const refusedCount = FLOOD - MAX_RUNNING_REQUESTS - MAX_WAITING_REQUESTS;
    const busy = () => answers.filter((a) => a.error?.code === JsonRpcErrors.busy);
    await until(() => (busy().length >= refusedCount && held.length >= MAX_RUNNING_REQUESTS) || held.length > MAX_RUNNING_REQUESTS);
    // Those held at the proxy are the running ones: exactly the bound, none of the waiting.
    assert.equal(held.length, MAX_RUNNING_REQUESTS);
    assert.equal(busy().length, refusedCount);
    const refused = busy()[0]!;
    assert.match(
      refused.error!.message,
      new RegExp(
        `DocChat's MCP server is busy: ${MAX_RUNNING_REQUESTS} requests are running and at most ${MAX_WAITING_REQUESTS} .*can wait; retry after the running ones finish\\.`,
      ),
    );
    // The first requests were taken, the last ones refused.
    assert.deepEqual(
      busy()
        .map((a) => a.id as number)
        .sort((a, b) => a - b),
      Array.from({ length: refusedCount }, (_, i) => MAX_RUNNING_REQUESTS + MAX_WAITING_REQUESTS + 1 + i),
    );

    // A ping is answered while every place is taken.
    send({ id: 'ping-1', method: 'ping' });
    await until(() => answers.some((a) => a.id === 'ping-1'));

    gateOpen = true;
    for (const release of held) release();
    held = [];
    const served = () => answers.filter((a) => typeof a.id === 'number' && a.id > 0 && 'result' in a);
    await until(() => served().length >= MAX_RUNNING_REQUESTS + MAX_WAITING_REQUESTS);
    assert.deepEqual(
      served()
        .map((a) => a.id as number)
        .sort((a, b) => a - b),
      Array.from({ length: MAX_RUNNING_REQUESTS + MAX_WAITING_REQUESTS }, (_, i) => i + 1),
    );
    assert.ok(
      served().every((a) => JSON.stringify(a.result).includes('handbook')),
      'each served call lists the stores',
    );

    // Still alive, and serving again.
    send({ id: 'ping-2', method: 'ping' });
    send({ id: 'after', method: 'tools/call', params: { name: ToolNames.listStores, arguments: {} } });
    await until(() => answers.some((a) => a.id === 'ping-2') && answers.some((a) => a.id === 'after'));
    assert.ok('result' in answers.find((a) => a.id === 'after')!);
    assert.equal(exited, false);
  });
});
