import * as vscode from 'vscode';
import { Commands, EXTENSION_ID, SecretKeys, SETTINGS_SECTION, Settings, type SecretKey } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';

interface SecretPrompt {
  key: SecretKey;
  title: string;
  prompt: string;
  placeholder: string;
}

const DOCUMENTS_TOKEN: SecretPrompt = {
  key: SecretKeys.documentsToken,
  title: vscode.l10n.t('DocChat: Set Documents Token'),
  prompt: vscode.l10n.t("The bearer token for the documents service. It is kept in VS Code's secret storage only."),
  placeholder: vscode.l10n.t('Paste the access token'),
};

const GATEWAY_KEY: SecretPrompt = {
  key: SecretKeys.gatewayApiKey,
  title: vscode.l10n.t('DocChat: Set Gateway API Key'),
  prompt: vscode.l10n.t("The API key for the language-model gateway. It is kept in VS Code's secret storage only."),
  placeholder: vscode.l10n.t('Paste the API key'),
};

/** Validation for a pasted credential (never echoes the value). */
export function validateCredential(value: string): string | undefined {
  if (!value.trim()) {
    return vscode.l10n.t('Enter a value, or press Escape to cancel.');
  }
  if (/\s/.test(value.trim())) {
    return 'A token has no spaces or line breaks; check what was pasted.';
  }
  return undefined;
}

async function promptSecret(services: Services, p: SecretPrompt): Promise<boolean> {
  const value = await vscode.window.showInputBox({
    title: p.title,
    prompt: p.prompt,
    placeHolder: p.placeholder,
    password: true,
    ignoreFocusOut: true,
    validateInput: validateCredential,
  });
  if (value === undefined) {
    return false;
  }
  await services.secrets.set(p.key, value.trim());
  services.log.info(`${p.key} updated`);
  return true;
}

/**
 * Opens the Settings editor at a DocChat setting (relative key), or at all of them, on the tab where
 * it lives. The URL and network settings are machine-scoped: in a remote window (code-server, SSH,
 * WSL, dev containers) they are settings of the remote machine, which the User tab does not list.
 */
export function openSettings(setting?: string): Thenable<unknown> {
  const query = setting ? `${SETTINGS_SECTION}.${setting}` : `@ext:${EXTENSION_ID}`;
  return vscode.env.remoteName
    ? vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query })
    : vscode.commands.executeCommand('workbench.action.openSettings', query);
}

export function register(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.openSettings,
      vscode.l10n.t('DocChat: could not open the settings.'),
      (setting?: unknown) => openSettings(typeof setting === 'string' ? setting : undefined),
      { retry: false, waitForConnection: false },
    ),
    registerCommand(services.errors, Commands.setDocumentsToken, vscode.l10n.t('DocChat: could not set the documents token.'), async () => {
      if (await promptSecret(services, DOCUMENTS_TOKEN)) {
        if (services.connection.state.kind === 'local' || !services.config.current.documentsUrl) {
          const choice = await vscode.window.showInformationMessage(
            vscode.l10n.t(
              'DocChat saved the token. It is used once "DocChat › Documents: Url" points to your documents service; Local mode needs no token.',
            ),
            vscode.l10n.t('Open Settings'),
          );
          if (choice) {
            await openSettings(Settings.documentsUrl);
          }
        }
      }
    }),
    registerCommand(services.errors, Commands.setGatewayApiKey, vscode.l10n.t('DocChat: could not set the gateway API key.'), () =>
      promptSecret(services, GATEWAY_KEY),
    ),
    registerCommand(services.errors, Commands.signOut, vscode.l10n.t('DocChat: could not sign out.'), async () => {
      await services.secrets.delete(SecretKeys.documentsToken);
      await services.secrets.delete(SecretKeys.gatewayApiKey);
      services.log.info('Signed out: documents token and gateway API key removed');
      const local = services.connection.state.kind === 'local';
      void vscode.window.showInformationMessage(
        local ? vscode.l10n.t('DocChat: tokens removed. Local mode keeps working without a token.') : vscode.l10n.t('DocChat: signed out.'),
      );
    }),
  );
}
