/**
 * The MCP server's tools in process (the SDK's client and server over its in-memory transport, a
 * documents client that records what it is asked): each argument check refuses bad input before
 * any request, with an error that names the limit, input at the limits reaches the service as
 * given, and the tools that change a store exist only when changes are allowed. The same server
 * over stdio against the embedded backend is in mcpServer.test.ts.
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DocumentsClient } from '../../../src/api/documents/client';
import { createDocChatMcpServer } from '../../../src/mcp/server';
import { BoundedWaits } from '../../../src/mcp/toolCalls';
import { ToolNames } from '../../../src/mcp/tools';

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

describe('MCP tools in process: argument checks and the change gate', function () {
  this.timeout(60_000);
  const fileId = 'file-1';
  /** What the documents client was asked: the method and its arguments. */
  const asked: [string, ...unknown[]][] = [];
  const documents = {
    listVectorStores: async () => {
      asked.push(['listVectorStores']);
      return { data: [{ id: 'vs_1', name: 'handbook', created_at: 1 }], hasMore: false };
    },
    search: async (storeId: string, body: unknown) => {
      asked.push(['search', storeId, body]);
      return { data: [{ file_id: fileId, filename: 'leave.md', content: 'Everyone gets thirty days of leave a year.', score: 0.9 }] };
    },
    retrieveVectorStoreFile: async (storeId: string, id: string) => ({
      id,
      vector_store_id: storeId,
      created_at: 1,
      status: 'completed',
      last_error: null,
      metadata: {},
    }),
    retrieveVectorStoreFileContent: async (storeId: string, id: string) => {
      asked.push(['retrieveVectorStoreFileContent', storeId, id]);
      return '# Leave\n\nEveryone gets thirty days of leave a year.';
    },
    retrieveFile: async (id: string) => ({ id, filename: 'leave.md' }),
  } as unknown as DocumentsClient;
  /** Tool calls that reached the documents client. */
  let reached = 0;

  async function connect(allowChanges: boolean) {
    const server = createDocChatMcpServer({
      version: '0.0.0-test',
      documents: async () => {
        reached++;
        return documents;
      },
      waits: new BoundedWaits(5_000),
      allowChanges,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'docchat-test', version: '1.0.0' });
    await client.connect(clientSide);
    return {
      client,
      call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  it('offers only the read-only tools unless changes are allowed, and refuses a change tool by name', async () => {
    const s = await connect(false);
    try {
      const names = (await s.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, [ToolNames.listFiles, ToolNames.listStores, ToolNames.readFile, ToolNames.search].sort());
      for (const tool of [ToolNames.attachFile, ToolNames.setFileMetadata]) {
        const result = await s.call(tool, { store: 'handbook', file_id: fileId, metadata: {} }).catch((e: Error) => e);
        assert.ok(result instanceof Error ? /not found|unknown/i.test(result.message) : result.isError === true, `${tool} refused`);
      }
    } finally {
      await s.close();
    }
    const allowed = await connect(true);
    try {
      const names = (await allowed.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes(ToolNames.attachFile) && names.includes(ToolNames.setFileMetadata), names.join(', '));
      const annotations = Object.fromEntries((await allowed.client.listTools()).tools.map((t) => [t.name, t.annotations]));
      assert.equal(annotations[ToolNames.attachFile]?.readOnlyHint, false);
      assert.equal(annotations[ToolNames.setFileMetadata]?.destructiveHint, true);
      assert.equal(annotations[ToolNames.search]?.readOnlyHint, true);
    } finally {
      await allowed.close();
    }
  });

  it('describes each argument for the model, and says which store a result comes from', async () => {
    const s = await connect(false);
    try {
      const tools = Object.fromEntries((await s.client.listTools()).tools.map((t) => [t.name, t]));
      const props = (name: string) => tools[name]!.inputSchema.properties as Record<string, { description?: string }>;
      assert.match(props(ToolNames.search).store!.description!, /docchat_list_stores/);
      assert.match(props(ToolNames.readFile).file_id!.description!, /docchat_list_files/);
      for (const name of [ToolNames.listFiles, ToolNames.search, ToolNames.readFile]) {
        const output = tools[name]!.outputSchema?.properties as Record<string, unknown>;
        assert.ok(output.store_id && output.store_name, `${name} names its store`);
      }
    } finally {
      await s.close();
    }
  });

  const refused: [string, string, Record<string, unknown>, RegExp][] = [
    ['an empty store', ToolNames.search, { store: '  ', query: 'leave' }, /store must not be empty/],
    ['a store name of 201 characters', ToolNames.search, { store: 'x'.repeat(201), query: 'leave' }, /at most 200 characters/],
    ['an empty query', ToolNames.search, { store: 'handbook', query: ' \n ' }, /query must not be empty/],
    ['a query of 10,001 characters', ToolNames.search, { store: 'handbook', query: 'q'.repeat(10_001) }, /at most 10,000 characters/],
    ['max_results 0', ToolNames.search, { store: 'handbook', query: 'leave', max_results: 0 }, /max_results must be from 1 to 50/],
    ['max_results 51', ToolNames.search, { store: 'handbook', query: 'leave', max_results: 51 }, /max_results must be from 1 to 50/],
    ['max_results 2.5', ToolNames.search, { store: 'handbook', query: 'leave', max_results: 2.5 }, /whole number from 1 to 50/],
    [
      '101 file ids',
      ToolNames.search,
      { store: 'handbook', query: 'leave', file_ids: Array.from({ length: 101 }, (_, i) => `f${i}`) },
      /at most 100 files/,
    ],
    ['an empty file id', ToolNames.search, { store: 'handbook', query: 'leave', file_ids: [''] }, /file id must not be empty/],
    ['a file id of 201 characters', ToolNames.readFile, { store: 'handbook', file_id: 'f'.repeat(201) }, /file id must be at most 200/],
    ['page 0', ToolNames.readFile, { store: 'handbook', file_id: 'file-1', page: 0 }, /page must be 1 or more/],
    ['page 1.5', ToolNames.readFile, { store: 'handbook', file_id: 'file-1', page: 1.5 }, /page must be a whole number/],
    ['a store of the wrong type', ToolNames.listFiles, { store: 42 }, /store|string/i],
  ];
  for (const [what, tool, args, message] of refused) {
    it(`refuses ${what} before asking the documents service`, async () => {
      const s = await connect(false);
      try {
        reached = 0;
        const result = await s.call(tool, args);
        assert.equal(result.isError, true, textOf(result));
        assert.match(textOf(result), message);
        assert.equal(reached, 0, 'the documents client was not used');
      } finally {
        await s.close();
      }
    });
  }

  it('accepts the limits themselves, and asks the service exactly that', async () => {
    const s = await connect(false);
    try {
      const ids = Array.from({ length: 100 }, (_, i) => `f${i}`);
      for (const args of [
        { store: 'handbook', query: 'leave', max_results: 1 },
        { store: ' handbook ', query: ' leave ', max_results: 50 },
        { store: 'vs_1', query: 'q'.repeat(10_000) },
        { store: 'handbook', query: 'leave', file_ids: ids },
      ]) {
        const result = await s.call(ToolNames.search, args);
        assert.ok(!result.isError, `${JSON.stringify(args).slice(0, 80)}: ${textOf(result)}`);
      }
      assert.deepEqual(
        asked.filter(([method]) => method === 'search'),
        [
          ['search', 'vs_1', { query: 'leave', max_num_results: 1 }],
          ['search', 'vs_1', { query: 'leave', max_num_results: 50 }],
          ['search', 'vs_1', { query: 'q'.repeat(10_000), max_num_results: 10 }],
          ['search', 'vs_1', { query: 'leave', max_num_results: 10, file_ids: ids }],
        ],
      );
      for (const page of [undefined, 1]) {
        const read = await s.call(ToolNames.readFile, { store: 'handbook', file_id: ` ${fileId} `, ...(page ? { page } : {}) });
        assert.ok(!read.isError, textOf(read));
        assert.match(textOf(read), /thirty days of leave/);
      }
      assert.deepEqual(asked.at(-1), ['retrieveVectorStoreFileContent', 'vs_1', fileId]);
    } finally {
      await s.close();
    }
  });
});
