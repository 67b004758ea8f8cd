/** Cursor pagination over `{data, first_id, last_id, has_more}` lists, in either direction. */
import type { CallOptions } from './options';

export interface ListParams {
  after?: string;
  before?: string;
  limit?: number;
  order?: 'asc' | 'desc';
}

export interface ListPage<T> {
  data: T[];
  /** From `first_id`, or the first item's id when the service sends null. */
  firstId: string | null;
  /** From `last_id`, or the last item's id when the service sends null. */
  lastId: string | null;
  hasMore: boolean;
  /** The response as received (unknown fields kept). */
  raw: unknown;
}

export interface Paginator<T> extends AsyncIterable<T> {
  pages(): AsyncIterable<ListPage<T>>;
}

export function toListPage<T extends { id?: string }>(envelope: {
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}): ListPage<T> {
  const { data } = envelope;
  return {
    data,
    firstId: envelope.first_id ?? data[0]?.id ?? null,
    lastId: envelope.last_id ?? data[data.length - 1]?.id ?? null,
    hasMore: envelope.has_more,
    raw: envelope,
  };
}

/**
 * Walks pages from `params`: forwards with `after = lastId`, or backwards with
 * `before = firstId` when the caller started with `before`. Stops when `has_more` is false,
 * a page is empty, or a page ends at a cursor already followed (a server that ignores the cursor
 * or goes round, which would otherwise loop forever): that page is not yielded again.
 */
export function paginate<T>(
  fetchPage: (params: ListParams, options: CallOptions) => Promise<ListPage<T>>,
  params: ListParams = {},
  options: CallOptions = {},
  onStuck?: (cursor: string) => void,
): Paginator<T> {
  const backwards = params.before !== undefined && params.after === undefined;
  async function* pages(): AsyncGenerator<ListPage<T>> {
    let current: ListParams = { ...params };
    const seen = new Set<string>();
    for (;;) {
      const page = await fetchPage(current, options);
      const cursor = backwards ? page.firstId : page.lastId;
      // A page ending at a cursor already followed is one already yielded (the server ignored the
      // cursor, or went round): its items are not handed out twice.
      if (cursor && seen.has(cursor)) {
        onStuck?.(cursor);
        return;
      }
      yield page;
      if (!page.hasMore || page.data.length === 0) return;
      if (!cursor) return;
      seen.add(cursor);
      current = backwards ? { ...params, before: cursor, after: undefined } : { ...params, after: cursor, before: undefined };
    }
  }
  return {
    pages,
    [Symbol.asyncIterator]: () => itemsOf(pages()),
  };
}

/**
 * The items of every page, one `next()` each. Hand-written because `yield*` over a page inside an
 * async generator costs several promise turns per item; here an item of a page already received is
 * one resolved promise.
 */
function itemsOf<T>(pages: AsyncGenerator<ListPage<T>>): AsyncIterator<T> {
  let items: readonly T[] = [];
  let index = 0;
  let done = false;
  let pending: Promise<IteratorResult<T>> | undefined;
  const next = (): Promise<IteratorResult<T>> => {
    if (index < items.length) return Promise.resolve({ done: false, value: items[index++]! });
    if (done) return Promise.resolve({ done: true, value: undefined });
    // Overlapping calls (a hand-driven caller) wait for the page being fetched.
    if (pending) return pending.then(next, next);
    pending = pages.next().then(
      (result) => {
        pending = undefined;
        if (result.done) {
          done = true;
          items = [];
        } else {
          items = result.value.data;
          index = 0;
        }
        return next();
      },
      (error: unknown) => {
        pending = undefined;
        done = true;
        throw error;
      },
    );
    return pending;
  };
  return {
    next,
    async return(): Promise<IteratorResult<T>> {
      done = true;
      items = [];
      await pages.return(undefined);
      return { done: true, value: undefined };
    },
  };
}
