/**
 * DocChat's MCP server, run as agents run it (a process on stdio, from source here) and driven by
 * the MCP SDK's own client against the embedded backend on 127.0.0.1.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { forward } from '../../support/servers/forward';
import { readDiscovery } from '../../../src/common/discoveryFile';
import { McpEnv } from '../../../src/mcp/environment';
import { READ_PAGE_CHARS, ToolNames } from '../../../src/mcp/tools';
import { startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const SERVER_SOURCE = path.join(ROOT, 'src/mcp/main.ts');

interface Session {
  client: Client;
  /** Everything the server wrote on stderr (its log). */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the server with `env` (and nothing of this process's DocChat variables) and connects the SDK client. */
async function connect(env: Record<string, string>): Promise<Session> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('DOCCHAT_')),
  ) as Record<string, string>;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--require', 'tsx/cjs', SERVER_SOURCE],
    env: { ...inherited, ...env },
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'docchat-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

async function call(session: Session, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('MCP server over stdio (SDK client, embedded backend)', function () {
  this.timeout(120_000);
  let backend: TestBackend;
  let session: Session;
  let storeId: string;
  let fileId: string;
  let longFileId: string;
  /** Every tool result of the suite, checked for the token at the end. */
  const outputs: string[] = [];
  const remoteEnv = () => ({ [McpEnv.documentsUrl]: backend.url, [McpEnv.documentsToken]: TOKEN });
  const tool = async (s: Session, name: string, args: Record<string, unknown> = {}) => {
    const result = await call(s, name, args);
    outputs.push(JSON.stringify(result));
    return result;
  };

  before(async () => {
    backend = await startTestBackend();
    storeId = await backend.createStore('design-docs');
    await backend.createStore('handbook');
    const ingested = await backend.ingest(
      storeId,
      'aurora.md',
      '# Aurora\n\nThe aurora design doc says the cache holds 42 entries per shard.',
    );
    fileId = ingested.json.id;
    const long = Array.from({ length: 2_500 }, (_, i) => `Line ${i} of the long guide.`).join('\n');
    longFileId = (await backend.ingest(storeId, 'long-guide.md', long)).json.id;
    session = await connect(remoteEnv());
  });

  after(async () => {
    await session?.close();
    await backend?.close();
  });

  it('lists its read-only tools with schemas that state the limits', async () => {
    const { tools } = await session.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      [ToolNames.listFiles, ToolNames.listStores, ToolNames.readFile, ToolNames.search].sort(),
    );
    const search = tools.find((t) => t.name === ToolNames.search)!;
    const props = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(search.inputSchema.required?.slice().sort(), ['query', 'store']);
    assert.equal(props.query!.maxLength, 10_000);
    assert.equal(props.max_results!.minimum, 1);
    assert.equal(props.max_results!.maximum, 50);
    assert.ok(search.outputSchema, 'search declares its structured output');
    for (const t of tools) {
      assert.equal(t.annotations?.readOnlyHint, true, `${t.name} is read-only`);
      assert.ok((t.description ?? '').length > 60, `${t.name} is described for a model`);
    }
  });

  it('lists tool schemas that name no JSON Schema dialect, so no host has to fetch a meta-schema', async () => {
    // VS Code 1.104 checks each tool's input schema with its JSON language service, which fetches the
    // meta-schema a `$schema` names; offline that fails and VS Code leaves the tool out. Without
    // `$schema` the MCP specification's default dialect (JSON Schema 2020-12) applies.
    const { tools } = await session.client.listTools();
    assert.ok(tools.length >= 4);
    for (const t of tools) {
      assert.ok(!('$schema' in t.inputSchema), `${t.name}'s input schema names ${String(t.inputSchema.$schema)}`);
      assert.ok(!t.outputSchema || !('$schema' in t.outputSchema), `${t.name}'s output schema names ${String(t.outputSchema?.$schema)}`);
    }
  });

  it('lists the stores', async () => {
    const result = await tool(session, ToolNames.listStores);
    assert.ok(!result.isError, textOf(result));
    const stores = (result.structuredContent as { stores: Array<{ store_name: string; store_id: string }> }).stores;
    assert.deepEqual(stores.map((s) => s.store_name).sort(), ['design-docs', 'handbook']);
    assert.match(textOf(result), new RegExp(`design-docs \\(id ${storeId}\\)`));
  });

  it("lists a store's files with their status, by store name", async () => {
    const result = await tool(session, ToolNames.listFiles, { store: 'design-docs' });
    assert.ok(!result.isError, textOf(result));
    const files = (result.structuredContent as { files: Array<{ file_id: string; file_name: string; status: string }> }).files;
    assert.deepEqual(files.map((f) => [f.file_name, f.status]).sort(), [
      ['aurora.md', 'completed'],
      ['long-guide.md', 'completed'],
    ]);
    assert.ok(files.some((f) => f.file_id === fileId));
  });

  it('searches a store and returns passages with file name, file id, store and score', async () => {
    const result = await tool(session, ToolNames.search, { store: storeId, query: 'how many entries does the cache hold', max_results: 3 });
    assert.ok(!result.isError, textOf(result));
    const content = result.structuredContent as { results: Array<Record<string, unknown>> };
    const first = content.results[0]!;
    assert.equal(first.file_id, fileId);
    assert.equal(first.file_name, 'aurora.md');
    assert.equal(first.store_id, storeId);
    assert.equal(first.store_name, 'design-docs');
    assert.equal(typeof first.score, 'number');
    assert.match(String(first.content), /42 entries per shard/);
    assert.ok(content.results.length <= 3);
    assert.match(textOf(result), /aurora\.md \(score/);
  });

  it('restricts a search to the given files', async () => {
    const result = await tool(session, ToolNames.search, { store: 'design-docs', query: 'cache entries shard', file_ids: [longFileId] });
    assert.ok(!result.isError, textOf(result));
    const results = (result.structuredContent as { results: Array<{ file_id: string }> }).results;
    assert.ok(
      results.every((r) => r.file_id === longFileId),
      JSON.stringify(results.map((r) => r.file_id)),
    );
  });

  it('says which files are not in the store when a search restricted to them finds nothing, not "not covered"', async () => {
    const result = await tool(session, ToolNames.search, {
      store: 'handbook',
      query: 'cache entries shard',
      file_ids: [fileId, 'file-doesnotexist'],
    });
    assert.equal(result.isError, true, textOf(result));
    assert.match(textOf(result), new RegExp(`Not in the vector store "handbook" .*: ${fileId}, file-doesnotexist\\.`));
    assert.doesNotMatch(textOf(result), /do not cover/);
  });

  it('sends the file restriction under the field DOCCHAT_FILE_IDS_FIELD names', async () => {
    // A proxy in front of the backend records each search body and renames the configured field
    // to the backend's own `file_ids`.
    const searches: Record<string, unknown>[] = [];
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.method === 'POST' && /\/search$/.test(req.url ?? '')) {
          const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
          searches.push({ ...json });
          if ('restrict_to' in json) {
            json.file_ids = json.restrict_to;
            delete json.restrict_to;
          }
          body = Buffer.from(JSON.stringify(json));
        }
        forward(req, res, backend.url, body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = await connect({
      [McpEnv.documentsUrl]: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      [McpEnv.documentsToken]: TOKEN,
      [McpEnv.fileIdsField]: 'restrict_to',
    });
    try {
      const result = await tool(proxied, ToolNames.search, { store: 'design-docs', query: 'cache entries shard', file_ids: [longFileId] });
      assert.ok(!result.isError, textOf(result));
      assert.equal(searches.length, 1, JSON.stringify(searches));
      assert.deepEqual(searches[0]!.restrict_to, [longFileId]);
      assert.equal('file_ids' in searches[0]!, false, JSON.stringify(searches[0]));
      const results = (result.structuredContent as { results: Array<{ file_id: string }> }).results;
      assert.ok(results.every((r) => r.file_id === longFileId));
    } finally {
      await proxied.close();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('serves in English when its translations cannot be read, saying so in its log', async () => {
    const missing = path.join(os.tmpdir(), 'docchat-missing', 'bundle.l10n.de.json');
    const english = await connect({ ...remoteEnv(), DOCCHAT_L10N_BUNDLE: missing });
    try {
      const result = await call(english, ToolNames.listStores);
      assert.ok(!result.isError, textOf(result));
      assert.match(textOf(result), /design-docs/);
      assert.match(english.stderr(), /translations in .*bundle\.l10n\.de\.json cannot be read/);
    } finally {
      await english.close();
    }
  });

  it('says which store is not found, as a tool error', async () => {
    const result = await tool(session, ToolNames.search, { store: 'no-such-store', query: 'anything' });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /No DocChat vector store is named "no-such-store".*docchat_list_stores/);
  });

  it('refuses bad input with an error that names the limit', async () => {
    const long = await tool(session, ToolNames.search, { store: storeId, query: 'x'.repeat(10_001) });
    assert.equal(long.isError, true);
    assert.match(textOf(long), /at most 10,000 characters/);
    const many = await tool(session, ToolNames.search, { store: storeId, query: 'cache', max_results: 51 });
    assert.equal(many.isError, true);
    assert.match(textOf(many), /max_results must be from 1 to 50/);
    const empty = await tool(session, ToolNames.search, { store: storeId, query: '   ' });
    assert.equal(empty.isError, true);
    assert.match(textOf(empty), /query must not be empty/);
  });

  it("reads a file's converted text in pages of 10,000 characters", async () => {
    const first = await tool(session, ToolNames.readFile, { store: 'design-docs', file_id: longFileId });
    assert.ok(!first.isError, textOf(first));
    const one = first.structuredContent as { page: number; pages: number; has_more: boolean; text: string; file_name: string };
    assert.equal(one.file_name, 'long-guide.md');
    assert.equal(one.page, 1);
    assert.ok(one.pages >= 6, `pages: ${one.pages}`);
    assert.equal(one.has_more, true);
    assert.equal(Array.from(one.text).length, READ_PAGE_CHARS);
    assert.match(one.text, /^# |Line 0 of the long guide/);
    const last = await tool(session, ToolNames.readFile, { store: 'design-docs', file_id: longFileId, page: one.pages });
    const end = last.structuredContent as { has_more: boolean; text: string };
    assert.equal(end.has_more, false);
    assert.match(end.text, /Line 2499 of the long guide\.\s*$/);
    const past = await tool(session, ToolNames.readFile, { store: 'design-docs', file_id: longFileId, page: one.pages + 1 });
    assert.equal(past.isError, true);
    assert.match(textOf(past), new RegExp(`Page ${one.pages + 1} is past the end: the file has ${one.pages} pages`));
  });

  it("reads the page holding a search hit with the hit's read arguments; page 1 when near is not in the file; page wins over near", async () => {
    const search = await tool(session, ToolNames.search, {
      store: storeId,
      query: 'Line 1800 of the long guide',
      file_ids: [longFileId],
      max_results: 1,
    });
    assert.ok(!search.isError, textOf(search));
    const hit = (search.structuredContent as { results: Array<{ content: string }> }).results[0]!;
    const hitLine = textOf(search)
      .split('\n')
      .find((line) => line.startsWith('[1] '))!;
    const copied = JSON.parse(/read: (\{.*\})/.exec(hitLine)![1]!) as { near?: string };
    assert.ok(copied.near && hit.content.includes(copied.near), `near is a line of the passage: ${hitLine}`);
    const read = await tool(session, ToolNames.readFile, copied);
    assert.ok(!read.isError, textOf(read));
    const page = read.structuredContent as { page: number; pages: number; text: string };
    assert.ok(page.page > 1, `the passage is past page 1 of the long guide: page ${page.page}`);
    assert.ok(page.text.includes(copied.near!), 'the page read holds the passage');
    assert.match(textOf(read), new RegExp(`page ${page.page} of ${page.pages} \\(the page holding the text given as near\\)`));
    // A whole passage that opens with a heading line not next to its text (a chunk deep in a section) is found by its lines.
    const chunk = '## Appendix of the long guide\nLine 2300 of the long guide.\nLine 2301 of the long guide.';
    const whole = await tool(session, ToolNames.readFile, { store: storeId, file_id: longFileId, near: chunk });
    const wholePage = whole.structuredContent as { page: number; text: string };
    assert.ok(wholePage.page > 1 && wholePage.text.includes('Line 2300 of the long guide.'), `page ${wholePage.page}`);
    // Its words across other line breaks and spaces are found too.
    const spread = await tool(session, ToolNames.readFile, {
      store: storeId,
      file_id: longFileId,
      near: 'Line   2400\nof the long guide.',
    });
    assert.ok((spread.structuredContent as { text: string }).text.includes('Line 2400 of the long guide.'));

    const missing = await tool(session, ToolNames.readFile, { store: storeId, file_id: longFileId, near: 'words the guide never uses' });
    assert.equal((missing.structuredContent as { page: number }).page, 1);
    assert.match(textOf(missing), /the text given as near is not in the file: this is page 1/);
    const both = await tool(session, ToolNames.readFile, { ...copied, page: 2 });
    assert.equal((both.structuredContent as { page: number }).page, 2);
    assert.doesNotMatch(textOf(both), /given as near/);
    const long = await tool(session, ToolNames.readFile, { store: storeId, file_id: longFileId, near: 'x'.repeat(10_001) });
    assert.equal(long.isError, true);
    assert.match(textOf(long), /near must be at most 10,000 characters/);
  });

  it('names the other pages holding the text given as near, and reads a near of many quote marks at once', async () => {
    const listed = (await tool(session, ToolNames.listStores)).structuredContent as {
      stores: Array<{ store_id: string; store_name: string }>;
    };
    const handbookId = listed.stores.find((s) => s.store_name === 'handbook')!.store_id;
    const footer = 'Company confidential: do not forward.';
    const filler = (n: number) => Array.from({ length: 300 }, (_, i) => `Paragraph ${n}.${i} of the policy text.`).join('\n');
    const repeated = `We keep them for often years.\n${[1, 2, 3].map((n) => `${filler(n)}\n${footer}`).join('\n')}\nWe keep them for ten years.`;
    const quotes = `Intro line.\n\n${'> '.repeat(3_000)}\n\nThe end of the quotes.`;
    const repeatedId = (await backend.ingest(handbookId, 'repeated-footer.md', repeated)).json.id;
    const quotesId = (await backend.ingest(handbookId, 'quotes.md', quotes)).json.id;

    const read = await tool(session, ToolNames.readFile, { store: handbookId, file_id: repeatedId, near: footer });
    const page = read.structuredContent as { page: number; pages: number; text: string };
    assert.ok(page.pages >= 3, `pages: ${page.pages}`);
    assert.ok(page.text.includes(footer));
    assert.match(textOf(read), /\(the first page holding the text given as near; it is also on pages? \d/);
    // Whole words first: "ten years" on the last page, not inside "often years" on the first.
    const tenYears = await tool(session, ToolNames.readFile, { store: handbookId, file_id: repeatedId, near: 'ten years.' });
    const last = tenYears.structuredContent as { page: number; pages: number; text: string };
    assert.equal(last.page, last.pages);
    assert.ok(last.text.includes('We keep them for ten years.'));

    const hostile = await tool(session, ToolNames.readFile, { store: handbookId, file_id: quotesId, near: `${'> '.repeat(40)}y` });
    assert.ok(!hostile.isError, textOf(hostile));
    assert.match(textOf(hostile), /the text given as near is not in the file: this is page 1/);
  });

  it('says a one-page file has "1 page" when asked for the second', async () => {
    const past = await tool(session, ToolNames.readFile, { store: 'design-docs', file_id: fileId, page: 2 });
    assert.equal(past.isError, true);
    assert.match(textOf(past), /Page 2 is past the end: the file has 1 page of 10,000 characters\./);
  });

  it('reports a file that is not in the store as a tool error', async () => {
    const result = await tool(session, ToolNames.readFile, { store: 'handbook', file_id: fileId });
    assert.equal(result.isError, true);
    assert.ok(textOf(result).length > 10, textOf(result));
  });

  it('offers the tools that change stores only when changes are allowed', async () => {
    const allowed = await connect({ ...remoteEnv(), [McpEnv.allowChanges]: '1' });
    try {
      const names = (await allowed.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes(ToolNames.attachFile) && names.includes(ToolNames.setFileMetadata), names.join(', '));
      const handbook = (await backend.docs('GET', '/v1/vector_stores')).json.data.find((s: { name: string }) => s.name === 'handbook').id;
      const attached = await tool(allowed, ToolNames.attachFile, { store: 'handbook', file_id: fileId });
      assert.ok(!attached.isError, textOf(attached));
      assert.equal((await backend.docs('GET', `/v1/vector_stores/${handbook}/files/${fileId}`)).status, 200);
      const tooLong = await tool(allowed, ToolNames.setFileMetadata, {
        store: 'handbook',
        file_id: fileId,
        metadata: { owner: 'x'.repeat(513) },
      });
      assert.equal(tooLong.isError, true);
      assert.match(textOf(tooLong), /512/);
    } finally {
      await allowed.close();
    }
  });

  it('says the token was rejected, with what to do, and never repeats it', async () => {
    const wrong = 'wrong-token-5c1d9e';
    const s = await connect({ [McpEnv.documentsUrl]: backend.url, [McpEnv.documentsToken]: wrong });
    try {
      const result = await tool(s, ToolNames.listStores);
      assert.equal(result.isError, true);
      assert.match(textOf(result), /token/i);
      assert.match(textOf(result), /DocChat: Set Documents Token/);
      assert.match(textOf(result), new RegExp(McpEnv.documentsToken));
      assert.ok(!JSON.stringify(result).includes(wrong) && !s.stderr().includes(wrong), 'the wrong token is not echoed');
    } finally {
      await s.close();
    }
  });

  it('never writes a password given in the documents URL to its log', async () => {
    const withCredentials = backend.url.replace('//', '//someone:url-secret-8e41@');
    const s = await connect({ [McpEnv.documentsUrl]: withCredentials, [McpEnv.documentsToken]: TOKEN });
    try {
      await tool(s, ToolNames.listStores);
      assert.match(s.stderr(), /ready \(documents service at http:\/\/\*\*\*@127\.0\.0\.1/);
      assert.ok(!s.stderr().includes('url-secret-8e41'), 'the password in the URL is not logged');
    } finally {
      await s.close();
    }
  });

  it('says the documents service is unreachable when it is down', async () => {
    const down = await startTestBackend();
    const url = down.url;
    await down.close();
    const s = await connect({ [McpEnv.documentsUrl]: url, [McpEnv.documentsToken]: TOKEN });
    try {
      const result = await tool(s, ToolNames.listStores);
      assert.equal(result.isError, true);
      assert.match(textOf(result), /connect|reach|refused/i);
    } finally {
      await s.close();
    }
  });

  it('says when to try again when the per-minute limit would keep a call waiting too long', async () => {
    const limited = await startTestBackend({ rateLimits: { search: 1 } });
    const id = await limited.createStore('limited');
    const s = await connect({ [McpEnv.documentsUrl]: limited.url, [McpEnv.documentsToken]: TOKEN, [McpEnv.maxWaitMs]: '2000' });
    try {
      const first = await tool(s, ToolNames.search, { store: id, query: 'first' });
      assert.ok(!first.isError, textOf(first));
      const second = await tool(s, ToolNames.search, { store: id, query: 'second' });
      assert.equal(second.isError, true);
      assert.match(textOf(second), /Too many requests to the documents service\. Try again in \d+ s\./);
    } finally {
      await s.close();
      await limited.close();
    }
  });

  it('never puts the token in a result or its log', () => {
    assert.ok(outputs.length > 10);
    const everything = [...outputs, session.stderr()].join('\n');
    assert.ok(!everything.includes(TOKEN), 'the token appears in the output');
  });
});

describe('MCP server: configuration and Local mode', function () {
  this.timeout(180_000);

  it('exits with a sentence naming the variables when none is set', async () => {
    const { spawnSync } = await import('node:child_process');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DOCCHAT_')));
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', SERVER_SOURCE], { cwd: ROOT, env, input: '', encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, new RegExp(`${McpEnv.documentsUrl}.*${McpEnv.documentsToken}.*${McpEnv.storageDir}`));
  });

  it('starts the local backend through the discovery file when none runs, and finds it', async () => {
    const storageDir = await mkdtemp(path.join(os.tmpdir(), 'docchat-mcp-storage-'));
    const s = await connect({ [McpEnv.storageDir]: storageDir });
    let pid: number | undefined;
    try {
      const result = await call(s, ToolNames.listStores);
      assert.ok(!result.isError, textOf(result));
      const info = await readDiscovery(path.join(storageDir, 'backend.json'));
      assert.ok(info, 'the backend wrote its discovery file');
      pid = info.pid;
      assert.ok(
        !s.stderr().includes(info.token) && !JSON.stringify(result).includes(info.token),
        'the local token stays in the discovery file',
      );
      // A second server joins the same backend instead of starting another.
      const second = await connect({ [McpEnv.storageDir]: storageDir });
      try {
        assert.ok(!(await call(second, ToolNames.listStores)).isError);
        assert.equal((await readDiscovery(path.join(storageDir, 'backend.json')))?.pid, pid);
      } finally {
        await second.close();
      }
      assert.ok(existsSync(path.join(storageDir, 'backend.log')));
      assert.ok(!(await readFile(path.join(storageDir, 'backend.log'), 'utf8')).includes(info.token));
    } finally {
      await s.close();
      if (pid) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      await rm(storageDir, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
