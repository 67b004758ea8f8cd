/**
 * The first sync of a folder into a store the Sync Folder command has just created for it. Plain
 * TypeScript (no `vscode`).
 */
import type { DocumentsClient } from '../../api/documents/client';
import { deleteVectorStore, type DeletionOutcome } from '../../api/documents/deletion';

export interface NewStoreSync {
  client: DocumentsClient;
  storeId: string;
  /** The folder's sync: plan, confirm, act. */
  sync(): Promise<void>;
  /** Whether the user confirmed the plan (the folder's sync went ahead). */
  confirmed(): boolean;
  /** Forgets the folder's follow of the store. */
  forget(): Promise<void>;
}

/**
 * Runs the sync; when it ends without the plan confirmed (the user cancelled the plan, or planning
 * failed) the store is deleted again, with the folder's follow of it. The store has to exist for
 * the plan (its files are listed, a follow is keyed by its id), and nothing is sent to it before
 * the plan is confirmed, so deleting it leaves things as they were before the command. A store
 * that has files after all is kept. Resolves with what became of the store (undefined: kept).
 */
export async function syncIntoNewStore(o: NewStoreSync): Promise<DeletionOutcome | undefined> {
  try {
    await o.sync();
  } catch (error) {
    // The sync's own error is what the caller reports; the store goes all the same.
    if (!o.confirmed()) await discard(o).catch(() => undefined);
    throw error;
  }
  return o.confirmed() ? undefined : discard(o);
}

async function discard(o: NewStoreSync): Promise<DeletionOutcome | undefined> {
  const files = await o.client.listVectorStoreFiles(o.storeId, { limit: 1 });
  if (files.data.length > 0) return undefined;
  await o.forget();
  return deleteVectorStore(o.client, o.storeId);
}
