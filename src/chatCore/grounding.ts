/**
 * Grounding: search the conversation's vector stores for the turn's query, keep the relevant
 * passages as many as the question needs, and number them (after any context the user attached)
 * as the sources an answer cites. No `vscode` import.
 */
import { asksAboutChanges, isChangeListPassage } from '../common/changeLists';
import { MAX_SEARCH_RESULTS, questionKind, searchSize, passageTarget, selectPassages } from './passageBudget';
import type { ChatSource, ContextItem, PassageSource } from './protocol';
import { aboveFloor, FOLLOW_UP_COVERAGE, relevantInStores, unheldWords } from './relevance';
import {
  conversationGrounded,
  sinceStoresChanged,
  type FollowUpSearch,
  type QueryRewriter,
  type QueryTurn,
  type RewriteModel,
} from './searchQuery';
import { mergeByRank } from './storeMerge';

/** The part of DocumentsClient grounding uses. */
export interface GroundingDocuments {
  search(
    storeId: string,
    body: { query: string; max_num_results?: number; file_ids?: string[] },
    options?: { signal?: AbortSignal },
  ): Promise<{ data: ReadonlyArray<{ score: number; content: string; file_id: string; [key: string]: unknown }> }>;
  retrieveFile(fileId: string, options?: { signal?: AbortSignal }): Promise<{ filename: string }>;
  /** A store's files (asked with `limit: 1` only when a search found nothing: is the store empty?). */
  listVectorStoreFiles?(
    storeId: string,
    params: { limit: number },
    options?: { signal?: AbortSignal },
  ): Promise<{ data: ReadonlyArray<unknown> }>;
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
  /** A follow-up made by DocChat's method: the message as written and with the previous answer's words are searched too, and the rankings fused. */
  followUp?: FollowUpSearch;
  /** A later turn of a conversation the documents grounded before: the relevance check asks less of it (FOLLOW_UP_COVERAGE). */
  grounded?: boolean;
}

/** What grounds an answer: the passages, and the query that found them (what "Searched for" shows). */
export interface Grounding {
  passages: PassageSource[];
  query: string;
  /**
   * No passages (the documents do not cover the question) although the search found some: the
   * question's words none of them holds (`unheldWords`), for the answer to name.
   */
  unheld?: string[];
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
  const first = await searchOnce(documents, search, fileNames, signal);
  const message = search.question?.trim();
  if (first.passages.length > 0 || search.queryFromUser || !message || message === search.query.trim()) {
    return { ...first, query: search.query };
  }
  const own = await searchOnce(documents, { ...search, query: message, question: undefined, followUp: undefined }, fileNames, signal);
  return own.passages.length > 0 ? { ...own, query: message } : { ...first, query: search.query };
}

/** One chat turn to ground: the message, the conversation before it, and how its query is made. */
export interface TurnToGround {
  question: string;
  /** The messages before the question, with what each answer searched for, cited and the stores it searched. */
  history: readonly QueryTurn[];
  stores: readonly GroundingStore[];
  maxResults: number;
  charBudget?: number;
  /** The user's edit of "Searched for": searched as it is. */
  searchQuery?: string;
  rewriter: QueryRewriter;
  /** The model that rewrites a follow-up; without one, DocChat's own method. */
  model?: RewriteModel;
}

/**
 * The grounding of one chat turn, as the chat panel and `@docchat` do it: the turn's query (the
 * user's edit, the model's rewrite, or DocChat's follow-up method), then every search it makes
 * and the relevance check.
 */
export async function groundTurn(
  documents: GroundingDocuments,
  turn: TurnToGround,
  fileNames: FileNameCache,
  signal?: AbortSignal,
  /** Called when the query is made and the searches start (a progress message). */
  onSearch?: () => void,
): Promise<Grounding> {
  const { question, stores, maxResults, charBudget } = turn;
  const common = { question, stores, maxResults, ...(charBudget !== undefined ? { charBudget } : {}) };
  if (turn.searchQuery !== undefined) {
    onSearch?.();
    return findPassages(documents, { ...common, query: turn.searchQuery, queryFromUser: true }, fileNames, signal);
  }
  // The conversation's subject restarts when the stores it is grounded in change.
  const history = sinceStoresChanged(
    turn.history,
    stores.map((store) => store.id),
  );
  const made = await turn.rewriter.queryFor(history, question, turn.model, signal);
  onSearch?.();
  const search = {
    ...common,
    query: made.text,
    ...(made.followUp ? { followUp: made.followUp } : {}),
    ...(conversationGrounded(history) ? { grounded: true } : {}),
  };
  return findPassages(documents, search, fileNames, signal);
}

async function searchOnce(
  documents: GroundingDocuments,
  search: GroundingSearch,
  fileNames: FileNameCache,
  signal?: AbortSignal,
): Promise<Omit<Grounding, 'query'>> {
  const kind = questionKind(search.query);
  const target = passageTarget(kind, search.maxResults);
  const size = searchSize(target);
  const followUp = search.followUp;
  const searches = followUp ? followUpSearches(search.query, followUp) : [];
  const weighed = (passages: PassageSource[]) => weighChangeLists(passages, search.question ?? search.query);
  const lists = await Promise.all(
    search.stores.map(async (store) => {
      if (!followUp) return weighed(await searchPassages(documents, store, search.query, size, fileNames, signal));
      const depth = searches.length > 1 ? FUSION_DEPTH : size;
      const rankings = await Promise.all(
        searches.map(async ({ text }) => weighed(await searchPassages(documents, store, text, depth, fileNames, signal))),
      );
      return fuseAboveFloor(
        rankings,
        searches.map(({ weight }) => weight),
      );
    }),
  );
  const relevant = relevantInStores(search.query, lists, search.question ?? followUp?.message, {
    ...(followUp ? { floored: true } : {}),
    ...(search.grounded ? { minCoverage: FOLLOW_UP_COVERAGE } : {}),
  });
  const passages = selectPassages(mergeByRank(relevant), kind, search.maxResults, search.charBudget);
  if (passages.length > 0) return { passages };
  // What the asker wrote (their edit of "Searched for", else their message): the words to name.
  const unheld = unheldWords(search.queryFromUser ? search.query : (search.question ?? search.query), lists.flat());
  return unheld.length > 0 ? { passages, unheld } : { passages };
}

/**
 * How much of its score a passage of a list of changes keeps, for a question that does not ask
 * about changes (`weighChangeLists`). On the tuning halves of DocChat's own question sets
 * (test/bench/answers.ts), whose documents hold a changelog, every weight from 0.3 to 0.8 gave the
 * same answers; this is the middle of that range.
 */
export const CHANGE_LIST_WEIGHT = 0.6;

/**
 * A search's passages ranked again with those of a list of changes (a changelog, release notes:
 * `isChangeListPassage`) weighed down, for a question that does not ask what changed
 * (`asksAboutChanges`). An entry names the feature it changed in the feature's own words, so the
 * search ranks it with the guide's passages on that feature, or above them; it says that
 * something changed, not how to use it. A passage is ranked by its score weighed so that it keeps
 * its place between the search's lowest score (or zero) and its own, so scores below zero stay
 * below the others too; it keeps the documents service's score, which the relevance floor and the
 * Sources list go by. A search whose passages do not all have a score keeps its order.
 */
export function weighChangeLists(passages: readonly PassageSource[], question: string): PassageSource[] {
  if (asksAboutChanges(question) || !passages.some((p) => isChangeListPassage(p))) return [...passages];
  const scores = passages.map((p) => p.score).filter((s): s is number => typeof s === 'number' && Number.isFinite(s));
  if (scores.length !== passages.length) return [...passages];
  const lowest = Math.min(0, ...scores);
  const weight = (p: PassageSource) => (isChangeListPassage(p) ? lowest + (p.score! - lowest) * CHANGE_LIST_WEIGHT : p.score!);
  return passages
    .map((passage, i) => ({ passage, i, rank: weight(passage) }))
    .sort((a, b) => b.rank - a.rank || a.i - b.i)
    .map((e) => e.passage);
}

/**
 * How many results each of several fused searches asks for: as many as the documents service
 * gives. Reciprocal rank fusion ranks by how many searches find a passage and how high, and a
 * passage one search ranks first and another 30th is one they agree on; cut each ranking at the
 * passages a single search needs and that agreement is lost. The relevance floor and the passage
 * budget still decide what is cited.
 */
export const FUSION_DEPTH = MAX_SEARCH_RESULTS;

/** One search of a turn and how much its ranking counts in the fusion. */
export interface WeightedSearch {
  text: string;
  weight: number;
}

/**
 * The searches of a turn made by DocChat's follow-up method, each text once: the turn's query,
 * the message as written, and the message with the previous answer's words. Each of the three
 * counts once in the fusion, so a text that is two of them is searched once and its ranking
 * counts twice: a message that names its own subject is its own query, and its words then
 * weigh twice the previous answer's (2 : 1), while a message that leans on the conversation
 * counts once beside its two conversation-aware searches (1 : 2). How much of the conversation
 * a turn's ranking takes follows whether the message needs it.
 */
export function followUpSearches(query: string, followUp: FollowUpSearch): WeightedSearch[] {
  const searches: WeightedSearch[] = [];
  for (const text of [query, followUp.message, followUp.withAnswer].map((t) => t?.trim() ?? '')) {
    if (text === '') continue;
    const same = searches.find((search) => search.text === text);
    if (same) same.weight++;
    else searches.push({ text, weight: 1 });
  }
  return searches;
}

/**
 * Several searches of one store fused (`fuseRankings`) over their whole rankings, keeping each
 * passage that at least one of them ranks above its relevance floor (`aboveFloor`). A passage
 * is judged by the search that finds it best, and ranked by all of them: dropping it from each
 * search below that search's floor before fusing would throw away that several searches agree
 * on it, which is what fusion ranks by.
 */
export function fuseAboveFloor(rankings: readonly (readonly PassageSource[])[], weights?: readonly number[]): PassageSource[] {
  const kept = new Set(rankings.flatMap((ranking) => aboveFloor(ranking)).map(passageKey));
  return fuseRankings(rankings, weights).filter((passage) => kept.has(passageKey(passage)));
}

/** A passage of a store's search, known by its file and chunk. */
function passageKey(passage: PassageSource): string {
  return `${passage.fileId}\u0000${passage.chunkIndex ?? passage.content}`;
}

/** Reciprocal rank fusion's constant (Cormack et al. 2009): ranks far down a list still count a little. */
export const RRF_K = 60;

/**
 * Several rankings of one store's passages fused by reciprocal rank (each passage scores the sum
 * of weight / (RRF_K + rank) over the rankings that hold it, each ranking's weight 1 unless
 * `weights` gives it), best first; a passage is known by its file and chunk. Each passage keeps
 * the score of the first search that found it, on the documents service's scale: the fused order
 * is not that of these scores, so the chat's Sources list shows them only when they happen to
 * read in its order (sourceList.ts `shownScores`).
 */
export function fuseRankings(rankings: readonly (readonly PassageSource[])[], weights?: readonly number[]): PassageSource[] {
  const fused = new Map<string, { passage: PassageSource; score: number; first: number }>();
  let order = 0;
  for (const [i, ranking] of rankings.entries()) {
    const weight = weights?.[i] ?? 1;
    ranking.forEach((passage, rank) => {
      const key = passageKey(passage);
      const entry = fused.get(key) ?? { passage, score: 0, first: order++ };
      entry.score += weight / (RRF_K + rank + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.first - b.first).map((e) => e.passage);
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
