import * as vscode from 'vscode';
import { StateKeys } from '../../common/constants';

/**
 * Asks how files are converted (the question of `docchat.attach.skipOcr` set to "Ask", for
 * attaching and for syncing a folder), offering the last answer first and remembering the new one.
 * Resolves to `true` to skip OCR and table recognition, `false` for full conversion, undefined
 * when the user dismissed the question. `forFolder`: the question of a sync, whose folder keeps the
 * answer, which the question says.
 */
export async function askConversion(state: vscode.Memento, forFolder = false): Promise<boolean | undefined> {
  const last = state.get<boolean>(StateKeys.lastSkipOcr) ?? false;
  const full = {
    label: vscode.l10n.t('Full conversion'),
    detail: vscode.l10n.t('OCR and table recognition: slower, more accurate'),
    skip: false,
  };
  const fast = {
    label: vscode.l10n.t('Fast conversion'),
    detail: vscode.l10n.t('Skip OCR and advanced table recognition: faster, less accurate'),
    skip: true,
  };
  const picked = await vscode.window.showQuickPick(last ? [fast, full] : [full, fast], {
    title: vscode.l10n.t('DocChat: how should the files be converted?'),
    placeHolder: forFolder
      ? vscode.l10n.t('Scanned pages and images need OCR. The folder keeps your answer for its later syncs and re-syncs on save')
      : vscode.l10n.t('Scanned pages and images need OCR'),
  });
  if (picked) {
    await state.update(StateKeys.lastSkipOcr, picked.skip);
  }
  return picked?.skip;
}
