import * as vscode from 'vscode';
import type { RemoveDeleted } from '../../services/config';
import { describePlan, type PlanCounts, type SyncPlan } from './planner';
import { planDetail, type LeftOut } from './syncMessages';

export interface RemovalQuestion {
  plan: SyncPlan;
  counts: PlanCounts;
  /** Files of the folder the sync leaves out, named in the plan. */
  leftOut?: LeftOut;
  /** The folder as the user knows it (`label(follow)`). */
  folder: string;
  store: string;
  setting: RemoveDeleted;
  /** The folder has no confirmed plan yet: show this one in a modal dialog first. */
  needsConfirm: boolean;
}

/**
 * The confirm step: whether the sync removes from the store the files deleted from the folder.
 * A folder without a confirmed plan shows the plan first (undefined: the user cancelled it);
 * with `docchat.sync.removeDeleted` set to "ask", deleted files are asked about.
 */
export async function chooseRemoval(q: RemovalQuestion): Promise<boolean | undefined> {
  if (q.needsConfirm) return confirmPlan(q);
  if (q.setting === 'ask' && q.plan.remove.length > 0) {
    const remove = vscode.l10n.t('Remove {0}', q.plan.remove.length);
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('{0} file(s) synced from {1} were deleted. Remove them from "{2}" too?', q.plan.remove.length, q.folder, q.store),
      remove,
      vscode.l10n.t('Keep Them'),
    );
    return answer === remove;
  }
  return q.setting === 'always';
}

async function confirmPlan(q: RemovalQuestion): Promise<boolean | undefined> {
  const sync = vscode.l10n.t('Sync');
  const syncRemove = vscode.l10n.t('Sync and Remove Deleted');
  const buttons = q.plan.remove.length && q.setting === 'ask' ? [syncRemove, sync] : [sync];
  const answer = await vscode.window.showInformationMessage(
    vscode.l10n.t('Sync {0} to "{1}": {2}.', q.folder, q.store, describePlan(q.counts)),
    { modal: true, detail: planDetail(q.plan, q.setting, q.leftOut) || vscode.l10n.t('Nothing to send.') },
    ...buttons,
  );
  if (!answer) return undefined;
  return answer === syncRemove || (q.setting === 'always' && answer === sync);
}
