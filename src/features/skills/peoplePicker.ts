import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { personItem } from './skillItems';

/** Typing pauses this long before the directory is searched (one request per pause, not per key). */
const SEARCH_DELAY_MS = 300;

interface PersonPick extends vscode.QuickPickItem {
  link?: string;
  person?: string;
}

/**
 * A quick pick that searches the skillshare directory as the user types and opens the picked
 * person's skillshare page. Only http(s) links are opened.
 */
export async function findPeopleBySkill(services: Services, initialQuery = ''): Promise<void> {
  const gateway = services.connection.gateway;
  if (!gateway) {
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('DocChat: Find People by Skill needs the language-model gateway.'),
      vscode.l10n.t('Set Gateway API Key'),
    );
    if (choice) {
      await vscode.commands.executeCommand(Commands.setGatewayApiKey);
    }
    return;
  }
  const picker = vscode.window.createQuickPick<PersonPick>();
  picker.title = vscode.l10n.t('DocChat: Find People by Skill');
  picker.placeholder = vscode.l10n.t('Describe the skills you need, e.g. "Kubernetes incident response"');
  picker.matchOnDescription = true;
  picker.matchOnDetail = true;
  picker.value = initialQuery;
  let timer: NodeJS.Timeout | undefined;
  let current: AbortController | undefined;
  const log = services.log.child('skills');

  const search = (query: string) => {
    current?.abort();
    const text = query.trim();
    if (!text) {
      picker.items = [];
      picker.busy = false;
      return;
    }
    const abort = (current = new AbortController());
    picker.busy = true;
    gateway.skillshare(text, { signal: abort.signal }).then(
      (results) => {
        if (abort.signal.aborted) return;
        const items: PersonPick[] = results.map((r) => {
          const item = personItem(r);
          // The directory already ranked them for the query: never filter them out again.
          return {
            label: `$(person) ${item.label}`,
            description: item.description,
            detail: item.detail,
            link: item.link,
            person: item.label,
            alwaysShow: true,
          };
        });
        picker.items = items.length ? items : [{ label: vscode.l10n.t('No one matches “{0}”', text), alwaysShow: true }];
        picker.busy = false;
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        picker.busy = false;
        picker.hide();
        services.errors.report(error, vscode.l10n.t('DocChat: could not search people by skill.'), { service: 'gateway' });
      },
    );
  };

  const disposables = [
    picker.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => search(value), SEARCH_DELAY_MS);
    }),
  ];
  try {
    const picked = await new Promise<PersonPick | undefined>((resolve) => {
      disposables.push(picker.onDidAccept(() => resolve(picker.selectedItems[0])));
      disposables.push(picker.onDidHide(() => resolve(undefined)));
      picker.show();
      if (initialQuery) search(initialQuery);
    });
    if (!picked?.person) {
      return;
    }
    if (!picked.link) {
      log.warn(`No http(s) skillshare link for ${picked.person}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('DocChat: {0} has no web link in the skills directory.', picked.person));
      return;
    }
    log.info(`Opening ${picked.link}`);
    await vscode.env.openExternal(vscode.Uri.parse(picked.link, true));
  } finally {
    clearTimeout(timer);
    current?.abort();
    disposables.forEach((d) => d.dispose());
    picker.dispose();
  }
}
