import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { findPeopleBySkill } from './peoplePicker';
import { registerCommand } from '../../services/commands';

/** Find People by Skill: the gateway's skillshare directory in a quick pick. */
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
  );
}
