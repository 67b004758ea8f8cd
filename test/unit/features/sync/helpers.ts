/** What the folder-sync tests share: a client that counts the requests a sync sends, and a plan. */
import type { FakeClock } from '../../api/helpers';
import { planFolderSync } from '../../../../src/features/sync/planStep';
import type { SyncClient } from '../../../../src/features/sync/runner';

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

/** Plans the sync of all of `root` as the controller does, for a folder without records or journal. */
export async function planFor(client: SyncClient, storeId: string, root: string) {
  const { plan, attachedIds } = await planFolderSync({
    client,
    storeId,
    root,
    folder: root,
    relativeFolder: '',
    exclude: [],
    records: new Map(),
    journal: { readFor: () => Promise.resolve(undefined) },
  });
  return { plan, attachedIds };
}
