/**
 * Search-as-you-type for the quick pick: debounced, one request in flight, the previous one
 * aborted as soon as the query changes, and a result only ever shown for the query it answers.
 * A 429 waits as long as the service asks and retries the same query. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { realTimers, type Timers } from '../../common/timers';
import { makeSnippet } from '../../chatCore/snippet';
import { shapeResults } from '../../chatCore/resultShaping';

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
 * The results the quick pick lists, best first as the service ranked them: one row per passage,
 * none far below the best (see `shapeResults`). `hidden` counts the rows left out for their score.
 */
export function shownResults<T extends { file_id: string; content: string; score?: number }>(
  data: readonly T[],
  query?: string,
): { shown: T[]; hidden: number } {
  return shapeResults(
    data,
    (item) => ({ fileId: item.file_id, content: item.content, ...(item.score === undefined ? {} : { score: item.score }) }),
    query,
  );
}
