/**
 * Search-as-you-type for the quick pick: debounced, one request in flight, the previous one
 * aborted as soon as the query changes, and a result only ever shown for the query it answers.
 * A 429 waits as long as the service asks and retries the same query. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { realTimers, type Timers } from '../../common/timers';
import { aboveFloor, RELATIVE_FLOOR } from '../../chatCore/relevance';

export type SearchState<R> =
  | { kind: 'idle' }
  | { kind: 'pending'; query: string }
  | { kind: 'loading'; query: string }
  | { kind: 'waiting'; query: string; waitMs: number }
  | { kind: 'results'; query: string; result: R }
  | { kind: 'error'; query: string; error: unknown };

export interface SearchControllerOptions<R> {
  search(query: string, signal: AbortSignal): Promise<R>;
  onState(state: SearchState<R>): void;
  debounceMs?: number;
  timers?: Timers;
  /** The wait a rate-limit error asks for, or undefined when the error is something else. */
  retryAfterMs?(error: unknown): number | undefined;
}

export const DEFAULT_DEBOUNCE_MS = 250;

export class SearchController<R> {
  private query = '';
  private timer: unknown;
  private inFlight: AbortController | undefined;
  private generation = 0;
  private disposed = false;
  private readonly timers: Timers;
  private readonly debounceMs: number;

  constructor(private readonly options: SearchControllerOptions<R>) {
    this.timers = options.timers ?? realTimers;
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  }

  get currentQuery(): string {
    return this.query;
  }

  /** Called on every keystroke. */
  setQuery(text: string): void {
    const query = text.trim();
    if (query === this.query || this.disposed) {
      return;
    }
    this.query = query;
    this.cancelPending();
    if (!query) {
      this.options.onState({ kind: 'idle' });
      return;
    }
    this.options.onState({ kind: 'pending', query });
    const generation = this.generation;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      void this.run(query, generation);
    }, this.debounceMs);
  }

  /** Runs the current query again at once (e.g. after the file restriction changed). */
  rerun(): void {
    const query = this.query;
    this.cancelPending();
    if (query) {
      void this.run(query, this.generation);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.cancelPending();
  }

  /** Aborts the request in flight and drops any scheduled one; later answers are ignored. */
  private cancelPending(): void {
    this.generation++;
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.inFlight?.abort();
    this.inFlight = undefined;
  }

  private async run(query: string, generation: number): Promise<void> {
    if (generation !== this.generation || this.disposed) {
      return;
    }
    const controller = new AbortController();
    this.inFlight = controller;
    this.options.onState({ kind: 'loading', query });
    try {
      const result = await this.options.search(query, controller.signal);
      if (generation === this.generation && !controller.signal.aborted) {
        this.options.onState({ kind: 'results', query, result });
      }
    } catch (error) {
      if (generation !== this.generation || controller.signal.aborted) {
        return;
      }
      const waitMs = this.options.retryAfterMs?.(error);
      if (waitMs !== undefined) {
        this.options.onState({ kind: 'waiting', query, waitMs });
        this.timer = this.timers.setTimeout(() => {
          this.timer = undefined;
          void this.run(query, generation);
        }, waitMs);
        return;
      }
      this.options.onState({ kind: 'error', query, error });
    } finally {
      if (this.inFlight === controller) {
        this.inFlight = undefined;
      }
    }
  }
}

/**
 * The search request the quick pick sends for a query: at most `maxResults` passages, only from
 * the chosen files when the search is restricted to some.
 */
export function searchRequest(
  query: string,
  maxResults: number,
  restriction: readonly { id: string }[],
): { query: string; max_num_results: number; file_ids?: string[] } {
  return { query, max_num_results: maxResults, ...(restriction.length ? { file_ids: restriction.map((f) => f.id) } : {}) };
}

export interface Snippet {
  text: string;
  /** Offsets of the match inside `text`, when one was found. */
  match?: { start: number; end: number };
}

/** Words of a query worth looking for in a passage (longest first). */
export function queryTerms(query: string): string[] {
  const terms = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((t) => t.length >= 2);
  return [...new Set(terms)].sort((a, b) => b.length - a.length);
}

/** A one-line excerpt of the passage around the first match of the query (whitespace collapsed). */
export function makeSnippet(content: string, query: string, width = 160): Snippet {
  const text = content.replace(/\s+/g, ' ').trim();
  const lower = text.toLowerCase();
  let at = -1;
  let length = 0;
  for (const term of queryTerms(query)) {
    const i = lower.indexOf(term);
    if (i >= 0) {
      at = i;
      length = term.length;
      break;
    }
  }
  if (at < 0) {
    return { text: text.length > width ? `${text.slice(0, width - 1)}…` : text };
  }
  const start = Math.max(0, Math.min(at - Math.floor((width - length) / 3), text.length - width));
  const end = Math.min(text.length, start + width);
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  const excerpt = `${prefix}${text.slice(start, end)}${suffix}`;
  const matchStart = prefix.length + at - start;
  return { text: excerpt, match: { start: matchStart, end: matchStart + length } };
}

/** "0.87" for a 0–1 score. */
export function formatScore(score: number): string {
  return Number.isFinite(score) ? score.toFixed(2) : '–';
}

/** How a search result shows in the quick pick. */
export interface ResultRow {
  /** Empty: the row starts with the file icon (see `presentResult`). */
  label: string;
  description: string;
  detail: string;
}

/**
 * A result row. VS Code 1.100's quick pick moves items whose label matches the typed text to the
 * top (`sortByLabel` is proposed API only), but results must stay in the service's score order.
 * So the label is left empty (the file icon leads the row) and the file name goes in the
 * description, which the picker does not match (`matchOnDescription` is off): no item ever
 * matches, the order stays as given, and screen readers hear plain text (label, description and
 * detail joined), with no invisible characters.
 */
export function presentResult(filename: string, score: number, content: string, query: string): ResultRow {
  return { label: '', description: l10n.t('{0} · score {1}', filename, formatScore(score)), detail: makeSnippet(content, query).text };
}

/**
 * The results the quick pick lists, best first as the service ranked them: one row per passage
 * (the same text of the same file, returned twice, is one row; so are two overlapping passages of
 * one file whose rows would read the same, the excerpt around the match of `query` being the
 * same), and only those that score at least RELATIVE_FLOOR of the best score of this search (the
 * rule that grounds the chat, see relevance.ts): the service's scores have no stated scale, so the
 * floor is relative, never a fixed number. `hidden` counts the rows left out for their score.
 */
export function shownResults<T extends { file_id: string; content: string; score?: number }>(
  data: readonly T[],
  query?: string,
): { shown: T[]; hidden: number } {
  const seen = new Set<string>();
  const distinct = data.filter((item) => {
    const text = query === undefined ? item.content.replace(/\s+/g, ' ').trim() : makeSnippet(item.content, query).text;
    const key = `${item.file_id}\u0000${text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const shown = aboveFloor(distinct, RELATIVE_FLOOR);
  return { shown, hidden: distinct.length - shown.length };
}
