/**
 * The stores a conversation is grounded in. Conversations saved before a conversation could span
 * several stores have one `vectorStoreId`; newer ones a `vectorStores` list whose first entry is
 * also written as `vectorStoreId`. No `vscode` or zod import: the webview bundle uses it too.
 */
import type { Conversation, ConversationOptions, StoreOption } from './protocol';

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

/**
 * What "Search the Documents" of an answer searches: the words the answer searched for (the query
 * its grounding made, else the question before it), in the store it searched when it searched one.
 * The store is named as the store list names it (`nameOf`), else as the conversation does (a store
 * deleted since has left the list, not the conversation), else by its id. Undefined when the
 * message is not an answer or there are no words.
 */
export function answerSearch(
  conversation: Pick<Conversation, 'messages' | 'options'>,
  messageId: string,
  nameOf: (storeId: string) => string | undefined,
): { query: string; store?: StoreOption } | undefined {
  const { messages } = conversation;
  const at = messages.findIndex((m) => m.id === messageId);
  const answer = messages[at];
  const question = messages[at - 1];
  if (answer?.role !== 'assistant') return undefined;
  const query = answer.searchQuery ?? (question?.role === 'user' ? question.content : undefined);
  if (!query?.trim()) return undefined;
  const ids = answer.storeIds ?? [];
  if (ids.length !== 1) return { query };
  const id = ids[0]!;
  const name = nameOf(id) ?? groundingStores(conversation.options).find((s) => s.id === id)?.name ?? id;
  return { query, store: { id, name } };
}
