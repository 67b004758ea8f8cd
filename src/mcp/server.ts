/**
 * Builds DocChat's MCP server (its tools and resources over a documents client); the transport is
 * the caller's. One builder serves both protocol generations: the 2025 revisions (an `initialize`
 * handshake) and 2026-07-28 (stateless requests, `server/discover`). No `vscode` import.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { DocumentsCatalog, STORE_LIST_TTL_MS } from './catalog';
import { MCP_SERVER_NAME } from './environment';
import { registerResources } from './resources';
import { BoundedWaits } from './toolCalls';
import { registerTools, type ToolDeps } from './tools';

export interface DocChatMcpServerOptions {
  version: string;
  documents: ToolDeps['documents'];
  waits: BoundedWaits;
  allowChanges: boolean;
  /** What the tools and resources keep between calls; shared by every server instance of one process. */
  catalog?: DocumentsCatalog;
}

/** The tools and the server's description change only when the server restarts (with other settings). */
const UNTIL_RESTART_MS = 60 * 60 * 1000;

export const SERVER_INSTRUCTIONS =
  "DocChat reaches the company's document stores. Call docchat_list_stores to find a store, docchat_search to find passages (cite their file names), and docchat_read_file with the arguments a passage gives to read its whole document before quoting it. Each store's files are also resources (docchat://stores/<store id>/files/<file id>).";

/** The server's name for people: what MCP clients, VS Code's tools picker among them, show. */
export const MCP_SERVER_TITLE = 'DocChat Documents';

export function createDocChatMcpServer(options: DocChatMcpServerOptions): McpServer {
  const catalog = options.catalog ?? new DocumentsCatalog();
  const server = new McpServer(
    // VS Code's tools picker names the server's tool group after its title (its description is the
    // server definition's label), and the #docchatSearch tool's group after the extension
    // ("DocChat"), which an extension cannot rename: the two groups read apart.
    { name: MCP_SERVER_NAME, title: MCP_SERVER_TITLE, version: options.version },
    {
      instructions: SERVER_INSTRUCTIONS,
      // Cache hints of the 2026-07-28 revision, as often as each list can change: the tools only
      // with a restart; the stores, their files and a file's text as often as the server itself
      // looks again. Private: a list is what this user's token may see.
      cacheHints: {
        'server/discover': { ttlMs: UNTIL_RESTART_MS, cacheScope: 'private' },
        'tools/list': { ttlMs: UNTIL_RESTART_MS, cacheScope: 'private' },
        'resources/templates/list': { ttlMs: STORE_LIST_TTL_MS, cacheScope: 'private' },
        'resources/list': { ttlMs: STORE_LIST_TTL_MS, cacheScope: 'private' },
        'resources/read': { ttlMs: STORE_LIST_TTL_MS, cacheScope: 'private' },
      },
    },
  );
  registerTools(server, { documents: options.documents, waits: options.waits, allowChanges: options.allowChanges, catalog });
  registerResources(server, { documents: options.documents, waits: options.waits, catalog });
  return server;
}
