import * as vscode from 'vscode';
import { Settings } from '../../common/constants';
import type { Services } from '../../services';

interface ModelPick extends vscode.QuickPickItem {
  id: string;
}

/**
 * The settings UI cannot offer a list that comes from the server, so this quick pick does: the
 * gateway's `GET /v1/embed/models`, the current choice marked, written to the user setting.
 */
export async function chooseEmbeddingModel(services: Services): Promise<string | undefined> {
  const gateway = services.connection.gateway;
  if (!gateway) {
    void vscode.window.showWarningMessage(vscode.l10n.t('DocChat: choosing an embedding model needs the language-model gateway.'));
    return undefined;
  }
  const current = services.config.current.embeddingModel;
  const models = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('DocChat: listing embedding models') },
    () => gateway.listEmbeddingModels(),
  );
  const items: ModelPick[] = [
    {
      id: '',
      label: vscode.l10n.t('Default'),
      description: current ? '' : vscode.l10n.t('current'),
      detail: vscode.l10n.t('Let the service choose (the local backend uses its built-in embedding).'),
    },
    ...models.map((m) => ({
      id: m.id,
      label: m.id,
      description: m.id === current ? vscode.l10n.t('current') : typeof m.owned_by === 'string' ? m.owned_by : '',
    })),
  ];
  if (current && !models.some((m) => m.id === current)) {
    items.push({ id: current, label: current, description: vscode.l10n.t('current — not offered by the gateway') });
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('DocChat: Choose Embedding Model'),
    placeHolder: vscode.l10n.t('Embedding model for hybrid search'),
  });
  if (!picked) {
    return undefined;
  }
  await services.config.update(Settings.embeddingModel, picked.id);
  return picked.id;
}
