/**
 * Grounding: search the conversation's vector stores for the turn's query, keep the relevant
 * passages as many as the question needs, and number them (after any context the user attached)
 * as the sources an answer cites. No `vscode` import.
 */
import { questionKind, searchSize, passageTarget, selectPassages } from './passageBudget';
import type { ChatSource, ContextItem, PassageSource } from './protocol';
import { relevantInStores } from './relevance';
import { mergeByRank } from './storeMerge';

/** The part of DocumentsClient grounding uses. */
export interface GroundingDocuments {
  search(
    storeId: string,
    body: { query: string; max_num_results?: number; file_ids?: string[] },
    options?: { signal?: AbortSignal },
  ): Promise<{ data: ReadonlyArray<{ score: number; content: string; file_id: string; [key: string]: unknown }> }>;
  retrieveFile(fileId: string, options?: { signal?: AbortSignal }): Promise<{ filename: string }>;
}

export interface GroundingStore {
  id: string;
  name?: string;
}

/** The documents service takes queries of at most 10,000 characters. */
export const MAX_SEARCH_QUERY = 10_000;

/** File names by id, shared across questions so each file is looked up once. */
export class FileNameCache {
  private readonly names = new Map<string, Promise<string | undefined>>();

  lookup(documents: GroundingDocuments, fileId: string, signal?: AbortSignal): Promise<string | undefined> {
    let name = this.names.get(fileId);
    if (!name) {
      name = documents.retrieveFile(fileId, { signal }).then(
        (file) => file.filename || undefined,
        () => {
          // Not cached: a later question may succeed.
          this.names.delete(fileId);
          return undefined;
        },
      );
      this.names.set(fileId, name);
    }
    return name;
  }
}

export async function searchPassages(
  documents: GroundingDocuments,
  store: GroundingStore,
  question: string,
  maxResults: number,
  fileNames: FileNameCache,
  signal?: AbortSignal,
  /** Restricts the search to these files. */
  fileIds?: string[],
): Promise<PassageSource[]> {
  const query = Array.from(question.trim()).slice(0, MAX_SEARCH_QUERY).join('');
  const body = { query, max_num_results: maxResults, ...(fileIds?.length ? { file_ids: fileIds } : {}) };
  const result = await documents.search(store.id, body, { signal });
  return Promise.all(
    result.data
      .filter((item) => item.content.trim() !== '')
      .map(async (item): Promise<PassageSource> => {
        const given = typeof item['filename'] === 'string' && item['filename'] ? item['filename'] : undefined;
        const filename = given ?? (item.file_id ? await fileNames.lookup(documents, item.file_id, signal) : undefined);
        const chunkIndex = item['chunk_index'];
        const heading = item['heading'];
        return {
          kind: 'passage',
          storeId: store.id,
          ...(store.name ? { storeName: store.name } : {}),
          fileId: item.file_id,
          ...(filename ? { filename } : {}),
          content: item.content,
          score: item.score,
          ...(typeof chunkIndex === 'number' && Number.isInteger(chunkIndex) ? { chunkIndex } : {}),
          ...(typeof heading === 'string' && heading ? { heading } : {}),
        };
      }),
  );
}

export interface GroundingSearch {
  /** The turn's query (see searchQuery.ts). */
  query: string;
  /** The message as the user wrote it, when the query is made from it (relevance.ts). */
  question?: string;
  stores: readonly GroundingStore[];
  /** The "search result count" setting: passages for a question about one fact. */
  maxResults: number;
  /** Characters of passages the prompt may carry. */
  charBudget?: number;
  /** The user wrote or edited the query ("Searched for"): it is searched as it is, never replaced by the message. */
  queryFromUser?: boolean;
}

/** What grounds an answer: the passages, and the query that found them (what "Searched for" shows). */
export interface Grounding {
  passages: PassageSource[];
  query: string;
}

/**
 * The passages that ground an answer: every store searched for the query (in parallel), each
 * search's passages below its relevance floor dropped (all of them when the searches do not
 * cover the query, see relevance.ts), the rest merged by rank, neighbouring chunks joined, a few
 * per file, as many as the question needs within the budget. When a query made from the
 * conversation finds nothing that covers it, the message as the user wrote it is searched too:
 * a short question on a new subject ("Which port does Ollama use?") reads like a follow-up, and
 * the previous subject carried into its query must not make it "not covered". No passages means
 * the documents do not cover the question.
 */
export async function findPassages(
  documents: GroundingDocuments,
  search: GroundingSearch,
  fileNames: FileNameCache,
  signal?: AbortSignal,
): Promise<Grounding> {
  const passages = await searchOnce(documents, search, fileNames, signal);
  const message = search.question?.trim();
  if (passages.length > 0 || search.queryFromUser || !message || message === search.query.trim()) {
    return { passages, query: search.query };
  }
  const own = await searchOnce(documents, { ...search, query: message, question: undefined }, fileNames, signal);
  return own.length > 0 ? { passages: own, query: message } : { passages, query: search.query };
}

async function searchOnce(
  documents: GroundingDocuments,
  search: GroundingSearch,
  fileNames: FileNameCache,
  signal?: AbortSignal,
): Promise<PassageSource[]> {
  const kind = questionKind(search.query);
  const target = passageTarget(kind, search.maxResults);
  const lists = await Promise.all(
    search.stores.map((store) => searchPassages(documents, store, search.query, searchSize(target), fileNames, signal)),
  );
  return selectPassages(mergeByRank(relevantInStores(search.query, lists, search.question)), kind, search.maxResults, search.charBudget);
}

function sameItem(a: ContextItem, b: ContextItem): boolean {
  if (a.kind === 'passage' && b.kind === 'passage') {
    return a.fileId === b.fileId && a.content.trim() === b.content.trim();
  }
  if (a.kind === 'web' && b.kind === 'web') {
    return a.url === b.url;
  }
  return false;
}

/** Attached context first (the user chose it), then search passages not already attached. */
export function numberSources(context: readonly ContextItem[], passages: readonly PassageSource[]): ChatSource[] {
  const items: ContextItem[] = [...context];
  for (const passage of passages) {
    if (!items.some((item) => sameItem(item, passage))) {
      items.push(passage);
    }
  }
  return items.map((item, index) => ({ ...item, number: index + 1 }));
}

/** How a source is named in the prompt and in the sources list. */
export function sourceTitle(source: ContextItem): string {
  if (source.kind === 'selection') {
    const { startLine, endLine } = source.range;
    const lines = startLine === endLine ? `line ${startLine + 1}` : `lines ${startLine + 1}-${endLine + 1}`;
    return `${source.label}, ${lines}`;
  }
  if (source.kind === 'web') {
    return source.title || source.url;
  }
  return source.filename ?? source.fileId;
}
