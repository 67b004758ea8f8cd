/**
 * The search query of a chat turn, standing on its own: a follow-up such as "and what are its
 * limits?" is searched together with the subject of the conversation. With a language model, a
 * short bounded request rewrites the follow-up (cancellable, with its own time budget, cached per
 * turn); without one, or when the request fails, DocChat's own method (`followUpQuery`) searches
 * the message with and without the conversation's subject and the previous answer's words, and
 * the rankings are fused (grounding.ts). No `vscode` import.
 */
import { namesItsSubject } from '../common/terms';
import type { PromptMessage } from './promptBuilder';
import { contentWords, looksEnglish, termSet } from './queryTerms';

export { looksEnglish } from './queryTerms';

/** A message of the conversation, as the query rule reads it. */
export interface QueryTurn {
  role: 'user' | 'assistant';
  content: string;
  /** On an answer: what its grounding searched for. */
  searchQuery?: string;
  /** On an answer: what it cited (the passages of a store name their file). */
  sources?: readonly { kind: string; storeId?: string; fileId?: string }[];
  /** On an answer grounded in vector stores: the stores its grounding searched. */
  storeIds?: readonly string[];
}

/**
 * The conversation as the query of a turn grounded in `storeIds` reads it: the turns after the
 * last answer grounded in other stores. When the chat is switched to another store, what the
 * conversation was about in the old one ("the patient's diagnosis") is not the subject of the
 * new one ("What is in the spreadsheet?"), so nothing of it is carried into a query, and the
 * old answers' words and citations no longer count. Answers that record no stores (an earlier
 * version's, a tool's) change nothing.
 */
export function sinceStoresChanged<T extends QueryTurn>(history: readonly T[], storeIds: readonly string[]): readonly T[] {
  const current = new Set(storeIds);
  for (let i = history.length - 1; i >= 0; i--) {
    const searched = history[i]!.storeIds;
    if (history[i]!.role !== 'assistant' || searched === undefined) continue;
    const same = searched.length === current.size && searched.every((id) => current.has(id));
    if (!same) return history.slice(i + 1);
  }
  return history;
}

/** What a turn searched for and how that query was made. */
export interface SearchQuery {
  text: string;
  /** `question`: the message as it stands; `rule`: the deterministic rule; `model`: the rewrite request. */
  by: 'question' | 'rule' | 'model';
  /** For `rule`: the searches that go with the query (see `followUpQuery`). */
  followUp?: FollowUpSearch;
}

/** A follow-up's searches besides its query: the message as written, and the message with what the previous answer was about. */
export interface FollowUpSearch {
  message: string;
  /** The message followed by the distinctive words of the previous answer (`answerWords`). */
  withAnswer?: string;
}

/** The longest query the rewrite may return; anything longer is not a query. */
export const MAX_REWRITTEN_QUERY = 300;
/** The rewrite request never holds the answer up longer than this. */
export const REWRITE_BUDGET_MS = 2500;
/** At most this many subject words are carried into a follow-up. */
const MAX_CARRIED_WORDS = 8;
/** At most this many words of the previous answer are searched with a follow-up. */
const MAX_ANSWER_WORDS = 30;

const REFERRING =
  /(?:^|[^\p{L}\p{N}])(it|its|it's|they|them|their|theirs|this|that|these|those|he|she|him|her|his|hers|there|one|ones|former|latter|above|previous|earlier|mentioned|same|other|else)(?=$|[^\p{L}\p{N}])/iu;
const OPENING =
  /^\s*(and|but|or|so|also|then|what about|how about|what else|same|why|why not|how so|more|plus|versus|vs\.?)(?=$|[^\p{L}])/iu;
/** A message with this few distinctive words is taken as elliptical ("On Windows?"); two ("Which port does Ollama use?") can be a question of its own. */
const ELLIPTICAL_WORDS = 1;

/** True when the message has too few words of its own to name its subject, and names no file or quoted identifier (`namesItsSubject`). */
function elliptical(question: string): boolean {
  return contentWords(question).length <= ELLIPTICAL_WORDS && !namesItsSubject(question);
}

/** True when the message leans on the conversation: it refers back, opens with a connective, or is elliptical. */
export function isFollowUp(question: string): boolean {
  return REFERRING.test(question) || OPENING.test(question) || elliptical(question);
}

/** A name in the message: an acronym ("WACC"), a number, a capitalised word after the first ("the Arizona Cardinals"). */
const NAME = /(?:^|[^\p{L}\p{N}])(?:\p{Lu}{2,}|\p{N}{2,})(?=$|[^\p{L}\p{N}])|[^.?!\s]\s+\p{Lu}\p{Ll}+/u;

/** Whether `question` names a subject of its own, given the messages that hold the conversation's subject so far. */
function ownSubject(subject: readonly string[], question: string): boolean {
  if (subject.length === 0) return true;
  if (!looksEnglish(question) || REFERRING.test(question) || OPENING.test(question)) return false;
  if (NAME.test(question.trim()) || namesItsSubject(question)) return true;
  if (contentWords(question).length <= ELLIPTICAL_WORDS) return false;
  const own = termSet(question);
  return subject.some((message) => [...termSet(message)].some((term) => own.has(term)));
}

/**
 * Where the conversation's subject is read after `history`: the previous message, and, unless
 * that one named a subject of its own, the latest earlier message that did (the topic a run of
 * follow-ups leans on). Two messages at most, taken as the user wrote them (never the queries
 * made from them), so the words carried into a query never pile up from turn to turn.
 */
export function subjectMessages(history: readonly QueryTurn[]): string[] {
  let subject: string[] = [];
  let topic: string | undefined;
  for (const turn of history) {
    if (turn.role !== 'user') continue;
    if (ownSubject(subject, turn.content)) topic = turn.content;
    subject = topic === undefined || topic === turn.content ? [turn.content] : [turn.content, topic];
  }
  return subject;
}

/**
 * True when the message names a subject of its own, so nothing of the conversation is carried
 * into its query: the first message, or an English message with no follow-up marker (no pronoun
 * referring back, no opening connective) that names something ("What is WACC?", "Do the Arizona
 * Cardinals play abroad?", "What is in budget.xlsx?", `namesItsSubject`) or names the conversation's subject again (shares a distinctive word
 * with `subjectMessages`). A message in another language, or one that changes the subject
 * without naming it ("Which ports are probed?"), does not.
 */
export function namesOwnSubject(history: readonly QueryTurn[], question: string): boolean {
  return ownSubject(subjectMessages(history), question);
}

/** True when the message surely stands on its own after `history`, so no rewrite is needed (`namesOwnSubject`). */
export function standsAlone(history: readonly QueryTurn[], question: string): boolean {
  return namesOwnSubject(history, question);
}

/** The words of `sources` the message does not already have, in order, each term once, at most `max`. */
function carriedWords(sources: readonly string[], question: string, max: number): string[] {
  const present = termSet(question);
  const carried: string[] = [];
  for (const source of sources) {
    for (const word of contentWords(source)) {
      const [term] = termSet(word);
      if (term === undefined || present.has(term)) continue;
      present.add(term);
      carried.push(word);
    }
  }
  return carried.slice(0, max);
}

/**
 * The deterministic rule on one earlier query: a follow-up is searched with the distinctive words
 * of `previousQuery` that it does not already contain; any other message as it stands.
 */
export function ruleQuery(previousQuery: string | undefined, question: string): string {
  const trimmed = question.trim();
  if (!previousQuery || !isFollowUp(trimmed)) return trimmed;
  const kept = carriedWords([previousQuery], trimmed, MAX_CARRIED_WORDS);
  return kept.length ? `${trimmed} ${kept.join(' ')}` : trimmed;
}

/** The distinctive words of the previous answer the message does not already have: what the answer was about. */
export function answerWords(history: readonly QueryTurn[], question: string): string[] {
  const answer = [...history].reverse().find((turn) => turn.role === 'assistant');
  return answer ? carriedWords([answer.content], question, MAX_ANSWER_WORDS) : [];
}

/** The passages of a store the previous answer cited, as the files they come from. */
export function citedFiles(history: readonly QueryTurn[]): { storeId: string; fileId: string }[] {
  const answer = [...history].reverse().find((turn) => turn.role === 'assistant');
  const cited = new Map<string, { storeId: string; fileId: string }>();
  for (const source of answer?.sources ?? []) {
    if (source.kind === 'passage' && source.storeId && source.fileId) {
      cited.set(`${source.storeId}\u0000${source.fileId}`, { storeId: source.storeId, fileId: source.fileId });
    }
  }
  return [...cited.values()];
}

/** True when an earlier answer cited passages of a store: the documents have shown that they cover the conversation's subject. */
export function conversationGrounded(history: readonly QueryTurn[]): boolean {
  return history.some((turn) => turn.role === 'assistant' && citedFiles([turn]).length > 0);
}

/**
 * DocChat's follow-up method without a model. A message that does not lean on the conversation
 * (`isFollowUp`), names a subject of its own, or is the first one, is searched as it stands:
 * nothing of the conversation is carried into it. In a conversation whose answers cited
 * documents, such a later message is also searched with the previous answer's words and the two
 * rankings fused: most later questions stay with what the conversation is about even when they
 * name it or lean on nothing, and fusion keeps the message's own best hits first when they do
 * not (the message's ranking counts twice, the answer's once: `followUpSearches` in grounding.ts).
 * Any other message is searched three ways and the rankings fused, each once (see grounding.ts):
 * as it stands; with the subject of the conversation after it (the words of the previous message
 * and of the topic before it, `subjectMessages`, never the queries made from them); and with the
 * words of the previous answer, what the conversation was last about. Carried words are never
 * mixed into the message's own search, so the message's best hit stays among the fused ones.
 * `text`, the second, is what "Searched for" shows.
 */
export function followUpQuery(history: readonly QueryTurn[], question: string): SearchQuery {
  const trimmed = question.trim();
  const grounded = history.some((turn) => turn.role === 'assistant' && citedFiles([turn]).length > 0);
  if (!isFollowUp(trimmed) || namesOwnSubject(history, trimmed)) {
    // Nothing is carried into its query; in a conversation the documents answered, the previous
    // answer's words are searched with it too and fused below the message's own ranking.
    const answer = grounded ? answerWords(history, trimmed) : [];
    return {
      text: trimmed,
      by: 'question',
      ...(answer.length ? { followUp: { message: trimmed, withAnswer: `${trimmed} ${answer.join(' ')}` } } : {}),
    };
  }
  const carried = carriedWords(subjectMessages(history), trimmed, MAX_CARRIED_WORDS);
  const text = carried.length ? `${trimmed} ${carried.join(' ')}` : trimmed;
  const answer = answerWords(history, trimmed);
  const followUp: FollowUpSearch = { message: trimmed, ...(answer.length ? { withAnswer: `${trimmed} ${answer.join(' ')}` } : {}) };
  return { text, by: 'rule', followUp };
}

// ---------------------------------------------------------------- the rewrite request

/** One short request to a language model; resolves with its whole reply. */
export interface RewriteModel {
  /** Identifies the model in the cache key. */
  readonly id: string;
  complete(messages: PromptMessage[], signal: AbortSignal): Promise<string>;
}

const REWRITE_INSTRUCTIONS =
  'You turn the last message of a conversation into a search query for a document search. Resolve pronouns and omissions from the conversation so the query stands on its own. Keep names, identifiers and technical terms exactly as written. Reply with the query only: one line, at most 25 words, no quotes, no explanation. If the last message already stands on its own, repeat it.';
const TRANSCRIPT_MESSAGES = 6;
const TRANSCRIPT_CHARS_PER_MESSAGE = 600;

/** The rewrite request's messages: instructions, then the recent conversation and the last message. */
export function rewritePrompt(history: readonly QueryTurn[], question: string): PromptMessage[] {
  const recent = history.filter((m) => m.content.trim() !== '').slice(-TRANSCRIPT_MESSAGES);
  const transcript = recent
    .map((m) => {
      const text = m.content.trim().replace(/\s+/g, ' ');
      const short = text.length > TRANSCRIPT_CHARS_PER_MESSAGE ? `${text.slice(0, TRANSCRIPT_CHARS_PER_MESSAGE)}…` : text;
      return `${m.role === 'user' ? 'User' : 'Assistant'}: ${short}`;
    })
    .join('\n');
  return [
    { role: 'system', content: REWRITE_INSTRUCTIONS },
    { role: 'user', content: `Conversation:\n${transcript}\n\nLast message: ${question.trim()}\n\nSearch query:` },
  ];
}

/** The query in a model's reply, or undefined when the reply is not one. */
export function cleanRewrite(reply: string): string | undefined {
  const line = reply
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return undefined;
  const unquote = (t: string) => t.replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, '').trim();
  const text = unquote(unquote(line).replace(/^(search\s+query|query)\s*:\s*/i, ''))
    .replace(/\s+/g, ' ')
    .trim();
  return text && text.length <= MAX_REWRITTEN_QUERY ? text : undefined;
}

export interface QueryRewriterOptions {
  budgetMs?: number;
  /** Turns remembered (oldest forgotten first). */
  cacheSize?: number;
  /** Where a failed rewrite is reported (the log): the user is not interrupted. */
  log?: (message: string) => void;
}

/**
 * Makes each turn's search query. One per chat surface; its cache makes a regenerated answer (the
 * same turn again) search for the same thing without asking the model again.
 */
export class QueryRewriter {
  private readonly cache = new Map<string, string>();
  private readonly budgetMs: number;
  private readonly cacheSize: number;

  constructor(private readonly options: QueryRewriterOptions = {}) {
    this.budgetMs = options.budgetMs ?? REWRITE_BUDGET_MS;
    this.cacheSize = options.cacheSize ?? 200;
  }

  /**
   * The query for `question` after `history`. Without earlier questions, or when the question
   * surely stands on its own (`standsAlone`), the question itself, without asking the model.
   * With `model`, its rewrite, bounded by the budget and `signal`; on any failure, timeout or
   * cancellation the deterministic rule's query. Never rejects.
   */
  async queryFor(
    history: readonly QueryTurn[],
    question: string,
    model: RewriteModel | undefined,
    signal?: AbortSignal,
  ): Promise<SearchQuery> {
    const rule = followUpQuery(history, question);
    if (!model || signal?.aborted || standsAlone(history, question)) return rule;
    const key = JSON.stringify([model.id, history.map((m) => [m.role, m.content]), question.trim()]);
    const cached = this.cache.get(key);
    if (cached !== undefined) return { text: cached, by: 'model' };
    const rewritten = await this.request(model, rewritePrompt(history, question), signal);
    if (rewritten === undefined) return rule;
    this.remember(key, rewritten);
    return { text: rewritten, by: 'model' };
  }

  private async request(model: RewriteModel, messages: PromptMessage[], signal: AbortSignal | undefined): Promise<string | undefined> {
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => {
        // Settled before the abort, so the race reports the timeout rather than a cancellation.
        resolve('timeout');
        abort.abort();
      }, this.budgetMs);
    });
    const cancelled = new Promise<'cancelled'>((resolve) =>
      abort.signal.addEventListener('abort', () => resolve('cancelled'), { once: true }),
    );
    try {
      const reply = await Promise.race([model.complete(messages, abort.signal), timeout, cancelled]);
      if (reply === 'timeout') {
        this.options.log?.(`Query rewrite took longer than ${this.budgetMs} ms; searched with the rule's query.`);
        return undefined;
      }
      if (reply === 'cancelled') return undefined;
      const query = cleanRewrite(reply);
      if (query === undefined) this.options.log?.("Query rewrite returned no usable query; searched with the rule's query.");
      return query;
    } catch (error) {
      if (!abort.signal.aborted) {
        this.options.log?.(
          `Query rewrite failed (${error instanceof Error ? error.message : String(error)}); searched with the rule's query.`,
        );
      }
      return undefined;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      abort.abort();
    }
  }

  private remember(key: string, query: string): void {
    this.cache.delete(key);
    this.cache.set(key, query);
    while (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** The part of a gateway a rewrite uses: one streamed chat completion, gathered. */
export interface RewriteGateway {
  streamChatCompletion(
    request: { model: string; messages: PromptMessage[]; temperature?: number; max_completion_tokens?: number; stream?: boolean },
    options?: { signal?: AbortSignal },
  ): AsyncIterable<{ content: string }>;
}

/** A rewrite model on the gateway's chat completions endpoint: temperature 0, a few tokens. */
export function gatewayRewriteModel(gateway: RewriteGateway, model: string): RewriteModel {
  return {
    id: model,
    async complete(messages, signal) {
      let text = '';
      for await (const part of gateway.streamChatCompletion(
        { model, messages, temperature: 0, max_completion_tokens: 64, stream: true },
        { signal },
      )) {
        text += part.content;
        // The query is one line: stop reading once it is complete.
        if (/\S[^\n]*\n/.test(text)) break;
      }
      return text;
    },
  };
}
