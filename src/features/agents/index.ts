import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';
import { DocChatModelProvider, MODEL_VENDOR } from './chatModels';
import { copyMcpConfiguration } from './copyConfiguration';
import { DocChatMcpServerProvider, MCP_PROVIDER_ID } from './mcpServer';

/**
 * DocChat in every agent: its MCP server offered to VS Code's agents, the configuration for other
 * agent hosts, and the gateway's models in VS Code's model picker.
 */
export function register(context: vscode.ExtensionContext, services: Services): void {
  const provider = new DocChatMcpServerProvider(context, services);
  context.subscriptions.push(provider, vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider));
  const models = new DocChatModelProvider(services, context.globalState);
  context.subscriptions.push(models, vscode.lm.registerLanguageModelChatProvider(MODEL_VENDOR, models));
  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.copyMcpConfiguration,
      vscode.l10n.t('DocChat: could not copy the MCP server configuration.'),
      () => copyMcpConfiguration(context, services),
      { waitForConnection: false, retry: false },
    ),
  );
}
