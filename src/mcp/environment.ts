/**
 * How DocChat's MCP server is configured: environment variables only, so a token never appears
 * on a command line (where `ps` shows it) or in an agent's configuration file. VS Code's MCP
 * definition provider sets them when VS Code starts the server; docs/user-guide.md names them for other
 * hosts. No `vscode` import.
 */
import path from 'node:path';

export const McpEnv = {
  /** Remote mode: the documents service's URL (without `/v1`). */
  documentsUrl: 'DOCCHAT_DOCUMENTS_URL',
  /** Remote mode: the bearer token of the documents service. */
  documentsToken: 'DOCCHAT_DOCUMENTS_TOKEN',
  /**
   * Local mode: the folder holding the local backend's discovery file (`backend.json`), the
   * profile's global storage folder of the extension. The server joins the backend named there,
   * or starts it.
   */
  storageDir: 'DOCCHAT_STORAGE_DIR',
  /** `1` lets agents attach files and change metadata (the `docchat.mcp.allowChanges` setting). */
  allowChanges: 'DOCCHAT_MCP_ALLOW_CHANGES',
  /** Wire name of the search's file restriction (the `docchat.api.fileIdsField` setting). */
  fileIdsField: 'DOCCHAT_FILE_IDS_FIELD',
  /** The translated strings (`l10n/bundle.l10n.<lang>.json`) of VS Code's display language. */
  l10nBundle: 'DOCCHAT_L10N_BUNDLE',
  /** Longest a tool call waits for DocChat's per-minute limits before saying when to try again (ms). */
  maxWaitMs: 'DOCCHAT_MCP_MAX_WAIT_MS',
} as const;

/** The name VS Code and the other hosts show for the server. */
export const MCP_SERVER_NAME = 'docchat';

/** A tool call waits at most this long for a per-minute limit by default. */
export const DEFAULT_MAX_WAIT_MS = 15_000;

export type McpTarget =
  { readonly kind: 'remote'; readonly url: string; readonly token: string } | { readonly kind: 'local'; readonly storageDir: string };

export interface McpServerConfig {
  readonly target: McpTarget;
  readonly allowChanges: boolean;
  readonly fileIdsField?: string;
  readonly l10nBundle?: string;
  readonly maxWaitMs: number;
}

/** Reads the configuration; a sentence naming the variable to set when something is missing. */
export function readMcpConfig(env: Readonly<Record<string, string | undefined>>): McpServerConfig | string {
  const url = env[McpEnv.documentsUrl]?.trim();
  const token = env[McpEnv.documentsToken]?.trim();
  const storageDir = env[McpEnv.storageDir]?.trim();
  let target: McpTarget;
  if (url) {
    if (!token) {
      return `${McpEnv.documentsUrl} is set but ${McpEnv.documentsToken} is not: set the documents service's token in the environment of the MCP server.`;
    }
    target = { kind: 'remote', url, token };
  } else if (storageDir) {
    if (!path.isAbsolute(storageDir)) {
      return `${McpEnv.storageDir} must be an absolute folder (the DocChat extension's global storage folder); it is "${storageDir}".`;
    }
    target = { kind: 'local', storageDir };
  } else {
    return `Set ${McpEnv.documentsUrl} and ${McpEnv.documentsToken} (Remote mode) or ${McpEnv.storageDir} (Local mode) in the environment of the MCP server. The command "DocChat: Copy MCP Server Configuration…" in VS Code writes the configuration for you.`;
  }
  const maxWait = Number(env[McpEnv.maxWaitMs]);
  return {
    target,
    allowChanges: env[McpEnv.allowChanges] === '1' || env[McpEnv.allowChanges]?.toLowerCase() === 'true',
    fileIdsField: env[McpEnv.fileIdsField]?.trim() || undefined,
    l10nBundle: env[McpEnv.l10nBundle]?.trim() || undefined,
    maxWaitMs: Number.isFinite(maxWait) && maxWait >= 0 && env[McpEnv.maxWaitMs]?.trim() ? maxWait : DEFAULT_MAX_WAIT_MS,
  };
}
