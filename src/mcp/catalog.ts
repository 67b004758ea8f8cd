/**
 * What the MCP server's tools and resources share about the documents service: the last store
 * list (so a call names its store without listing them all again), the file names already
 * looked up and the converted text of the files being read. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import type { DocumentsClient } from '../api/documents/client';
import type { VectorStore } from '../api/documents/schemas';
import { resolveStore, type StoreRef } from '../chatCore/answerText';
import { FileNameCache } from '../chatCore/grounding';
import { ConvertedTextCache } from './convertedText';
import { ToolInputError } from './toolCalls';

/** How long a store list names stores for other calls (a store not in it is looked up again). */
export const STORE_LIST_TTL_MS = 30_000;
/** Most stores a listing returns (the rest is reported as left out). */
export const MAX_LISTED = 1_000;

export class DocumentsCatalog {
  readonly fileNames = new FileNameCache();
  readonly convertedText = new ConvertedTextCache();
  private known: { at: number; stores: StoreRef[] } | undefined;

  async allStores(documents: DocumentsClient, signal: AbortSignal): Promise<{ stores: VectorStore[]; truncated: boolean }> {
    const page = await documents.listVectorStores({ limit: MAX_LISTED }, { signal });
    this.known = { at: Date.now(), stores: page.data.map((s) => ({ id: s.id, name: s.name || s.id })) };
    return { stores: page.data, truncated: page.hasMore };
  }

  /** The stores, from the last list when it is recent. */
  async stores(documents: DocumentsClient, signal: AbortSignal): Promise<StoreRef[]> {
    if (this.known && Date.now() - this.known.at < STORE_LIST_TTL_MS) return this.known.stores;
    await this.allStores(documents, signal);
    return this.known?.stores ?? [];
  }

  /** The store a call names (id or name); a `ToolInputError` that says how to find one otherwise. */
  async findStore(documents: DocumentsClient, wanted: string, signal: AbortSignal): Promise<StoreRef> {
    const fresh = this.known && Date.now() - this.known.at < STORE_LIST_TTL_MS ? resolveStore(this.known.stores, wanted) : undefined;
    if (fresh) return fresh;
    // Not in a recent list (or none): ask again, so a store created or renamed since is found.
    await this.allStores(documents, signal);
    const store = resolveStore(this.known?.stores ?? [], wanted);
    if (!store) {
      throw new ToolInputError(
        l10n.t('No DocChat vector store is named "{0}" (or several are: use its id). Call docchat_list_stores to see them.', wanted),
      );
    }
    return store;
  }
}
