/**
 * DocChat's MCP server as agents use it beyond single tool calls, run from source on stdio against
 * the embedded backend: following a search hit from its text alone, resources, the protocol
 * errors of the specification, and both protocol generations (the 2025 handshake revisions and
 * 2026-07-28), with the official SDK clients and with raw JSON-RPC lines.
 */
import * as assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpEnv } from '../../../src/mcp/environment';
import { RESOURCE_LIST_PAGE, RESOURCE_PAGE_CHARS } from '../../../src/mcp/resources';
import { ToolNames } from '../../../src/mcp/tools';
import { startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const SERVER_SOURCE = path.join(ROOT, 'src/mcp/main.ts');
const SERVER_ARGS = ['--require', 'tsx/cjs', SERVER_SOURCE];

function serverEnv(extra: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('DOCCHAT_')),
  ) as Record<string, string>;
  return { ...inherited, ...extra };
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as Array<{ type: string; text?: string }>)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
}

/** Raw sessions still open, closed after each test even when it failed while waiting. */
const openSessions = new Set<RawSession>();

/** The server on raw stdio: JSON-RPC lines in, every line it answers out. */
class RawSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private readonly lines: unknown[] = [];
  private waiter: (() => void) | undefined;
  private exited = false;

  constructor(env: Record<string, string>) {
    openSessions.add(this);
    this.child = spawn(process.execPath, SERVER_ARGS, { cwd: ROOT, env: serverEnv(env), stdio: 'pipe' });
    this.child.once('exit', () => {
      this.exited = true;
      this.waiter?.();
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line) this.lines.push(JSON.parse(line));
      }
      this.waiter?.();
    });
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  request(id: number, method: string, params?: Record<string, unknown>): void {
    this.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
  }

  /** The next answer that matches, waiting for the server's output (never a fixed time). */
  async next(match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const index = this.lines.findIndex((m) => match(m as Record<string, unknown>));
      if (index >= 0) return this.lines.splice(index, 1)[0] as Record<string, unknown>;
      if (this.exited) throw new Error('the server exited');
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  answer(id: number | null): Promise<Record<string, unknown>> {
    return this.next((m) => m.id === id);
  }

  close(): void {
    openSessions.delete(this);
    this.child.stdin.end();
    this.child.kill();
  }
}

async function legacyClient(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'docchat-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: SERVER_ARGS, env: serverEnv(env), cwd: ROOT, stderr: 'ignore' }),
  );
  return client;
}

async function modernClient(env: Record<string, string>): Promise<ModernClient> {
  const client = new ModernClient({ name: 'docchat-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(
    new ModernStdioTransport({ command: process.execPath, args: SERVER_ARGS, env: serverEnv(env), cwd: ROOT, stderr: 'ignore' }),
  );
  return client;
}

describe('MCP server: following hits, resources, protocol errors and generations', function () {
  this.timeout(180_000);
  let backend: TestBackend;
  let env: Record<string, string>;
  let client: Client;
  let storeId: string;
  let handbookId: string;
  let auroraId: string;
  let longId: string;
  let bulkStoreId: string;
  const LONG_LINES = 2_500;

  before(async () => {
    // No per-minute limits: the bulk store attaches more files than a minute allows.
    backend = await startTestBackend({ rateLimits: false });
    storeId = await backend.createStore('design-docs');
    handbookId = await backend.createStore('handbook');
    auroraId = (await backend.ingest(storeId, 'aurora.md', '# Aurora\n\nThe aurora design doc says the cache holds 42 entries per shard.'))
      .json.id;
    const long = Array.from({ length: LONG_LINES }, (_, i) => `Line ${i} of the long guide.`).join('\n');
    longId = (await backend.ingest(storeId, 'long-guide.md', long)).json.id;
    await backend.ingest(handbookId, 'holidays.md', '# Holidays\n\nEveryone has 30 days of leave a year.');
    // One store with more files than a page of resources/list holds.
    bulkStoreId = await backend.createStore('bulk');
    for (let start = 0; start <= RESOURCE_LIST_PAGE; start += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, RESOURCE_LIST_PAGE + 1 - start) }, (_, i) =>
          backend.ingest(bulkStoreId, `note-${String(start + i).padStart(3, '0')}.md`, `Note ${start + i}.`),
        ),
      );
    }
    env = { [McpEnv.documentsUrl]: backend.url, [McpEnv.documentsToken]: TOKEN };
    client = await legacyClient(env);
  });

  afterEach(() => {
    for (const session of openSessions) session.close();
  });

  after(async () => {
    await client?.close();
    await backend?.close();
  });

  describe('search results an agent can follow', () => {
    it("reads a hit's file with the file id and store taken from the result's text alone", async () => {
      const result = (await client.callTool({
        name: ToolNames.search,
        arguments: { store: 'design-docs', query: 'how many entries does the cache hold' },
      })) as CallToolResult;
      assert.ok(!result.isError, textOf(result));
      const text = textOf(result);
      // Only the text, as many hosts give it to the model: the first hit's line names what to copy.
      const hitLine = text.split('\n').find((line) => line.startsWith('[1] '));
      assert.ok(hitLine, text);
      assert.match(
        hitLine,
        /^\[1\] aurora\.md \(score \d\.\d\d\) · read: \{"store":"[^"]+","file_id":"[^"]+","near":"The aurora design doc says the cache holds 42 entries per shard\."\}$/,
      );
      assert.ok(hitLine.includes(storeId), `the store id is on the hit's line: ${hitLine}`);
      const copied = JSON.parse(/read: (\{.*\})/.exec(hitLine)![1]!) as Record<string, unknown>;
      const read = (await client.callTool({ name: ToolNames.readFile, arguments: copied })) as CallToolResult;
      assert.ok(!read.isError, textOf(read));
      assert.equal((read.structuredContent as { file_name: string }).file_name, 'aurora.md');
      assert.match(textOf(read), /42 entries per shard/);
    });

    it('links each file of the hits as a resource the client can read, with structured content unchanged', async () => {
      const result = (await client.callTool({
        name: ToolNames.search,
        arguments: { store: storeId, query: 'cache entries per shard and the long guide', max_results: 10 },
      })) as CallToolResult;
      const hits = (result.structuredContent as { results: Array<Record<string, unknown>> }).results;
      assert.deepEqual(Object.keys(hits[0]!).sort(), ['content', 'file_id', 'file_name', 'score', 'store_id', 'store_name']);
      const links = result.content.filter((c) => c.type === 'resource_link') as Array<{ uri: string; name: string; mimeType?: string }>;
      const files = [...new Set(hits.map((h) => h.file_id))];
      assert.equal(links.length, files.length, 'one link per file');
      const aurora = links.find((l) => l.name === 'aurora.md');
      assert.ok(aurora, JSON.stringify(links));
      assert.equal(aurora.mimeType, 'text/markdown');
      const read = await client.readResource({ uri: aurora.uri });
      assert.match((read.contents[0] as { text: string }).text, /42 entries per shard/);
    });

    it('gives listing results their structured content as JSON text too', async () => {
      const result = (await client.callTool({ name: ToolNames.listStores, arguments: {} })) as CallToolResult;
      const texts = result.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
      assert.ok(
        texts.some((t) => {
          try {
            return JSON.stringify(JSON.parse(t)) === JSON.stringify(result.structuredContent);
          } catch {
            return false;
          }
        }),
        texts.join('\n---\n'),
      );
    });
  });

  describe('resources', () => {
    it('offers a resource template per store', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      const byTitle = new Map(resourceTemplates.map((t) => [t.title, t]));
      for (const [name, id] of [
        ['design-docs', storeId],
        ['handbook', handbookId],
        ['bulk', bulkStoreId],
      ] as const) {
        const template = byTitle.get(name);
        assert.ok(template, `a template for ${name}: ${JSON.stringify(resourceTemplates)}`);
        assert.equal(template.uriTemplate, `docchat://stores/${id}/files/{file_id}{?page}`);
        assert.equal(template.mimeType, 'text/markdown');
      }
    });

    it("lists every store's files page by page", async () => {
      const seen: Array<{ uri: string; name: string }> = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listResources(cursor ? { cursor } : {});
        assert.ok(page.resources.length <= RESOURCE_LIST_PAGE, `page of ${page.resources.length}`);
        seen.push(...page.resources);
        cursor = page.nextCursor;
        pages++;
        assert.ok(pages < 20, 'the pages end');
      } while (cursor);
      assert.ok(pages >= 3, `pages: ${pages}`);
      const names = seen.map((r) => r.name);
      assert.equal(new Set(seen.map((r) => r.uri)).size, seen.length, 'no file listed twice');
      assert.equal(names.filter((n) => n.startsWith('note-')).length, RESOURCE_LIST_PAGE + 1);
      for (const name of ['aurora.md', 'long-guide.md', 'holidays.md']) assert.ok(names.includes(name), name);
      assert.ok(seen.some((r) => r.uri === `docchat://stores/${storeId}/files/${auroraId}`));
    });

    it("reads a file's converted text in pages, each naming the next", async () => {
      const first = await client.readResource({ uri: `docchat://stores/${storeId}/files/${longId}` });
      const one = first.contents[0] as { text: string; mimeType?: string };
      assert.equal(one.mimeType, 'text/markdown');
      const next = `docchat://stores/${storeId}/files/${longId}?page=2`;
      assert.ok(one.text.startsWith(`[long-guide.md, page 1 of 2. It continues at ${next}.]`), one.text.slice(0, 200));
      assert.match(one.text, /Line 0 of the long guide/);
      const second = (await client.readResource({ uri: next })).contents[0] as { text: string; uri: string };
      assert.equal(second.uri, next);
      assert.match(second.text, new RegExp(`Line ${LONG_LINES - 1} of the long guide\\.\\s*$`));
      const body = (t: string) => t.replace(/^\[[^\]]*\]\n\n/, '');
      assert.equal(Array.from(body(one.text)).length, RESOURCE_PAGE_CHARS);
      await assert.rejects(
        client.readResource({ uri: `docchat://stores/${storeId}/files/${longId}?page=3` }),
        (error: { code?: number; message: string }) => {
          assert.equal(error.code, -32602);
          assert.match(error.message, /Page 3 is past the end: long-guide\.md has 2 pages/);
          return true;
        },
      );
    });

    it('answers a file that is not there, or not a DocChat URI, with a protocol error', async () => {
      for (const uri of [
        `docchat://stores/${handbookId}/files/${auroraId}`,
        'docchat://stores/no-such-store/files/x',
        'https://example.com/x',
        `docchat://stores/${handbookId}/files/..`,
        `docchat://stores/${handbookId}/files/%2E`,
      ]) {
        await assert.rejects(client.readResource({ uri }), (error: { code?: number }) => {
          assert.ok(error.code === -32602 || error.code === -32002, `${uri}: ${String(error.code)}`);
          return true;
        });
      }
    });
  });

  describe('protocol errors', () => {
    it('answers an unknown tool with the JSON-RPC error -32602', async () => {
      await assert.rejects(
        client.callTool({ name: 'docchat_no_such_tool', arguments: {} }),
        (error: { code?: number; message: string }) => {
          assert.equal(error.code, -32602);
          assert.match(error.message, /docchat_no_such_tool/);
          return true;
        },
      );
    });

    it('lists its tools in a stable order', async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names, [ToolNames.listStores, ToolNames.listFiles, ToolNames.search, ToolNames.readFile]);
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        names,
      );
    });

    it('answers a line that is not JSON with a parse error (-32700) and keeps serving', async () => {
      const raw = new RawSession(env);
      try {
        raw.write('{"jsonrpc": "2.0", "id": 1, "method": ');
        const parse = await raw.answer(null);
        assert.equal((parse.error as { code: number }).code, -32700);
        raw.write('[1, 2]');
        const invalid = await raw.answer(null);
        assert.equal((invalid.error as { code: number }).code, -32600);
        raw.request(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
        assert.equal(((await raw.answer(2)).result as { protocolVersion: string }).protocolVersion, '2025-11-25');
      } finally {
        raw.close();
      }
    });

    it('serves no request before initialize', async () => {
      const raw = new RawSession(env);
      try {
        raw.request(1, 'tools/list');
        const refused = await raw.answer(1);
        assert.equal(refused.result, undefined, JSON.stringify(refused));
        assert.equal((refused.error as { code: number }).code, -32600);
        assert.match((refused.error as { message: string }).message, /not initialized: send "initialize" first/);
        raw.request(2, 'ping');
        assert.deepEqual((await raw.answer(2)).result, {});
        raw.request(3, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
        await raw.answer(3);
        raw.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
        raw.request(4, 'tools/list');
        assert.ok(((await raw.answer(4)).result as { tools: unknown[] }).tools.length >= 4);
      } finally {
        raw.close();
      }
    });
  });

  describe('protocol generations', () => {
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const links = revision >= '2025-06-18';
      it(`serves a client pinned to ${revision}: lists tools and searches${links ? ', linking the files' : ', with no resource_link (its schema has none)'}`, async () => {
        const raw = new RawSession(env);
        try {
          raw.request(1, 'initialize', { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'pinned', version: '1' } });
          const init = (await raw.answer(1)).result as { protocolVersion: string; serverInfo: { name: string; title?: string } };
          assert.equal(init.protocolVersion, revision);
          assert.equal(init.serverInfo.name, 'docchat');
          // VS Code's tools picker names the server's group after its title: not the extension's own group's "DocChat".
          assert.equal(init.serverInfo.title, 'DocChat Documents');
          raw.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
          raw.request(2, 'tools/list');
          const tools = ((await raw.answer(2)).result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
          assert.ok(tools.includes(ToolNames.search), tools.join(', '));
          raw.request(3, 'tools/call', { name: ToolNames.search, arguments: { store: 'design-docs', query: 'cache entries per shard' } });
          const searched = (await raw.answer(3)).result as CallToolResult;
          assert.ok(!searched.isError, textOf(searched));
          assert.match(textOf(searched), /aurora\.md/);
          const linked = searched.content.filter((c) => c.type === 'resource_link').length;
          if (links) assert.ok(linked > 0, 'a resource_link per file');
          else assert.equal(linked, 0, JSON.stringify(searched.content));
          assert.equal(/read the resource linked/.test(textOf(searched)), links, 'the text offers the links only when they are there');
        } finally {
          raw.close();
        }
      });
    }

    for (const revision of ['2025-03-26', '2025-11-25']) {
      const batches = revision < '2025-06-18';
      it(`${batches ? 'answers a JSON-RPC batch with one array' : 'refuses a JSON-RPC batch, naming the revision'} in a ${revision} session`, async () => {
        const raw = new RawSession(env);
        try {
          raw.request(1, 'initialize', { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'batch', version: '1' } });
          await raw.answer(1);
          raw.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
          raw.write(
            JSON.stringify([
              { jsonrpc: '2.0', id: 10, method: 'tools/list' },
              { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
              { jsonrpc: '2.0', id: 11, method: 'ping' },
              { jsonrpc: '2.0', id: 12, method: 'tools/call', params: [1] },
            ]),
          );
          if (!batches) {
            const refused = await raw.answer(null);
            assert.equal((refused.error as { code: number }).code, -32600);
            assert.match((refused.error as { message: string }).message, new RegExp(`${revision} has no JSON-RPC batches`));
            return;
          }
          const answers = (await raw.next((m) => Array.isArray(m))) as unknown as Array<Record<string, unknown>>;
          assert.deepEqual(answers.map((a) => a.id).sort(), [10, 11, 12]);
          const byId = new Map(answers.map((a) => [a.id, a]));
          assert.ok(((byId.get(10)!.result as { tools: unknown[] }).tools.length ?? 0) >= 4);
          assert.deepEqual(byId.get(11)!.result, {});
          assert.equal((byId.get(12)!.error as { code: number }).code, -32602);
        } finally {
          raw.close();
        }
      });
    }

    it('serves a client pinned to 2026-07-28 (server/discover, stateless requests): lists tools, searches and reads', async () => {
      const modern = await modernClient(env);
      try {
        assert.equal(modern.getServerVersion()?.name, 'docchat');
        const tools = (await modern.listTools()).tools.map((t) => t.name);
        assert.deepEqual(tools, [ToolNames.listStores, ToolNames.listFiles, ToolNames.search, ToolNames.readFile]);
        const searched = await modern.callTool({
          name: ToolNames.search,
          arguments: { store: 'design-docs', query: 'cache entries per shard' },
        });
        assert.ok(!searched.isError, textOf(searched));
        const hitLine = textOf(searched)
          .split('\n')
          .find((line) => line.startsWith('[1] '))!;
        const read = await modern.callTool({ name: ToolNames.readFile, arguments: JSON.parse(/read: (\{.*\})/.exec(hitLine)![1]!) });
        assert.match(textOf(read), /42 entries per shard/);
      } finally {
        await modern.close();
      }
    });

    it('answers server/discover with its versions and cache hints that match how often each list changes', async () => {
      const raw = new RawSession(env);
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      try {
        raw.request(1, 'server/discover', { _meta: meta });
        const discover = (await raw.answer(1)).result as {
          supportedVersions: string[];
          capabilities: Record<string, unknown>;
          ttlMs: number;
        };
        assert.ok(discover.supportedVersions.includes('2026-07-28'), JSON.stringify(discover));
        assert.ok(discover.capabilities.tools && discover.capabilities.resources, JSON.stringify(discover.capabilities));
        raw.request(2, 'tools/list', { _meta: meta });
        const tools = (await raw.answer(2)).result as { ttlMs: number; cacheScope: string };
        raw.request(3, 'resources/list', { _meta: meta });
        const resources = (await raw.answer(3)).result as { ttlMs: number; cacheScope: string };
        // The tools change only with a restart; the stores' files any time, so their list is kept briefly.
        assert.ok(tools.ttlMs > resources.ttlMs, `${tools.ttlMs} > ${resources.ttlMs}`);
        assert.ok(resources.ttlMs > 0);
        assert.equal(resources.cacheScope, 'private');
      } finally {
        raw.close();
      }
    });
  });
});
