import * as vscode from 'vscode';
import { agentPluginTemplate, type PluginHost, PluginHosts, writeAgentPlugin } from '../../mcp/agentPlugin';
import { AgentHosts, type AgentHost, HOST_CONFIG_FILES, type HostConfigInput, hostConfiguration } from '../../mcp/hostConfig';
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
  type Pick = vscode.QuickPickItem & ({ host: AgentHost; plugin?: undefined } | { plugin: PluginHost; host?: undefined });
  const items: Pick[] = [
    ...AgentHosts.map((host): Pick => ({ label: hostLabel(host), description: HOST_CONFIG_FILES[host], host })),
    { label: vscode.l10n.t('Agent plugins'), kind: vscode.QuickPickItemKind.Separator } as Pick,
    ...PluginHosts.map((plugin): Pick => ({
      label: vscode.l10n.t('{0} plugin', hostLabel(plugin)),
      description: vscode.l10n.t('the DocChat skill and MCP server, installed with one command'),
      plugin,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('DocChat: Copy MCP Server Configuration For…'),
    placeHolder: vscode.l10n.t('Choose the agent that runs the DocChat MCP server'),
  });
  if (!picked) return;
  const settings = services.config.current;
  const remote = settings.documentsUrl !== '';
  const input: HostConfigInput = {
    serverScript: mcpServerScript(context),
    mode: remote
      ? { kind: 'remote', documentsUrl: settings.documentsUrl }
      : { kind: 'local', storageDir: services.localBackend.storageDir },
    allowChanges: settings.mcpAllowChanges,
    fileIdsField: settings.fileIdsField !== DEFAULTS.fileIdsField ? settings.fileIdsField : undefined,
  };
  if (picked.plugin) {
    await offerAgentPlugin(context, picked.plugin, input);
    return;
  }
  const json = hostConfiguration(picked.host, input);
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

/**
 * Writes DocChat's agent plugin (the skill and the MCP server of the user's setup) into the
 * extension's storage and puts the commands that install it in the host on the clipboard.
 */
async function offerAgentPlugin(context: vscode.ExtensionContext, host: PluginHost, input: HostConfigInput): Promise<void> {
  const root = vscode.Uri.joinPath(context.globalStorageUri, 'agent-plugins').fsPath;
  const plugin = await writeAgentPlugin(agentPluginTemplate(context.extensionPath), root, host, input);
  await vscode.env.clipboard.writeText(`${plugin.installCommands.join('\n')}\n`);
  const token =
    input.mode.kind === 'remote'
      ? ` ${vscode.l10n.t('Set the environment variable {0} to your documents token where {1} runs.', McpEnv.documentsToken, hostLabel(host))}`
      : '';
  void vscode.window.showInformationMessage(
    host === 'claudeCode'
      ? vscode.l10n.t(
          'The DocChat plugin for Claude Code is in {0}. The commands that install it are on the clipboard: run them in Claude Code.',
          plugin.pluginDir,
        ) + token
      : vscode.l10n.t(
          'The DocChat plugin for GitHub Copilot CLI is in {0}. The command that installs it is on the clipboard: run it in a terminal.',
          plugin.pluginDir,
        ) + token,
  );
}
