import * as vscode from 'vscode';
import type { SyncJournal } from './journal';
import type { PlannedSync } from './planStep';
import { runSync, type FileOutcome, type RateWaits, type RunSummary, type SyncClient } from './runner';
import { progressMessage } from './syncMessages';

export interface ActOptions {
  client: SyncClient;
  storeId: string;
  /** Absolute path of the workspace folder the plan's paths are relative to. */
  root: string;
  journal: SyncJournal;
  planned: PlannedSync;
  removeDeleted: boolean;
  /** Skip OCR and table recognition when converting the uploads (the user's choice or the setting). */
  skipOcr: boolean;
  /** The service's per-minute limits, for the estimate; `false` when off (Local mode). */
  limits: Readonly<Record<string, number | undefined>> | false;
  /** The waits on the rate limit the clients report (the services' `RateLimitMonitor`). */
  rateWaits: RateWaits;
  /** The folder as the user knows it (`label(follow)`). */
  folder: string;
  /** The store's name (its id when it has none): the progress names it, a store just created too. */
  store: string;
  /** Aborted by the notification's Cancel, "Stop Following" or the extension's end. */
  abort: AbortController;
  onOutcome(outcome: FileOutcome): void;
  log(line: string): void;
}

/**
 * The act step: carries out the plan under the journal, with a cancellable progress notification.
 * The journal is started before the first request and finished once the run ended.
 */
export async function act(o: ActOptions): Promise<RunSummary> {
  await o.journal.start(o.storeId, Date.now());
  const summary = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('DocChat: syncing {0} to "{1}"', o.folder, o.store),
      cancellable: true,
    },
    (progress, token) => {
      token.onCancellationRequested(() => o.abort.abort());
      let reported = 0;
      return runSync(
        {
          client: o.client,
          storeId: o.storeId,
          root: o.root,
          journal: o.journal,
          plan: o.planned.plan,
          removeDeleted: o.removeDeleted,
          skipOcr: o.skipOcr,
          limits: o.limits,
          // Without limits the service is the only bound: the raw client does best at about 64 in flight.
          concurrency: o.limits ? 8 : 64,
          signal: o.abort.signal,
          rateWaits: o.rateWaits,
          onProgress: (p) => {
            const percent = p.total ? (p.done / p.total) * 100 : 0;
            progress.report({ message: progressMessage(p), increment: Math.max(0, percent - reported) });
            reported = Math.max(reported, percent);
          },
          onOutcome: o.onOutcome,
          log: o.log,
        },
        o.planned.unfinished,
        o.planned.attachedIds,
      );
    },
  );
  await o.journal.finish();
  return summary;
}
