/** What the folder-sync tests share: a client that counts the requests a sync sends, and a plan. */
import type { FakeClock } from '../../api/helpers';
import { planSync, remoteFrom, type RemoteFile } from '../../../../src/features/sync/planner';
import { listStoreFiles, type SyncClient } from '../../../../src/features/sync/runner';
import { hashFiles, scanFolder } from '../../../../src/features/sync/scanner';

export type Counted = SyncClient & {
  /** Requests sent, by operation. */
  calls: Record<string, number>;
  /** The clock's time each request was answered at, by operation. */
  at: Record<string, number[]>;
};

/** The real client, with a count (and the clock time of the answer) of each request the sync sends. */
export function counting(client: SyncClient, clock?: FakeClock): Counted {
  const calls: Record<string, number> = {};
  const at: Record<string, number[]> = {};
  const wrapped = {} as Record<string, unknown>;
  for (const name of [
    'uploadFile',
    'attachFile',
    'deleteVectorStoreFile',
    'deleteFile',
    'updateVectorStoreFileMetadata',
    'listVectorStoreFiles',
    'listFiles',
  ] as const) {
    const method = (client[name] as (...args: unknown[]) => Promise<unknown>).bind(client);
    wrapped[name] = async (...args: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1;
      const result = await method(...args);
      (at[name] ??= []).push(clock?.now() ?? 0);
      return result;
    };
  }
  return Object.assign(wrapped, { calls, at }) as unknown as Counted;
}

/** Scans and hashes `root`, lists the store, and plans the sync as the controller does. */
export async function planFor(client: SyncClient, storeId: string, root: string) {
  const scan = await scanFolder({ root, folder: root });
  const { hashed } = await hashFiles(scan.files);
  const storeFiles = await listStoreFiles(client, storeId);
  const remotes = storeFiles.map((f) => remoteFrom(f)).filter((r): r is RemoteFile => !!r);
  return {
    plan: planSync(
      hashed.map((f) => ({ path: f.path, hash: f.hash, size: f.size })),
      remotes,
    ),
    attachedIds: new Set(storeFiles.map((f) => f.id)),
    scan,
  };
}
