import * as vscode from 'vscode';
import { DOCUMENTS_RATE_LIMITS } from '../../api/documents/limits';
import { isAbortError } from '../../api/http/errors';
import type { Logger } from '../../common/log';
import { connectionModeOf } from '../../services/settingsModel';
import type { Services } from '../../services';
import { requireDocuments } from '../../services/commands';
import { act } from './act';
import { chooseRemoval } from './confirm';
import { chooseSyncConversion } from './conversion';
import { label, type SyncRequest } from './controller';
import { finish } from './finish';
import type { Follow, FollowStore } from './follows';
import { describePlan, planHasWork } from './planner';
import { planFolderSync } from './planStep';
import { recordOutcome, recordPlan } from './records';
import type { RunSummary } from './runner';

// A folder sync's steps (scan, plan, confirm, upload, records): loaded at the first sync that runs
// (dist/first-use.js), not when DocChat activates. SyncController (./controller.ts) queues the syncs.

/** What a sync uses of the controller that runs it. */
export interface SyncRun {
  readonly services: Services;
  readonly follows: FollowStore;
  readonly log: Logger;
  /** The sync's stop signal, by followed folder, for `SyncController.stop`. */
  readonly aborts: Map<string, AbortController>;
  /** Asks "how should the files be converted?" as attaching does (undefined: dismissed). */
  askConversion(): Promise<boolean | undefined>;
  /** Queues a sync of the folder (the "retry the failed files" action of the outcome's message). */
  sync(follow: Follow, request: SyncRequest): Promise<void>;
}

/**
 * The user dismissed the plan or the conversion question: the sync stops before anything is sent,
 * and the status bar says so, as the log does (a dismissed question is not taken for a sync that ran).
 */
function cancelled(run: SyncRun, name: string): void {
  run.log.info(`Sync of ${name} cancelled; nothing was synced.`);
  vscode.window.setStatusBarMessage(vscode.l10n.t('DocChat: sync of {0} cancelled; nothing was synced.', name), 5000);
}

/** One sync: plan → confirm → act, then the records and the outcome. */
export async function syncOnce(run: SyncRun, follow: Follow, request: SyncRequest): Promise<void> {
  const client = requireDocuments(run.services.connection);
  const folder = vscode.Uri.parse(follow.folderUri);
  const root = vscode.Uri.parse(follow.rootUri).fsPath;
  const settings = run.services.config.forFolder(folder);
  const name = label(follow);
  const store = follow.storeName || follow.storeId;
  const journal = run.follows.journal(follow);
  const abort = new AbortController();
  run.aborts.set(follow.id, abort);
  try {
    run.follows.setActivity(follow, 'planning');
    const records = await run.follows.loadRecords(follow);
    const planned = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('DocChat: planning the sync of {0}', name) },
      () =>
        planFolderSync({
          client,
          storeId: follow.storeId,
          root,
          folder: folder.fsPath,
          relativeFolder: follow.relativeFolder,
          exclude: settings.exclude,
          records,
          journal,
          retryFailed: request.retryFailed,
          signal: abort.signal,
        }),
    );
    const { plan, counts } = planned;
    for (const file of planned.unreadable) run.log.warn(`${file.path} could not be read, so it is left out: ${file.error}`);
    if (planned.unsupported.length) run.log.info(`Left out (a type DocChat cannot convert): ${planned.unsupported.join(', ')}`);
    run.log.info(`${name} → ${store}: ${describePlan(counts)}`);

    const needsConfirm = !follow.confirmed && !request.resume;
    const removeDeleted = await chooseRemoval({
      plan,
      counts,
      leftOut: planned,
      folder: name,
      store,
      setting: settings.removeDeleted,
      needsConfirm,
    });
    if (removeDeleted === undefined) return cancelled(run, name);
    // Full or fast conversion, as attaching asks it: once per sync the user started, then remembered for the folder.
    const conversion = await chooseSyncConversion({
      mode: run.services.config.current.attachSkipOcr,
      follow,
      plan,
      interactive: request.interactive,
      ask: () => run.askConversion(),
    });
    if (!conversion) return cancelled(run, name);
    if (conversion.skipOcr) run.log.info(`${name} → ${store}: converting without OCR and table recognition`);
    if (needsConfirm || conversion.follow !== follow) {
      follow = { ...conversion.follow, ...(needsConfirm ? { confirmed: true } : {}) };
      await run.follows.save(follow);
    }

    recordPlan(records, planned);
    run.follows.changed(follow);
    let summary: RunSummary | undefined;
    if (planHasWork(plan, removeDeleted) || planned.unfinished) {
      run.follows.setActivity(follow, 'syncing');
      summary = await act({
        client,
        storeId: follow.storeId,
        root,
        journal,
        planned,
        removeDeleted,
        skipOcr: conversion.skipOcr,
        // Local mode's own backend has no per-minute limits (a 429 still counts, through rateWaits).
        limits: connectionModeOf(run.services.config.current) === 'local' ? false : DOCUMENTS_RATE_LIMITS,
        rateWaits: {
          until: (operation) => run.services.rateLimits.until(operation),
          onDidChange: (listener) => run.services.rateLimits.onDidChange(listener),
        },
        folder: name,
        store,
        abort,
        onOutcome: (outcome) => {
          if (recordOutcome(records, outcome, planned.hashed)) run.follows.changed(follow);
        },
        log: (line) => run.log.info(line),
      });
    }
    await finish({
      follows: run.follows,
      follow,
      records,
      counts,
      summary,
      interactive: request.interactive,
      folder: name,
      store,
      log: run.log,
      retryFailed: (saved) => void run.sync(saved, { interactive: true, retryFailed: true }),
    });
  } catch (error) {
    await run.follows.saveRecords(follow).catch(() => undefined);
    if (isAbortError(error)) {
      run.log.info(`Sync of ${name} stopped; the next sync resumes it.`);
      return;
    }
    await run.follows.save({ ...follow, lastError: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    run.aborts.delete(follow.id);
  }
}
