/** Builds DocChat's MCP server (its tools over a documents client); the transport is the caller's. No `vscode` import. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { BoundedWaits } from './toolCalls';
import { registerTools, type ToolDeps } from './tools';
import { MCP_SERVER_NAME } from './environment';

export interface DocChatMcpServerOptions {
  version: string;
  documents: ToolDeps['documents'];
  waits: BoundedWaits;
  allowChanges: boolean;
}

export function createDocChatMcpServer(options: DocChatMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'DocChat', version: options.version },
    {
      instructions:
        "DocChat reaches the company's document stores. Call docchat_list_stores to find a store, docchat_search to find passages (cite their file names), and docchat_read_file to read a whole document.",
    },
  );
  registerTools(server, { documents: options.documents, waits: options.waits, allowChanges: options.allowChanges });
  return server;
}
