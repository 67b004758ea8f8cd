import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { registerCommand } from '../../services/commands';
import { chooseEmbeddingModel } from './embeddingModels';
import { useLanguageModel } from './languageModel';

/**
 * The models DocChat uses: "Use a Language Model…" (Local mode forwards chat to a model server
 * found on this machine or at a URL) and "Choose Embedding Model" (the gateway's embedding models,
 * written to the setting).
 */
export function register(context: vscode.ExtensionContext, services: Services): void {
  const log = services.log.child('model-server');
  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.useLanguageModel,
      vscode.l10n.t('DocChat: could not use a language model.'),
      () => useLanguageModel(services, log),
      { retry: false },
    ),
    registerCommand(
      services.errors,
      Commands.chooseEmbeddingModel,
      vscode.l10n.t('DocChat: could not list the embedding models.'),
      () => chooseEmbeddingModel(services),
      { service: 'gateway' },
    ),
  );
}
