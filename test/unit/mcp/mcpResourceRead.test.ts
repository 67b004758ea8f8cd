/**
 * Reading a file page by page through DocChat's MCP server (run from source on stdio, SDK client)
 * with a counting proxy in front of the embedded backend: the converted text is downloaded once
 * for all its pages, and a file past the size the server reads answers an error naming the limit.
 */
import * as assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { forward } from '../../support/servers/forward';
import { MAX_CONVERTED_TEXT_BYTES } from '../../../src/mcp/convertedText';
import { McpEnv } from '../../../src/mcp/environment';
import { RESOURCE_PAGE_CHARS } from '../../../src/mcp/resources';
import { ToolNames } from '../../../src/mcp/tools';
import { startTestBackend, TOKEN, type TestBackend } from '../backend/helpers';

const ROOT = path.resolve(__dirname, '../../..');
const SERVER_SOURCE = path.join(ROOT, 'src/mcp/main.ts');
/** Lines of the long file: about 2.8 pages of RESOURCE_PAGE_CHARS. */
const LINES = 4_400;

describe('MCP server: reading a file page by page', function () {
  this.timeout(120_000);
  let backend: TestBackend;
  let proxy: http.Server;
  let client: Client;
  let storeId: string;
  let longId: string;
  let hugeId: string;
  /** GET …/files/<id>/content requests that reached the proxy, by file id. */
  const downloads = new Map<string, number>();

  before(async () => {
    backend = await startTestBackend();
    storeId = await backend.createStore('manuals');
    const long = Array.from({ length: LINES }, (_, i) => `Line ${i} of the service manual.`).join('\n');
    assert.ok(long.length > 2 * RESOURCE_PAGE_CHARS && long.length < 3 * RESOURCE_PAGE_CHARS);
    longId = (await backend.ingest(storeId, 'service-manual.md', long)).json.id;
    hugeId = (await backend.ingest(storeId, 'archive.md', '# Archive\n\nStands in for a very large file.')).json.id;

    proxy = http.createServer((req, res) => {
      const content = /\/files\/([^/?]+)\/content(\?|$)/.exec(req.url ?? '');
      if (req.method === 'GET' && content) downloads.set(content[1]!, (downloads.get(content[1]!) ?? 0) + 1);
      if (content?.[1] === hugeId) {
        // A converted text past the limit: the server must stop reading rather than hold it.
        res.writeHead(200, { 'content-type': 'text/markdown', 'content-length': String(MAX_CONVERTED_TEXT_BYTES + 1) });
        res.write('x'.repeat(64 * 1024));
        return;
      }
      forward(req, res, backend.url);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));

    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('DOCCHAT_')),
    ) as Record<string, string>;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--require', 'tsx/cjs', SERVER_SOURCE],
      env: {
        ...inherited,
        [McpEnv.documentsUrl]: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        [McpEnv.documentsToken]: TOKEN,
      },
      cwd: ROOT,
      stderr: 'pipe',
    });
    client = new Client({ name: 'docchat-test', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
    await backend?.close();
  });

  it('downloads the converted text once for pages 1, 2 and 3 of a resource and the read tool', async () => {
    const texts: string[] = [];
    for (const page of [1, 2, 3]) {
      const result = await client.readResource({ uri: `docchat://stores/${storeId}/files/${longId}?page=${page}` });
      const content = result.contents[0] as { text: string; _meta?: Record<string, unknown> };
      assert.equal(content._meta?.['docchat/pages'], 3);
      texts.push(content.text.replace(/^\[[^\]]*\]\n\n/, ''));
    }
    assert.match(texts[0]!, /^Line 0 of the service manual\./);
    assert.match(texts[2]!, /Line 4399 of the service manual\.\n?$/);
    assert.equal(texts.join('').trimEnd(), Array.from({ length: LINES }, (_, i) => `Line ${i} of the service manual.`).join('\n'));
    // docchat_read_file's pages of the same file come from the same download.
    const tool = (await client.callTool({
      name: ToolNames.readFile,
      arguments: { store: storeId, file_id: longId, page: 7 },
    })) as CallToolResult;
    assert.ok(!tool.isError, JSON.stringify(tool));
    assert.equal(downloads.get(longId), 1, `downloads: ${JSON.stringify([...downloads])}`);
  });

  it('answers a file whose converted text is past the limit with an error naming it', async () => {
    await assert.rejects(
      client.readResource({ uri: `docchat://stores/${storeId}/files/${hugeId}` }),
      (error: { code?: number; message: string }) => {
        assert.equal(error.code, -32603);
        assert.match(error.message, /larger than 16 MiB, the most DocChat's MCP server reads of one file/);
        return true;
      },
    );
    const tool = (await client.callTool({ name: ToolNames.readFile, arguments: { store: storeId, file_id: hugeId } })) as CallToolResult;
    assert.equal(tool.isError, true);
    assert.match(JSON.stringify(tool.content), /larger than 16 MiB/);
  });
});
