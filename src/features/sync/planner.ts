/**
 * Compares a folder with a store and says what to do. Pure: no I/O, no `vscode`, so every rule is
 * unit-tested over tricky trees.
 */
import * as l10n from '@vscode/l10n';
import { encodePath, HASH_KEY, normalizePath, PATH_KEY } from './syncMetadata';

export interface LocalFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
  hash: string;
  size: number;
}

export interface RemoteFile {
  fileId: string;
  status: string;
  lastError: string | null;
  /** `docchat_path` as stored (possibly shortened). */
  pathKey: string;
  hash: string;
  createdAt: number;
}

export interface Replacement {
  local: LocalFile;
  /** The new version when it is already attached (an interrupted sync), else it is uploaded. */
  current?: RemoteFile;
  /** Older versions, removed once the new one has completed. */
  old: RemoteFile[];
}

export interface SyncPlan {
  upload: LocalFile[];
  replace: Replacement[];
  /** Same content at another path: only the metadata changes, nothing is uploaded. */
  rename: { local: LocalFile; remote: RemoteFile }[];
  /** Store files whose workspace file is gone. */
  remove: RemoteFile[];
  unchanged: { local: LocalFile; remote: RemoteFile }[];
  /** Unchanged content whose conversion failed: reported, retried only on request. */
  failed: { local: LocalFile; remote: RemoteFile }[];
}

/** A store file's sync pairs, or undefined for a file DocChat did not sync. */
export function remoteFrom(file: {
  id: string;
  status: string;
  last_error: string | null;
  metadata: Record<string, unknown> | null | undefined;
  created_at?: number;
}): RemoteFile | undefined {
  const pathKey = file.metadata?.[PATH_KEY];
  const hash = file.metadata?.[HASH_KEY];
  if (typeof pathKey !== 'string' || typeof hash !== 'string' || !pathKey) return undefined;
  return { fileId: file.id, status: file.status, lastError: file.last_error, pathKey, hash, createdAt: file.created_at ?? 0 };
}

const STATUS_RANK: Record<string, number> = { completed: 0, in_progress: 1 };
/** Best copy first: completed, then in progress, then the rest; newest first within a rank. */
function better(a: RemoteFile, b: RemoteFile): number {
  return (STATUS_RANK[a.status] ?? 2) - (STATUS_RANK[b.status] ?? 2) || b.createdAt - a.createdAt;
}

export function planSync(localFiles: readonly LocalFile[], remoteFiles: readonly RemoteFile[]): SyncPlan {
  const plan: SyncPlan = { upload: [], replace: [], rename: [], remove: [], unchanged: [], failed: [] };
  const byKey = new Map<string, RemoteFile[]>();
  for (const remote of remoteFiles) {
    const key = remote.pathKey.normalize('NFC');
    const group = byKey.get(key);
    if (group) group.push(remote);
    else byKey.set(key, [remote]);
  }
  const locals = localFiles.map((local) => ({ ...local, path: normalizePath(local.path) }));
  const localKeys = new Set(locals.map((l) => encodePath(l.path)));
  // Store files of vanished paths, by content: candidates for a rename.
  const orphansByHash = new Map<string, RemoteFile[]>();
  for (const [key, group] of byKey) {
    if (localKeys.has(key)) continue;
    for (const remote of group.sort(better)) {
      const list = orphansByHash.get(remote.hash);
      if (list) list.push(remote);
      else orphansByHash.set(remote.hash, [remote]);
    }
  }
  const renamed = new Set<string>();
  const pendingNew: LocalFile[] = [];

  for (const local of locals) {
    const group = byKey.get(encodePath(local.path));
    if (!group) {
      pendingNew.push(local);
      continue;
    }
    const same = group.filter((r) => r.hash === local.hash).sort(better);
    const current = same[0];
    const others = group.filter((r) => r !== current);
    if (!current) {
      plan.replace.push({ local, old: others });
    } else if (current.status === 'failed' || current.status === 'cancelled') {
      // Keep any older version searchable; the failed one waits for "Retry Failed".
      plan.failed.push({ local, remote: current });
    } else if (others.length > 0) {
      plan.replace.push({ local, current, old: others });
    } else {
      plan.unchanged.push({ local, remote: current });
    }
  }

  for (const local of pendingNew) {
    const candidates = orphansByHash.get(local.hash);
    const remote = candidates?.find((r) => !renamed.has(r.fileId) && r.status !== 'failed');
    if (remote) {
      renamed.add(remote.fileId);
      plan.rename.push({ local, remote });
    } else {
      plan.upload.push(local);
    }
  }

  for (const [key, group] of byKey) {
    if (localKeys.has(key)) continue;
    for (const remote of group) {
      if (!renamed.has(remote.fileId)) plan.remove.push(remote);
    }
  }
  return plan;
}

export interface PlanCounts {
  new: number;
  changed: number;
  renamed: number;
  removed: number;
  unchanged: number;
  failed: number;
  /** Files of the folder the sync leaves out (a type DocChat cannot convert, or unreadable); absent when none. */
  leftOut?: number;
}

export function countPlan(plan: SyncPlan): PlanCounts {
  return {
    new: plan.upload.length,
    changed: plan.replace.length,
    renamed: plan.rename.length,
    removed: plan.remove.length,
    unchanged: plan.unchanged.length,
    failed: plan.failed.length,
  };
}

/** Whether acting on the plan would change anything in the store. */
export function planHasWork(plan: SyncPlan, removeDeleted: boolean): boolean {
  return plan.upload.length + plan.replace.length + plan.rename.length + (removeDeleted ? plan.remove.length : 0) > 0;
}

export function describePlan(counts: PlanCounts): string {
  const parts = [
    l10n.t('{0} new', counts.new),
    l10n.t('{0} changed', counts.changed),
    ...(counts.renamed ? [l10n.t('{0} renamed', counts.renamed)] : []),
    l10n.t('{0} removed', counts.removed),
    l10n.t('{0} unchanged', counts.unchanged),
    ...(counts.failed ? [l10n.t('{0} failed before', counts.failed)] : []),
    ...(counts.leftOut ? [l10n.t('{0} left out', counts.leftOut)] : []),
  ];
  return parts.join(', ');
}
