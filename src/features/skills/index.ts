import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { chooseEmbeddingModel } from '../tools/embeddingModels';
import { findPeopleBySkill } from './peoplePicker';

/** Gateway pickers: Find People by Skill, and Choose Embedding Model (which writes the setting). */
export function register(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.findPeopleBySkill, async (query?: unknown) => {
      try {
        await findPeopleBySkill(services, typeof query === 'string' ? query : '');
      } catch (error) {
        services.errors.report(error, 'search people by skill', { service: 'gateway' });
      }
    }),
    vscode.commands.registerCommand(Commands.chooseEmbeddingModel, async () => {
      try {
        await chooseEmbeddingModel(services);
      } catch (error) {
        services.errors.report(error, 'list the embedding models', { service: 'gateway' });
      }
    }),
  );
}
