/**
 * The configuration another agent host needs to run DocChat's MCP server: the installed
 * extension's `dist/mcp-server.js` run by the user's `node`, and the environment variable
 * *names* it reads. A token is never written here: Remote mode refers to the variable the user
 * sets in the host's environment (or, in VS Code's `mcp.json`, to an input VS Code keeps in its
 * secret storage). No `vscode` import.
 */
import { MCP_SERVER_NAME, McpEnv } from './environment';

export const AgentHosts = ['claudeCode', 'cursor', 'copilotCli', 'vscode'] as const;
export type AgentHost = (typeof AgentHosts)[number];

export interface HostConfigInput {
  /** Absolute path of the installed extension's `dist/mcp-server.js`. */
  serverScript: string;
  mode: { kind: 'remote'; documentsUrl: string } | { kind: 'local'; storageDir: string };
  allowChanges: boolean;
  /** The search's file-restriction field when it is not the default. */
  fileIdsField?: string;
}

/** Where each host reads the JSON from (shown with the command's result and in docs/user-guide.md). */
export const HOST_CONFIG_FILES: Record<AgentHost, string> = {
  claudeCode: '.mcp.json',
  cursor: '~/.cursor/mcp.json',
  copilotCli: '~/.copilot/mcp-config.json',
  vscode: '.vscode/mcp.json',
};

const TOKEN_INPUT = 'docchat-documents-token';

/** How a host's `env` block refers to a variable of the environment the host itself runs in. */
function environmentReference(host: AgentHost, name: string): string {
  switch (host) {
    case 'cursor':
      return `\${env:${name}}`;
    case 'vscode':
      return `\${input:${TOKEN_INPUT}}`;
    default:
      return `\${${name}}`;
  }
}

export function hostConfiguration(host: AgentHost, input: HostConfigInput): Record<string, unknown> {
  const env: Record<string, string> = {};
  if (input.mode.kind === 'remote') {
    env[McpEnv.documentsUrl] = input.mode.documentsUrl;
    env[McpEnv.documentsToken] = environmentReference(host, McpEnv.documentsToken);
  } else {
    env[McpEnv.storageDir] = input.mode.storageDir;
  }
  if (input.allowChanges) env[McpEnv.allowChanges] = '1';
  if (input.fileIdsField) env[McpEnv.fileIdsField] = input.fileIdsField;
  const server = { command: 'node', args: [input.serverScript], env };
  switch (host) {
    case 'claudeCode':
    case 'cursor':
      return { mcpServers: { [MCP_SERVER_NAME]: { type: 'stdio', ...server } } };
    case 'copilotCli':
      return { mcpServers: { [MCP_SERVER_NAME]: { type: 'local', ...server, tools: ['*'] } } };
    case 'vscode': {
      const inputs =
        input.mode.kind === 'remote'
          ? [{ type: 'promptString', id: TOKEN_INPUT, description: 'DocChat documents service token', password: true }]
          : [];
      return { ...(inputs.length ? { inputs } : {}), servers: { [MCP_SERVER_NAME]: { type: 'stdio', ...server } } };
    }
  }
}
