/**
 * OpenAI-style cursor pagination over records kept in creation order:
 * `after` / `before` name an object of the list, `order` sorts by created_at (ties by creation).
 */
import { LIMITS } from '../../api/documents/schemas';
import { invalid } from '../http/errors';
import type { Ordered } from './state';

export interface ListQuery {
  after?: string;
  before?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export interface Page<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

const KNOWN = ['after', 'before', 'limit', 'order'];

export function parseListQuery(query: URLSearchParams, extra: readonly string[] = []): ListQuery {
  const known = [...KNOWN, ...extra];
  for (const key of query.keys()) {
    if (!known.includes(key)) throw invalid(key, `Unknown query parameter "${key}"; use ${known.join(', ')}.`, 'unknown_parameter');
  }
  const { min, max, default: fallback } = LIMITS.listLimit;
  let limit: number = fallback;
  const rawLimit = query.get('limit');
  if (rawLimit !== null) {
    limit = /^-?\d+$/.test(rawLimit.trim()) ? Number(rawLimit) : NaN;
    if (!Number.isInteger(limit) || limit < min || limit > max) {
      throw invalid(
        'limit',
        `limit must be a whole number from ${min} to ${max.toLocaleString('en-US')} (got "${rawLimit}").`,
        'out_of_range',
      );
    }
  }
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw invalid('order', `order must be "asc" or "desc" (got "${order}").`, 'invalid_value');
  }
  const cursor = (name: 'after' | 'before') => {
    const value = query.get(name);
    if (value === null || value === '' || value === 'null') return undefined;
    return value;
  };
  return { after: cursor('after'), before: cursor('before'), limit, order };
}

/**
 * `items` are in creation order. `positionOf` resolves a cursor id to its ordinal, also for
 * objects deleted since the previous page was fetched.
 */
export function paginate<R extends { id: string }, T>(
  items: Ordered<R>[],
  query: ListQuery,
  positionOf: (id: string) => number | undefined,
  toObject: (record: R) => T,
): Page<T> {
  const ordinalOf = (name: 'after' | 'before', id: string) => {
    const ordinal = positionOf(id);
    if (ordinal === undefined) throw invalid(name, `The ${name} cursor "${id}" is not an object of this list.`, 'invalid_cursor');
    return ordinal;
  };
  const sign = query.order === 'asc' ? 1 : -1;
  let selected = query.order === 'asc' ? items : [...items].reverse();
  if (query.after !== undefined) {
    const after = ordinalOf('after', query.after) * sign;
    selected = selected.filter((item) => item.ordinal * sign > after);
  }
  let hasMore: boolean;
  let page: Ordered<R>[];
  if (query.before !== undefined) {
    const before = ordinalOf('before', query.before) * sign;
    selected = selected.filter((item) => item.ordinal * sign < before);
    // Walking backwards: the page is the `limit` items right before the cursor.
    page = selected.slice(Math.max(0, selected.length - query.limit));
    hasMore = selected.length > query.limit;
  } else {
    page = selected.slice(0, query.limit);
    hasMore = selected.length > query.limit;
  }
  const data = page.map((item) => toObject(item.record));
  return {
    object: 'list',
    data,
    first_id: page[0]?.record.id ?? null,
    last_id: page[page.length - 1]?.record.id ?? null,
    has_more: hasMore,
  };
}
