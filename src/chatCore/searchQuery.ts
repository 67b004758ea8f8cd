/**
 * The search query of a chat turn, standing on its own: a follow-up such as "and what are its
 * limits?" is searched together with the subject of the conversation. With a language model, a
 * short bounded request rewrites the follow-up (cancellable, with its own time budget, cached per
 * turn); without one, or when the request fails, a deterministic rule carries the subject of the
 * previous turn's query into this one. No `vscode` import.
 */
import type { PromptMessage } from './promptBuilder';
import { contentWords, looksEnglish, termSet } from './queryTerms';

export { looksEnglish } from './queryTerms';

/** A message of the conversation, as the query rule reads it. */
export interface QueryTurn {
  role: 'user' | 'assistant';
  content: string;
  /** On an answer: what its grounding searched for. */
  searchQuery?: string;
}

/** What a turn searched for and how that query was made. */
export interface SearchQuery {
  text: string;
  /** `question`: the message as it stands; `rule`: the deterministic rule; `model`: the rewrite request. */
  by: 'question' | 'rule' | 'model';
}

/** The longest query the rewrite may return; anything longer is not a query. */
export const MAX_REWRITTEN_QUERY = 300;
/** The rewrite request never holds the answer up longer than this. */
export const REWRITE_BUDGET_MS = 2500;
/** At most this many subject words are carried into a follow-up. */
const MAX_CARRIED_WORDS = 8;

const REFERRING =
  /(?:^|[^\p{L}\p{N}])(it|its|it's|they|them|their|theirs|this|that|these|those|he|she|him|her|his|hers|there|one|ones|former|latter|above|previous|earlier|mentioned|same|other|else)(?=$|[^\p{L}\p{N}])/iu;
const OPENING =
  /^\s*(and|but|or|so|also|then|what about|how about|what else|same|why|why not|how so|more|plus|versus|vs\.?)(?=$|[^\p{L}])/iu;
/** A message with this few distinctive words is taken as elliptical ("On Windows?"); two ("Which port does Ollama use?") can be a question of its own. */
const ELLIPTICAL_WORDS = 1;

/** True when the message leans on the conversation: it refers back, opens with a connective, or is elliptical. */
export function isFollowUp(question: string): boolean {
  return REFERRING.test(question) || OPENING.test(question) || contentWords(question).length <= ELLIPTICAL_WORDS;
}

/**
 * True when the message surely stands on its own after `history`, so no rewrite is needed: the
 * first question, or an English message with no follow-up marker (no pronoun referring back, no
 * opening connective, not elliptical) that names the conversation's subject itself (shares a
 * distinctive word with the previous turn's query). A message in another language, or one that
 * changes the subject without naming it again ("Which ports are probed?"), is not sure.
 */
export function standsAlone(history: readonly QueryTurn[], question: string): boolean {
  const previous = previousQuery(history);
  if (previous === undefined) return true;
  if (!looksEnglish(question) || isFollowUp(question)) return false;
  const subject = termSet(previous);
  return [...termSet(question)].some((term) => subject.has(term));
}

/**
 * The deterministic rule: a follow-up is searched with the distinctive words of the previous
 * turn's query that it does not already contain; any other message as it stands.
 */
export function ruleQuery(previousQuery: string | undefined, question: string): string {
  const trimmed = question.trim();
  if (!previousQuery || !isFollowUp(trimmed)) return trimmed;
  const present = termSet(trimmed);
  const carried: string[] = [];
  const seen = new Set<string>();
  for (const word of contentWords(previousQuery)) {
    const [term] = termSet(word);
    if (term === undefined || present.has(term) || seen.has(term)) continue;
    seen.add(term);
    carried.push(word);
  }
  const kept = carried.slice(-MAX_CARRIED_WORDS);
  return kept.length ? `${trimmed} ${kept.join(' ')}` : trimmed;
}

/**
 * The query each earlier question stood for, oldest first: the answer's recorded query when
 * there is one, else the rule applied along the conversation.
 */
export function previousQuery(history: readonly QueryTurn[]): string | undefined {
  let query: string | undefined;
  for (let i = 0; i < history.length; i++) {
    const turn = history[i]!;
    if (turn.role !== 'user') continue;
    const answer = history[i + 1];
    query = answer?.role === 'assistant' && answer.searchQuery ? answer.searchQuery : ruleQuery(query, turn.content);
  }
  return query;
}

/** The rule's query for the turn, and whether it differs from the message. */
export function followUpQuery(history: readonly QueryTurn[], question: string): SearchQuery {
  const text = ruleQuery(previousQuery(history), question);
  return { text, by: text === question.trim() ? 'question' : 'rule' };
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
