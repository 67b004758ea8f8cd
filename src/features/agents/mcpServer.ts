import * as path from 'node:path';
import * as vscode from 'vscode';
import { SecretKeys } from '../../common/constants';
import { readDiscovery } from '../../common/discoveryFile';
import { Disposable } from '../../common/lifecycle';
import { MCP_SERVER_NAME, McpEnv } from '../../mcp/environment';
import type { Services } from '../../services';
import { DEFAULTS } from '../../services/settingsModel';

/** Must match `contributes.mcpServerDefinitionProviders[].id` in package.json. */
export const MCP_PROVIDER_ID = 'docchat.mcpServer';

/** The bundle agent hosts run: `dist/mcp-server.js` of this installed extension. */
export function mcpServerScript(context: vscode.ExtensionContext): string {
  return path.join(context.extensionPath, 'dist', 'mcp-server.js');
}

/** The settings the server reads, as environment variables (never a secret). */
export function mcpSettingsEnv(services: Services): Record<string, string> {
  const settings = services.config.current;
  const env: Record<string, string> = {};
  if (settings.mcpAllowChanges) env[McpEnv.allowChanges] = '1';
  if (settings.fileIdsField !== DEFAULTS.fileIdsField) env[McpEnv.fileIdsField] = settings.fileIdsField;
  return env;
}

/**
 * Offers DocChat's MCP server to VS Code's agents (Copilot's agent and the agent host) with no
 * configuration. The definition VS Code lists holds no credential; they are handed to the
 * server's process only when VS Code resolves the definition to start it: the token from
 * SecretStorage in Remote mode, the local backend's address and token from its discovery file in
 * Local mode. Nothing is written to `mcp.json`, the settings or any other file.
 */
/** Not "DocChat": that is the name of the group of the extension's own tool (#docchatSearch). */
export const MCP_SERVER_LABEL = 'DocChat Documents (MCP)';

export class DocChatMcpServerProvider extends Disposable implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeMcpServerDefinitions = this._onDidChange.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly services: Services,
  ) {
    super();
    // A new token, another mode or another setting: VS Code asks again, and restarts the server.
    this._register(services.connection.onDidChange(() => this._onDidChange.fire()));
    this._register(services.config.onDidChange(() => this._onDidChange.fire()));
  }

  provideMcpServerDefinitions(): vscode.McpStdioServerDefinition[] {
    const definition = new vscode.McpStdioServerDefinition(
      // VS Code names the tool group after the server's title ("DocChat Documents") and describes
      // it with this label; the #docchatSearch tool's group is the extension's, "DocChat".
      MCP_SERVER_LABEL,
      process.execPath,
      [mcpServerScript(this.context)],
      // VS Code's own executable runs the bundle as Node (the editor's Node, as VS Code's API suggests).
      { ELECTRON_RUN_AS_NODE: '1' },
      String(this.context.extension.packageJSON.version ?? '0.0.0'),
    );
    definition.cwd = vscode.Uri.file(this.context.extensionPath);
    return [definition];
  }

  async resolveMcpServerDefinition(server: vscode.McpStdioServerDefinition): Promise<vscode.McpStdioServerDefinition> {
    // VS Code may start the server on its own (1.104 does at startup, to learn its tools): that is
    // not a use of DocChat, so nothing is connected or started for it. In Local mode the server
    // joins (or starts) the local backend on its first tool call instead.
    // Once DocChat is used, the connection it is making (or has made) decides.
    const connection = this.services.connection;
    const credentials = connection.used
      ? await connection.use('the DocChat MCP server').then(() => this.credentials())
      : await this.credentialsBeforeUse();
    server.env = {
      ...server.env,
      ...credentials,
      ...mcpSettingsEnv(this.services),
      ...(vscode.l10n.uri ? { [McpEnv.l10nBundle]: vscode.l10n.uri.fsPath } : {}),
    };
    const mode = this.services.connection.used
      ? this.services.connection.state.kind
      : this.services.config.current.documentsUrl
        ? 'remote'
        : 'local';
    this.services.log.child('mcp').info(`Starting the ${MCP_SERVER_NAME} MCP server (${mode} mode)`);
    return server;
  }

  /** Credentials from the settings and SecretStorage alone: no connection, no backend, no request. */
  private async credentialsBeforeUse(): Promise<Record<string, string>> {
    const settings = this.services.config.current;
    if (!settings.documentsUrl) return { [McpEnv.storageDir]: this.services.localBackend.storageDir };
    const token = await this.services.secrets.get(SecretKeys.documentsToken);
    if (token) return { [McpEnv.documentsUrl]: settings.documentsUrl, [McpEnv.documentsToken]: token };
    throw new Error(
      vscode.l10n.t('DocChat has no documents token yet. Run "DocChat: Set Documents Token" and start the DocChat MCP server again.'),
    );
  }

  private async credentials(): Promise<Record<string, string>> {
    const state = this.services.connection.state;
    if (state.kind === 'local') {
      const info = await readDiscovery(this.services.localBackend.discoveryFile);
      if (!info) {
        throw new Error(vscode.l10n.t('DocChat\'s local backend is not running. Run "DocChat: Refresh Vector Stores" and try again.'));
      }
      return {
        [McpEnv.documentsUrl]: info.url,
        [McpEnv.documentsToken]: info.token,
        [McpEnv.storageDir]: this.services.localBackend.storageDir,
      };
    }
    if (state.kind === 'remote') {
      const token = await this.services.secrets.get(SecretKeys.documentsToken);
      if (token) return { [McpEnv.documentsUrl]: state.url, [McpEnv.documentsToken]: token };
    }
    if (state.kind === 'error') {
      throw new Error(vscode.l10n.t('DocChat could not connect: {0} Open the DocChat output for details.', state.message));
    }
    throw new Error(
      vscode.l10n.t('DocChat has no documents token yet. Run "DocChat: Set Documents Token" and start the DocChat MCP server again.'),
    );
  }
}
