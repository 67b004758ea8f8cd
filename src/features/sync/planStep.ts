/**
 * The plan step of a folder sync: scan and hash the folder, list the store, read what an
 * interrupted sync left behind, and compare. Plain Node (no `vscode`), so it is unit-tested
 * against the embedded backend.
 */
import type { FileRecord } from './follows';
import type { SyncJournal, Unfinished } from './journal';
import { countPlan, planSync, remoteFrom, type LocalFile, type PlanCounts, type RemoteFile, type SyncPlan } from './planner';
import { listStoreFiles, type SyncClient } from './runner';
import { hashFiles, scanFolder, type HashedFile } from './scanner';

export interface PlanStepOptions {
  client: Pick<SyncClient, 'listVectorStoreFiles'>;
  storeId: string;
  /** Absolute path of the workspace folder the plan's paths are relative to. */
  root: string;
  /** Absolute path of the followed folder (the root or a folder inside it). */
  folder: string;
  /** The followed folder relative to the root, `/`-separated ('' for the root itself). */
  relativeFolder: string;
  exclude: string[];
  /** What the last sync recorded of each file: unchanged files are not hashed again. */
  records: ReadonlyMap<string, FileRecord>;
  journal: Pick<SyncJournal, 'readFor'>;
  /** Upload again the files whose conversion failed. */
  retryFailed?: boolean;
  signal?: AbortSignal;
}

export interface PlannedSync {
  plan: SyncPlan;
  counts: PlanCounts;
  /** The folder's files as scanned and hashed, by workspace-relative path. */
  hashed: ReadonlyMap<string, HashedFile>;
  /** Files left out because they could not be read. */
  unreadable: { path: string; error: string }[];
  /** Files left out because DocChat cannot convert their type (workspace-relative paths). */
  unsupported: string[];
  /** What an interrupted sync of this store left behind. */
  unfinished: Unfinished | undefined;
  /** Ids of every file the store holds (synced from this folder or not). */
  attachedIds: Set<string>;
  /** The recorded-path prefix of the followed folder ('' for a whole workspace folder). */
  prefix: string;
}

/** The recorded-path prefix of files inside the followed folder ('' when it is the workspace folder). */
export function folderPrefix(relativeFolder: string): string {
  return relativeFolder ? `${relativeFolder}/` : '';
}

/** Moves the files whose conversion failed before into the plan's replacements. */
function retryFailed(plan: SyncPlan): void {
  plan.replace.push(...plan.failed.map((f) => ({ local: f.local, old: [f.remote] })));
  plan.failed = [];
}

export async function planFolderSync(o: PlanStepOptions): Promise<PlannedSync> {
  const { signal } = o;
  // Hashing (in a worker thread) overlaps the store listing.
  const [{ hashed, unreadable, unsupported }, storeFiles, unfinished] = await Promise.all([
    scanFolder({ root: o.root, folder: o.folder, exclude: o.exclude, signal }).then(async (scan) => ({
      ...(await hashFiles(scan.files, { cache: (p) => o.records.get(p), signal })),
      unsupported: scan.unsupported.sort(),
    })),
    listStoreFiles(o.client, o.storeId, signal),
    o.journal.readFor(o.storeId),
  ]);
  const prefix = folderPrefix(o.relativeFolder);
  // Only store files synced from this folder take part: the store may hold other files too.
  const remotes: RemoteFile[] = storeFiles
    .map((file) => remoteFrom(file))
    .filter((r): r is RemoteFile => !!r && (!prefix || r.pathKey.startsWith(prefix)));
  const locals: LocalFile[] = hashed.map((f) => ({ path: f.path, hash: f.hash, size: f.size }));
  const plan = planSync(locals, remotes);
  if (o.retryFailed) retryFailed(plan);
  const leftOut = unsupported.length + unreadable.length;
  return {
    plan,
    counts: { ...countPlan(plan), ...(leftOut ? { leftOut } : {}) },
    hashed: new Map(hashed.map((f) => [f.path, f])),
    unreadable,
    unsupported,
    unfinished,
    attachedIds: new Set(storeFiles.map((f) => f.id)),
    prefix,
  };
}
