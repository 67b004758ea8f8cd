import * as vscode from 'vscode';
import { Commands, ContextKeys } from '../../common/constants';
import type { Logger } from '../../common/log';
import { completeWalkthroughStep } from '../walkthrough';
import type { FileRecord, Follow, FollowStore } from './follows';
import { describePlan, type PlanCounts } from './planner';
import { firstFailure } from './records';
import type { RunSummary } from './runner';
import { failureMessage, outcomeParts } from './syncMessages';

export interface FinishOptions {
  follows: FollowStore;
  follow: Follow;
  records: ReadonlyMap<string, FileRecord>;
  counts: PlanCounts;
  /** What the act step did; undefined when the plan had nothing to do. */
  summary: RunSummary | undefined;
  /** The user asked for this sync: tell the outcome even when nothing failed. */
  interactive: boolean;
  /** The folder as the user knows it (`label(follow)`). */
  folder: string;
  store: string;
  log: Logger;
  /** "Retry Failed" was chosen: sync the folder again, failed files included. */
  retryFailed(follow: Follow): void;
}

/** Saves the records and the follow's last sync, then tells the user how the sync went. */
export async function finish(o: FinishOptions): Promise<void> {
  const { follow, summary, folder, store } = o;
  await o.follows.saveRecords(follow);
  const saved = { ...follow, lastSyncAt: Date.now() };
  delete saved.lastError;
  await o.follows.save(saved);
  if (!summary) {
    if (o.interactive) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('DocChat: {0} is in sync with "{1}" ({2}).', folder, store, describePlan(o.counts)),
      );
    }
    return;
  }
  if (summary.uploaded > 0) completeWalkthroughStep(ContextKeys.fileAttached);
  const parts = outcomeParts(summary);
  o.log.info(`Synced ${folder} to ${store}: ${parts.join(', ')}; ${summary.failed.length} failed`);
  for (const failure of summary.failed) o.log.warn(`${failure.path}: ${failure.error}`);
  const failed = summary.failed.length + o.counts.failed;
  if (failed > 0) {
    const retry = vscode.l10n.t('Retry Failed');
    const output = vscode.l10n.t('Open Output');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('DocChat: {0}', failureMessage(failed, folder, store, firstFailure(summary.failed, o.records))),
      retry,
      output,
    );
    if (answer === retry) o.retryFailed(saved);
    else if (answer === output) void vscode.commands.executeCommand(Commands.showOutput);
  } else if (o.interactive) {
    void vscode.window.showInformationMessage(vscode.l10n.t('DocChat: synced {0} to "{1}": {2}.', folder, store, parts.join(', ')));
  }
}
