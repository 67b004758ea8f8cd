/**
 * OpenAI's attribute filters for a vector store search (`filters` of `POST
 * /v1/vector_stores/{id}/search`), read against a store file's metadata: a comparison
 * `{type: eq|ne|gt|gte|lt|lte|in|nin, key, value}` or a compound `{type: and|or, filters}`.
 * Metadata values are strings. A filter value that is a number compares as a number with every
 * operator, and only with a value written as a plain decimal number ("1.50" equals 1.5; "abc" and
 * "2024-05-01" are not numbers, so they match only `ne` and `nin`); a string compares as text
 * (`gt`/`lt` in text order, so ISO dates order by time); a boolean as "true"/"false". A file
 * without the key matches only `ne` and `nin`.
 */
import { z } from 'zod';
import type { Metadata } from '../../api/documents/schemas';

/** How many compound filters (`and`/`or`) may nest in one another. */
export const MAX_FILTER_DEPTH = 8;
/** How many filters a compound filter, or values an `in`/`nin` list, may hold. */
export const MAX_FILTER_ITEMS = 100;

type Scalar = string | number | boolean;

const VALUE_ERROR = 'A comparison filter needs a value: a string, a number, a boolean or (for in/nin) a list of them.';
const scalar = z.union([z.string(), z.number(), z.boolean()], { error: VALUE_ERROR });

const TYPE_ERROR = 'A filter type must be eq, ne, gt, gte, lt, lte, in or nin, or and/or for a compound filter.';

const comparisonSchema = z
  .looseObject({
    type: z.enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'], { error: TYPE_ERROR }),
    key: z.string({ error: 'A comparison filter needs a key (string).' }).min(1, { error: 'A filter key must not be empty.' }),
    value: z.union(
      [scalar, z.array(scalar).max(MAX_FILTER_ITEMS, { error: `A filter list may hold at most ${MAX_FILTER_ITEMS} values.` })],
      { error: VALUE_ERROR },
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

/** Chosen by `type`, so a comparison missing its value is told so, not that its type is wrong. */
export const attributeFilterSchema: z.ZodType<AttributeFilter> = z.lazy(() =>
  z.discriminatedUnion('type', [compoundSchema, comparisonSchema], { error: TYPE_ERROR }),
);

const compoundSchema = z.looseObject({
  type: z.enum(['and', 'or'], { error: TYPE_ERROR }),
  filters: z
    .array(attributeFilterSchema, { error: 'A compound filter needs filters: a list of filters.' })
    .min(1, { error: 'A compound filter needs at least one filter.' })
    .max(MAX_FILTER_ITEMS, { error: `A compound filter may hold at most ${MAX_FILTER_ITEMS} filters.` }),
});

/**
 * How many compound filters nest in `value` (a comparison is 0, `and` of comparisons 1), counted
 * before parsing so a hostile body does not recurse far: it stops counting past `limit`.
 */
export function filterDepth(value: unknown, limit = MAX_FILTER_DEPTH + 1): number {
  if (limit <= 0 || value === null || typeof value !== 'object') return 0;
  const inner = (value as { filters?: unknown }).filters;
  if (!Array.isArray(inner)) return 0;
  let deepest = 0;
  for (const item of inner) deepest = Math.max(deepest, filterDepth(item, limit - 1));
  return 1 + deepest;
}

/** A metadata value written as a plain decimal number ("42", "-1.50", ".5"), as a number. */
function decimal(text: string): number | undefined {
  return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text.trim()) ? Number(text) : undefined;
}

/** How `have` (a metadata value) orders against `want`, or undefined when they do not compare (a number against other text). */
function order(have: string, want: Scalar): number | undefined {
  if (typeof want === 'number') {
    const number = decimal(have);
    return number === undefined ? undefined : Math.sign(number - want);
  }
  const text = String(want);
  return have < text ? -1 : have > text ? 1 : 0;
}

/** Whether a store file's metadata passes the filter. */
export function matchesFilter(filter: AttributeFilter, metadata: Metadata): boolean {
  if (filter.type === 'and') return (filter as CompoundFilter).filters.every((f) => matchesFilter(f, metadata));
  if (filter.type === 'or') return (filter as CompoundFilter).filters.some((f) => matchesFilter(f, metadata));
  const { type, key, value } = filter as ComparisonFilter;
  const have = Object.hasOwn(metadata, key) ? metadata[key] : undefined;
  const equalToAny = () => have !== undefined && (Array.isArray(value) ? value : [value]).some((want) => order(have, want) === 0);
  switch (type) {
    case 'eq':
    case 'in':
      return equalToAny();
    case 'ne':
    case 'nin':
      return !equalToAny();
    default: {
      if (have === undefined || Array.isArray(value)) return false;
      const sign = order(have, value);
      if (sign === undefined) return false;
      return type === 'gt' ? sign > 0 : type === 'gte' ? sign >= 0 : type === 'lt' ? sign < 0 : sign <= 0;
    }
  }
}
