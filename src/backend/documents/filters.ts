/**
 * OpenAI's attribute filters for a vector store search (`filters` of `POST
 * /v1/vector_stores/{id}/search`), read against a store file's metadata: a comparison
 * `{type: eq|ne|gt|gte|lt|lte|in|nin, key, value}` or a compound `{type: and|or, filters}`.
 * Metadata values are strings; a number or boolean compares by its text for eq/ne/in/nin, and
 * gt/gte/lt/lte compare as numbers when both sides are numbers, else as text (ISO dates order
 * as text). A file without the key matches only `ne` and `nin`.
 */
import { z } from 'zod';
import type { Metadata } from '../../api/documents/schemas';

/** How deep compound filters may nest. */
export const MAX_FILTER_DEPTH = 8;
/** How many filters a compound filter, or values an `in`/`nin` list, may hold. */
export const MAX_FILTER_ITEMS = 100;

const scalar = z.union([z.string(), z.number(), z.boolean()], { error: 'A filter value must be a string, a number or a boolean.' });

const TYPE_ERROR = 'A filter type must be eq, ne, gt, gte, lt, lte, in or nin, or and/or for a compound filter.';

const comparisonSchema = z
  .looseObject({
    type: z.enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'], { error: TYPE_ERROR }),
    key: z.string({ error: 'A comparison filter needs a key (string).' }).min(1, { error: 'A filter key must not be empty.' }),
    value: z.union(
      [scalar, z.array(scalar).max(MAX_FILTER_ITEMS, { error: `A filter list may hold at most ${MAX_FILTER_ITEMS} values.` })],
      {
        error: 'A filter value must be a string, a number, a boolean or (for in/nin) a list of them.',
      },
    ),
  })
  .refine((filter) => !Array.isArray(filter.value) || filter.type === 'in' || filter.type === 'nin', {
    error: 'Only an "in" or "nin" filter compares with a list of values.',
    path: ['value'],
  });

export type ComparisonFilter = z.infer<typeof comparisonSchema>;
export interface CompoundFilter {
  type: 'and' | 'or';
  filters: AttributeFilter[];
}
export type AttributeFilter = ComparisonFilter | CompoundFilter;

export const attributeFilterSchema: z.ZodType<AttributeFilter> = z.lazy(() =>
  z.union([compoundSchema, comparisonSchema], {
    error: 'filters must be a comparison {type, key, value} or a compound filter {type: "and" | "or", filters}.',
  }),
);

const compoundSchema: z.ZodType<CompoundFilter> = z.looseObject({
  type: z.enum(['and', 'or'], { error: TYPE_ERROR }),
  filters: z
    .array(attributeFilterSchema, { error: 'A compound filter needs filters: a list of filters.' })
    .min(1, { error: 'A compound filter needs at least one filter.' })
    .max(MAX_FILTER_ITEMS, { error: `A compound filter may hold at most ${MAX_FILTER_ITEMS} filters.` }),
}) as unknown as z.ZodType<CompoundFilter>;

/** How deep `value` nests compound filters (checked before parsing, so a hostile body does not recurse far). */
export function filterDepth(value: unknown, limit = MAX_FILTER_DEPTH + 1): number {
  if (limit <= 0 || value === null || typeof value !== 'object') return 0;
  const inner = (value as { filters?: unknown }).filters;
  if (!Array.isArray(inner)) return 1;
  let deepest = 0;
  for (const item of inner) deepest = Math.max(deepest, filterDepth(item, limit - 1));
  return 1 + deepest;
}

const asNumber = (value: string | number | boolean): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
};

function compare(have: string, want: string | number | boolean): number {
  const a = asNumber(have);
  const b = asNumber(want);
  if (a !== undefined && b !== undefined) return a - b;
  const text = String(want);
  return have < text ? -1 : have > text ? 1 : 0;
}

/** Whether a store file's metadata passes the filter. */
export function matchesFilter(filter: AttributeFilter, metadata: Metadata): boolean {
  if (filter.type === 'and') return (filter as CompoundFilter).filters.every((f) => matchesFilter(f, metadata));
  if (filter.type === 'or') return (filter as CompoundFilter).filters.some((f) => matchesFilter(f, metadata));
  const { type, key, value } = filter as ComparisonFilter;
  const have = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
  const values = (Array.isArray(value) ? value : [value]).map(String);
  if (have === undefined) return type === 'ne' || type === 'nin';
  switch (type) {
    case 'eq':
    case 'in':
      return values.includes(have);
    case 'ne':
    case 'nin':
      return !values.includes(have);
    default: {
      if (Array.isArray(value)) return false;
      const order = compare(have, value);
      return type === 'gt' ? order > 0 : type === 'gte' ? order >= 0 : type === 'lt' ? order < 0 : order <= 0;
    }
  }
}
