/**
 * MCP server: a search through DocChat's MCP server (SDK client → stdio → dist/mcp-server.js →
 * the documents service) against the same search with DocumentsClient directly, interleaved in one
 * run against one embedded backend; and the first search of a fresh server process (cold: spawn,
 * handshake, first call).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DocumentsClient } from '../../src/api/documents/client';
import { startBackend } from '../../src/backend';
import { McpEnv } from '../../src/mcp/environment';
import { main, progress, type BenchResult } from './lib/report';
import { ms, nowMs, ratio, summarize } from './lib/stats';

const TOKEN = 'bench-mcp-token';
/** Fits the documents service's 30 searches a minute (both clients keep DocChat's own limits). */
const PAIRS = 14;
const COLD_RUNS = 5;
const QUERIES = ['rollback the release', 'cache entries per shard', 'on-call rotation', 'design review checklist'];
const SERVER = path.resolve(__dirname, '../../dist/mcp-server.js');

async function connect(url: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { PATH: process.env.PATH ?? '', [McpEnv.documentsUrl]: url, [McpEnv.documentsToken]: TOKEN },
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

main(async (): Promise<BenchResult> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'docchat-bench-mcp-'));
  const backend = await startBackend({ dataDir, token: TOKEN, apiKey: TOKEN, rateLimits: false });
  try {
    const setup = new DocumentsClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false });
    const store = await setup.createVectorStore({ name: 'bench' });
    progress('ingesting 60 documents');
    for (let i = 0; i < 60; i++) {
      const text = `# Document ${i}\n\n${QUERIES.map((q, j) => `Section ${j}: how to ${q} in team ${i}, step ${i * j}.`).join('\n\n')}`;
      const file = await setup.uploadFile({ filename: `doc-${i}.md`, data: new TextEncoder().encode(text) });
      await setup.attachFile(store.id, { file_id: file.id });
      await setup.waitUntilProcessed(store.id, file.id, { initialDelayMs: 20 });
    }
    await setup.close();

    progress(`interleaving ${PAIRS} MCP and direct searches`);
    const direct = new DocumentsClient({ baseUrl: backend.url, token: TOKEN });
    const mcp = await connect(backend.url);
    // Warm both (file names cached by the server, connections open) before measuring.
    await direct.search(store.id, { query: 'warm up', max_num_results: 10 });
    await mcp.callTool({ name: 'docchat_search', arguments: { store: store.id, query: 'warm up', max_results: 10 } });
    const mcpMs: number[] = [];
    const directMs: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const query = QUERIES[i % QUERIES.length]!;
      const order = i % 2 === 0 ? ['mcp', 'direct'] : ['direct', 'mcp'];
      for (const which of order) {
        const started = nowMs();
        if (which === 'mcp') {
          const result = await mcp.callTool({ name: 'docchat_search', arguments: { store: store.id, query, max_results: 10 } });
          if (result.isError) throw new Error(`MCP search failed: ${JSON.stringify(result.content)}`);
          mcpMs.push(nowMs() - started);
        } else {
          await direct.search(store.id, { query, max_num_results: 10 });
          directMs.push(nowMs() - started);
        }
      }
    }
    await mcp.close();
    await direct.close();

    progress(`${COLD_RUNS} cold starts`);
    const coldMs: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const started = nowMs();
      const client = await connect(backend.url);
      const result = await client.callTool({
        name: 'docchat_search',
        arguments: { store: 'bench', query: QUERIES[i % QUERIES.length], max_results: 10 },
      });
      coldMs.push(nowMs() - started);
      if (result.isError) throw new Error(`cold MCP search failed: ${JSON.stringify(result.content)}`);
      await client.close();
    }

    const m = summarize(mcpMs);
    const d = summarize(directMs);
    const c = summarize(coldMs);
    return {
      id: 'mcp',
      title: 'MCP server: search through the MCP server against DocumentsClient.search',
      goal: "An agent's search through DocChat's MCP server costs little more than DocChat's own search; a fresh server answers its first call quickly.",
      method: `${PAIRS} searches each way, interleaved (order alternating) against one embedded backend with 60 documents, after one warm-up each; MCP = SDK client → stdio → dist/mcp-server.js (store by id, file names resolved) → HTTP. Cold = spawn a new server, handshake, first search (store by name), ${COLD_RUNS} runs.`,
      tables: [
        {
          caption: 'Search latency (ms)',
          columns: ['path', 'median', 'min', 'max', 'n', 'vs direct (median)'],
          rows: [
            ['DocumentsClient.search (direct)', ms(d.median), ms(d.min), ms(d.max), d.n, '1.00×'],
            ['MCP docchat_search (warm)', ms(m.median), ms(m.min), ms(m.max), m.n, ratio(m.median, d.median)],
            ['MCP first call of a fresh server (cold)', ms(c.median), ms(c.min), ms(c.max), c.n, ratio(c.median, d.median)],
          ],
        },
      ],
      notes: [],
    };
  } finally {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
