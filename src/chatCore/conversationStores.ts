/**
 * The stores a conversation is grounded in. Conversations saved before a conversation could span
 * several stores have one `vectorStoreId`; newer ones a `vectorStores` list whose first entry is
 * also written as `vectorStoreId`. No `vscode` or zod import: the webview bundle uses it too.
 */
import type { ConversationOptions, StoreOption } from './protocol';

/** The stores a conversation is grounded in, whichever way it was saved. */
export function groundingStores(options: ConversationOptions): StoreOption[] {
  if (options.vectorStores?.length) return options.vectorStores;
  return options.vectorStoreId ? [{ id: options.vectorStoreId, name: options.vectorStoreName ?? options.vectorStoreId }] : [];
}

/** Grounds the options in `stores` (none: no grounding), in both the new and the old fields. */
export function setGroundingStores(options: ConversationOptions, stores: readonly StoreOption[]): void {
  delete options.vectorStoreId;
  delete options.vectorStoreName;
  delete options.vectorStores;
  const [first] = stores;
  if (!first) return;
  options.vectorStoreId = first.id;
  options.vectorStoreName = first.name;
  if (stores.length > 1) options.vectorStores = stores.map((s) => ({ id: s.id, name: s.name }));
}
