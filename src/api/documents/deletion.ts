/**
 * Deleting a store, a file, or a file from a store. The service documents do not show deletion;
 * DocChat sends OpenAI's `DELETE` requests (which the embedded backend implements) and tells a
 * service that refuses them apart from a failure: 405 / 501, or a 404 for something that still
 * exists, means the service does not support deletion. No `vscode` import.
 */
import { DocChatError } from '../http/errors';
import type { DocumentsClient } from './client';

/** `deleted`: done; `gone`: it was already deleted; `unsupported`: the service does not delete. */
export type DeletionOutcome = 'deleted' | 'gone' | 'unsupported';

/** Statuses by which a service says it has no such operation. */
const REFUSED = new Set([405, 501]);

/**
 * Runs `remove`. A 405 or 501 is `unsupported`; a 404 asks `exists` whether the thing is still
 * there: if it is, the service does not support deletion, otherwise it was already `gone`. Any
 * other error is thrown as it is.
 */
export async function deleteOnce(remove: () => Promise<void>, exists: () => Promise<boolean>): Promise<DeletionOutcome> {
  try {
    await remove();
    return 'deleted';
  } catch (error) {
    const status = error instanceof DocChatError ? error.status : undefined;
    if (status !== undefined && REFUSED.has(status)) return 'unsupported';
    if (status === 404) return (await exists()) ? 'unsupported' : 'gone';
    throw error;
  }
}

/** Whether a lookup found the thing: a 404 means no, any other error is thrown. */
async function found(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (error) {
    if (error instanceof DocChatError && error.status === 404) return false;
    throw error;
  }
}

export function deleteVectorStore(client: DocumentsClient, storeId: string): Promise<DeletionOutcome> {
  return deleteOnce(
    () => client.deleteVectorStore(storeId),
    () => found(() => client.retrieveVectorStore(storeId)),
  );
}

export function deleteFile(client: DocumentsClient, fileId: string): Promise<DeletionOutcome> {
  return deleteOnce(
    () => client.deleteFile(fileId),
    () => found(() => client.retrieveFile(fileId)),
  );
}

export function removeFileFromStore(client: DocumentsClient, storeId: string, fileId: string): Promise<DeletionOutcome> {
  return deleteOnce(
    () => client.deleteVectorStoreFile(storeId, fileId),
    () => found(() => client.retrieveVectorStoreFile(storeId, fileId)),
  );
}
