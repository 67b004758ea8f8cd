import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { chooseEmbeddingModel } from './embeddingModels';
import { findPeopleBySkill } from './peoplePicker';
import { registerCommand } from '../../services/commands';

/** Gateway pickers: Find People by Skill, and Choose Embedding Model (which writes the setting). */
export function register(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.findPeopleBySkill,
      vscode.l10n.t('DocChat: could not search people by skill.'),
      (query?: unknown) => findPeopleBySkill(services, typeof query === 'string' ? query : ''),
      {
        service: 'gateway',
      },
    ),
    registerCommand(
      services.errors,
      Commands.chooseEmbeddingModel,
      vscode.l10n.t('DocChat: could not list the embedding models.'),
      () => chooseEmbeddingModel(services),
      {
        service: 'gateway',
      },
    ),
  );
}
