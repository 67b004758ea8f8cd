/**
 * The file records of a followed folder (what DocChat knows of each synced file), kept up to date
 * by a sync: from the plan before it acts, then from each file's outcome. Plain Node (no `vscode`).
 */
import * as l10n from '@vscode/l10n';
import type { FileRecord } from './follows';
import type { PlannedSync } from './planStep';
import type { FileOutcome } from './runner';

/**
 * Drops the records of the folder's files that are gone and records the files the plan leaves
 * alone (unchanged, failed before) as the store holds them.
 */
export function recordPlan(records: Map<string, FileRecord>, planned: Pick<PlannedSync, 'plan' | 'hashed' | 'prefix'>): void {
  const { plan, hashed, prefix } = planned;
  for (const key of [...records.keys()]) {
    if ((!prefix || key.startsWith(prefix)) && !hashed.has(key)) records.delete(key);
  }
  for (const [entries, failed] of [
    [plan.unchanged, false],
    [plan.failed, true],
  ] as const) {
    for (const { local, remote } of entries) {
      const file = hashed.get(local.path);
      if (!file) continue;
      const known = { size: file.size, mtimeMs: file.mtimeMs, hash: local.hash, fileId: remote.fileId };
      records.set(
        local.path,
        failed
          ? { ...known, status: 'failed', error: remote.lastError ?? l10n.t('Conversion ended with status "{0}".', remote.status) }
          : { ...known, status: remote.status === 'completed' ? 'synced' : 'converting' },
      );
    }
  }
}

/**
 * Records one file's outcome. Returns false, recording nothing, for a file the scan did not see
 * (a removal is always taken: its record goes if it still names the removed file).
 */
export function recordOutcome(records: Map<string, FileRecord>, outcome: FileOutcome, hashed: PlannedSync['hashed']): boolean {
  if (outcome.status === 'removed') {
    if (records.get(outcome.path)?.fileId === outcome.fileId) records.delete(outcome.path);
    return true;
  }
  const file = hashed.get(outcome.path);
  if (!file) return false;
  records.set(outcome.path, {
    size: file.size,
    mtimeMs: file.mtimeMs,
    hash: outcome.hash,
    ...(outcome.fileId ? { fileId: outcome.fileId } : {}),
    status: outcome.status,
    ...(outcome.status === 'failed' ? { error: outcome.error } : {}),
  });
  return true;
}

/** The first failure to name: one of this sync's, else a file recorded as failed before. */
export function firstFailure(
  failedNow: readonly { path: string; error: string }[],
  records: ReadonlyMap<string, FileRecord>,
): { path: string; error?: string } | undefined {
  return failedNow[0] ?? [...records.entries()].map(([p, r]) => ({ path: p, error: r.error })).find((r) => r.error);
}
