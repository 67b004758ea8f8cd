import * as vscode from 'vscode';
import { AgentHosts, type AgentHost, HOST_CONFIG_FILES, hostConfiguration } from '../../mcp/hostConfig';
import { McpEnv } from '../../mcp/environment';
import type { Services } from '../../services';
import { DEFAULTS } from '../../services/settingsModel';
import { mcpServerScript } from './mcpServer';

function hostLabel(host: AgentHost): string {
  switch (host) {
    case 'claudeCode':
      return vscode.l10n.t('Claude Code');
    case 'cursor':
      return vscode.l10n.t('Cursor');
    case 'copilotCli':
      return vscode.l10n.t('GitHub Copilot CLI');
    case 'vscode':
      return vscode.l10n.t("VS Code's mcp.json (another profile or machine)");
  }
}

/**
 * "DocChat: Copy MCP Server Configuration…": the JSON another agent host needs, for the host the
 * user picks. It names environment variables only; the token stays where the user keeps it.
 */
export async function copyMcpConfiguration(context: vscode.ExtensionContext, services: Services): Promise<void> {
  const picked = await vscode.window.showQuickPick(
    AgentHosts.map((host) => ({ label: hostLabel(host), description: HOST_CONFIG_FILES[host], host })),
    {
      title: vscode.l10n.t('DocChat: Copy MCP Server Configuration For…'),
      placeHolder: vscode.l10n.t('Choose the agent that runs the DocChat MCP server'),
    },
  );
  if (!picked) return;
  const settings = services.config.current;
  const remote = settings.documentsUrl !== '';
  const json = hostConfiguration(picked.host, {
    serverScript: mcpServerScript(context),
    mode: remote
      ? { kind: 'remote', documentsUrl: settings.documentsUrl }
      : { kind: 'local', storageDir: services.localBackend.storageDir },
    allowChanges: settings.mcpAllowChanges,
    fileIdsField: settings.fileIdsField !== DEFAULTS.fileIdsField ? settings.fileIdsField : undefined,
  });
  await vscode.env.clipboard.writeText(`${JSON.stringify(json, null, 2)}\n`);
  const where = HOST_CONFIG_FILES[picked.host];
  void vscode.window.showInformationMessage(
    remote
      ? picked.host === 'vscode'
        ? vscode.l10n.t(
            'The MCP server configuration is on the clipboard: paste it into {0}. VS Code asks for the documents token when it starts the server and keeps it in its secret storage.',
            where,
          )
        : vscode.l10n.t(
            'The MCP server configuration is on the clipboard: paste it into {0}, and set the environment variable {1} to your documents token where {2} runs. The token is not in the configuration.',
            where,
            McpEnv.documentsToken,
            picked.label,
          )
      : vscode.l10n.t(
          'The MCP server configuration is on the clipboard: paste it into {0}. In Local mode the server finds the local backend by itself (and starts it when none runs); it needs Node 20 or later on the PATH.',
          where,
        ),
  );
}
