/**
 * Wire shapes of the documents service: the single source of truth for types (z.infer), for
 * tolerant response parsing (unknown fields kept, unknown statuses shown as-is) and for the
 * strict request checks the client runs before sending and the embedded backend runs for its 400s.
 */
import * as z from 'zod';
import { charCount, firstProblem } from '../http/validate';

import { DEFAULT_SKIP_OCR_FIELD, LIMITS } from './limits';

export {
  DEFAULT_FILE_IDS_FIELD,
  DEFAULT_SKIP_OCR_FIELD,
  DEFAULT_UPLOAD_PURPOSE,
  DOCUMENTS_RATE_LIMITS,
  type DocumentsOperation,
  LIMITS,
  TERMINAL_FILE_STATUSES,
  VECTOR_STORE_FILE_STATUSES,
} from './limits';

// ---------------------------------------------------------------- requests (strict)

/** "x is required." for a missing field, else `wrongType` (the same sentences the backend answers with). */
const requiredString = (field: string, wrongType: string) =>
  z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? `${field} is required.` : wrongType) });

export const storeNameSchema = requiredString('name', 'The name must be a string.').superRefine((name, ctx) => {
  const { min, max, pattern } = LIMITS.storeName;
  const length = charCount(name);
  if (length < min || length > max) {
    ctx.addIssue({
      code: 'custom',
      message: `The name must be ${min} to ${max} characters long (it has ${length}).`,
      params: { limit: `${min} to ${max} characters`, code: length < min ? 'string_too_short' : 'string_too_long' },
    });
  } else if (!pattern.test(name)) {
    ctx.addIssue({
      code: 'custom',
      message: 'The name may contain only letters, digits, hyphens (-) and underscores (_).',
      params: { limit: 'letters, digits, - and _ only', code: 'invalid_format' },
    });
  }
});

/** Keys a JavaScript object cannot hold as data: a parser drops them, so they are refused by name. */
const RESERVED_METADATA_KEYS = ['__proto__'];

/** Runs on the input, before the record parser drops a reserved key without a word. */
const reservedMetadataKeys = z.unknown().superRefine((value, ctx) => {
  if (!value || typeof value !== 'object') return;
  const key = RESERVED_METADATA_KEYS.find((name) => Object.prototype.hasOwnProperty.call(value, name));
  if (key === undefined) return;
  ctx.addIssue({
    code: 'custom',
    path: [key],
    message: `The metadata key "${key}" is reserved: rename it.`,
    params: { limit: `no key named ${RESERVED_METADATA_KEYS.join(', ')}`, code: 'metadata_key_reserved' },
  });
});

const metadataRecordSchema = z
  .record(z.string(), z.string({ error: 'Metadata values must be strings.' }), {
    error: 'Metadata must be an object of string keys and string values.',
  })
  .superRefine((metadata, ctx) => {
    const { maxPairs, maxKeyLength, maxValueLength } = LIMITS.metadata;
    const keys = Object.keys(metadata);
    if (keys.length > maxPairs) {
      ctx.addIssue({
        code: 'custom',
        message: `Metadata may have at most ${maxPairs} pairs (it has ${keys.length}).`,
        params: { limit: `at most ${maxPairs} pairs`, code: 'metadata_too_many_pairs' },
      });
      return;
    }
    for (const key of keys) {
      if (charCount(key) > maxKeyLength) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `Metadata key "${key.slice(0, 20)}…" is longer than ${maxKeyLength} characters.`,
          params: { limit: `keys at most ${maxKeyLength} characters`, code: 'metadata_key_too_long' },
        });
        return;
      }
      if (charCount(metadata[key]!) > maxValueLength) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `The value of metadata key "${key}" is longer than ${maxValueLength} characters.`,
          params: { limit: `values at most ${maxValueLength} characters`, code: 'metadata_value_too_long' },
        });
        return;
      }
    }
  });
export const metadataSchema = reservedMetadataKeys.pipe(metadataRecordSchema);
export type Metadata = z.infer<typeof metadataSchema>;

const idSchema = (what: string, field = what) =>
  requiredString(field, `The ${what} must be a string.`).min(1, { error: `The ${what} must not be empty.` });

export const createVectorStoreRequestSchema = z.strictObject({
  name: storeNameSchema,
  metadata: metadataSchema.optional(),
});
export type CreateVectorStoreRequest = z.infer<typeof createVectorStoreRequestSchema>;

/** OpenAI's store expiry; the client does not set it, other callers of the service may. */
export const expiresAfterSchema = z.strictObject(
  {
    anchor: z.literal('last_active_at', { error: 'expires_after.anchor must be "last_active_at".' }),
    days: z
      .number({ error: 'expires_after.days must be a number.' })
      .int({ error: 'expires_after.days must be a whole number from 1 to 365.' })
      .min(1, { error: 'expires_after.days must be a whole number from 1 to 365.' })
      .max(365, { error: 'expires_after.days must be a whole number from 1 to 365.' }),
  },
  { error: 'expires_after must be an object {anchor: "last_active_at", days}.' },
);

export const updateMetadataRequestSchema = z.strictObject({ metadata: metadataSchema });

/** What a caller passes to attachFile; the skip-OCR wire field name is a client option. */
export const attachFileRequestSchema = z.strictObject({
  file_id: idSchema('file id', 'file_id'),
  metadata: metadataSchema.optional(),
  skipOcr: z.boolean({ error: 'skipOcr must be true or false.' }).optional(),
});
export type AttachFileRequest = z.infer<typeof attachFileRequestSchema>;

/** The attach body on the wire with the default option name (for servers, e.g. the embedded backend). */
export const attachFileBodySchema = z.strictObject({
  file_id: idSchema('file id', 'file_id'),
  metadata: metadataSchema.optional(),
  [DEFAULT_SKIP_OCR_FIELD]: z.boolean({ error: `${DEFAULT_SKIP_OCR_FIELD} must be true or false.` }).optional(),
});

export const searchRequestSchema = z.strictObject({
  query: requiredString('query', 'The query must be a string.').superRefine((query, ctx) => {
    const length = charCount(query);
    // Only spaces is no query either (the service would have nothing to search for).
    if (length < LIMITS.query.min || !query.trim()) {
      ctx.addIssue({
        code: 'custom',
        message: 'The query must not be empty.',
        params: { limit: 'at least 1 character', code: 'string_too_short' },
      });
    } else if (length > LIMITS.query.max) {
      ctx.addIssue({
        code: 'custom',
        message: `The query may be at most ${LIMITS.query.max.toLocaleString('en-US')} characters long (it has ${length.toLocaleString('en-US')}).`,
        params: { limit: `at most ${LIMITS.query.max} characters`, code: 'string_too_long' },
      });
    }
  }),
  max_num_results: z
    .number({ error: 'max_num_results must be a number.' })
    .int({ error: 'max_num_results must be a whole number.' })
    .min(LIMITS.maxNumResults.min, {
      error: `max_num_results must be between ${LIMITS.maxNumResults.min} and ${LIMITS.maxNumResults.max}.`,
    })
    .max(LIMITS.maxNumResults.max, {
      error: `max_num_results must be between ${LIMITS.maxNumResults.min} and ${LIMITS.maxNumResults.max}.`,
    })
    .optional(),
  file_ids: z
    .array(idSchema('file id'), { error: 'file_ids must be a list of file ids.' })
    .min(1, { error: 'file_ids must name at least one file; leave it out to search every file.' })
    .optional(),
});
export type SearchRequest = z.infer<typeof searchRequestSchema>;

export const listParamsSchema = z.strictObject({
  after: z.string().min(1).optional(),
  before: z.string().min(1).optional(),
  limit: z
    .number({ error: 'limit must be a number.' })
    .int({ error: 'limit must be a whole number.' })
    .min(LIMITS.listLimit.min, { error: `limit must be between ${LIMITS.listLimit.min} and ${LIMITS.listLimit.max}.` })
    .max(LIMITS.listLimit.max, { error: `limit must be between ${LIMITS.listLimit.min} and ${LIMITS.listLimit.max}.` })
    .optional(),
  order: z.enum(['asc', 'desc'], { error: 'order must be "asc" or "desc".' }).optional(),
});
export type ListParams = z.infer<typeof listParamsSchema>;

export const uploadFileRequestSchema = z.strictObject({
  filename: z.string({ error: 'The file name must be a string.' }).min(1, { error: 'The file name must not be empty.' }),
  data: z.instanceof(Uint8Array, { error: 'The file data must be bytes (Uint8Array).' }),
  purpose: z.string().min(1).optional(),
});
export type UploadFileRequest = z.infer<typeof uploadFileRequestSchema>;

/** A message naming the broken limit, or undefined when the name is fine. */
export function validateStoreName(name: unknown): string | undefined {
  return firstProblem(storeNameSchema, name, 'name');
}

/** A message naming the broken limit, or undefined when the metadata is fine. */
export function validateMetadata(metadata: unknown): string | undefined {
  return firstProblem(metadataSchema, metadata, 'metadata');
}

// ---------------------------------------------------------------- responses (tolerant)

/** An object whose values are all strings: metadata as the service normally sends it. */
function isStringMap(value: unknown): value is Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) if (typeof record[key] !== 'string') return false;
  return true;
}

/** Metadata as shown: null becomes {}, non-string values are turned into text. */
function normalizeMetadata(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  if (isStringMap(value)) return value;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[key] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}
const responseMetadata = z.preprocess(normalizeMetadata, z.record(z.string(), z.string()));

/** `last_error` is a string in the document and `{code, message}` in OpenAI's API: both become a string. */
export function normalizeLastError(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') {
    const { message, code } = value as { message?: unknown; code?: unknown };
    if (typeof message === 'string' && message) return typeof code === 'string' && code ? `${message} (${code})` : message;
    if (typeof code === 'string' && code) return code;
    // `{code: null, message: null}` (or `{}`) says there is no error.
    const said = Object.values(value).some((v) => v !== null && v !== undefined && v !== '');
    return said ? JSON.stringify(value) : null;
  }
  return String(value);
}

/** An optional field of a response that a server may also send as `null` (Jackson, pydantic's `Optional`): absent. */
function optionalOrNull<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === null ? undefined : value), schema.optional());
}

/** Unix seconds, also sent as text; an ISO 8601 date (some servers' `created_at`) is read as the same instant, anything else as unknown. */
const timestamp = z.preprocess((value) => {
  if (typeof value === 'number' || value === undefined) return value;
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const textValue = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(textValue)) return Number(textValue);
  // A date and time without a zone (Python's naive datetimes) is UTC, not this machine's time.
  const zoned = /T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(textValue) ? `${textValue}Z` : textValue;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}, z.number().optional());

const count = optionalOrNull(z.number());

export const fileCountsSchema = z.looseObject({
  in_progress: count,
  completed: count,
  failed: count,
  cancelled: count,
  total: count,
});

export const vectorStoreSchema = z.looseObject({
  id: z.string(),
  object: optionalOrNull(z.string()),
  name: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  created_at: timestamp,
  expires_at: z.number().nullish(),
  metadata: responseMetadata,
  status: optionalOrNull(z.string()),
  usage_bytes: optionalOrNull(z.number()),
  file_counts: optionalOrNull(fileCountsSchema),
});
export type VectorStore = z.infer<typeof vectorStoreSchema>;

export const fileObjectSchema = z.looseObject({
  id: z.string(),
  object: optionalOrNull(z.string()),
  filename: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  url: z.string().nullish(),
  bytes: z.number().nullish(),
  created_at: timestamp,
  purpose: optionalOrNull(z.string()),
  metadata: responseMetadata,
});
export type FileObject = z.infer<typeof fileObjectSchema>;

/** OpenAI names a store file's metadata `attributes` (values may be numbers or booleans): read as its metadata when there is none. */
function attributesAsMetadata(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const file = value as { metadata?: unknown; attributes?: unknown };
  return (file.metadata === undefined || file.metadata === null) && file.attributes && typeof file.attributes === 'object'
    ? { ...file, metadata: file.attributes }
    : value;
}

export const vectorStoreFileSchema = z.preprocess(
  attributesAsMetadata,
  z.looseObject({
    id: z.string(),
    object: optionalOrNull(z.string()),
    vector_store_id: optionalOrNull(z.string()),
    created_at: timestamp,
    /** `in_progress`, `completed`, `failed`, `cancelled`, or whatever else the service says. */
    status: z
      .string()
      .nullish()
      .transform((v) => v ?? 'unknown'),
    last_error: z.preprocess(normalizeLastError, z.string().nullable()),
    metadata: responseMetadata,
    usage_bytes: optionalOrNull(z.number()),
  }),
);
export type VectorStoreFile = z.infer<typeof vectorStoreFileSchema>;

export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    object: z.string().optional(),
    data: z.array(item),
    first_id: z
      .string()
      .nullish()
      .transform((v) => v ?? null),
    last_id: z
      .string()
      .nullish()
      .transform((v) => v ?? null),
    has_more: z
      .boolean()
      .nullish()
      .transform((v) => v ?? false),
  });
}

// Lists of thousands of items: zod per item costs a third of a 10,000-item page. An item already in
// the exact shape its schema would return (checked by a plain function) is used as received; a page
// with any other item goes through zod as a whole, so tolerance and error messages are unchanged.

type Fields = Record<string, unknown>;
const isOptional = (value: unknown, type: 'string' | 'number') => value === undefined || typeof value === type;
const isNullish = (value: unknown, type: 'string' | 'number') => value === undefined || value === null || typeof value === type;
const asFields = (value: unknown): Fields | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : undefined;

/** A vector store file that vectorStoreFileSchema would return unchanged. */
export function isCanonicalVectorStoreFile(value: unknown): boolean {
  const f = asFields(value);
  return (
    !!f &&
    typeof f.id === 'string' &&
    isOptional(f.object, 'string') &&
    isOptional(f.vector_store_id, 'string') &&
    isOptional(f.created_at, 'number') &&
    typeof f.status === 'string' &&
    (f.last_error === null || (typeof f.last_error === 'string' && f.last_error !== '')) &&
    isStringMap(f.metadata) &&
    isOptional(f.usage_bytes, 'number')
  );
}

/** A file that fileObjectSchema would return unchanged. */
export function isCanonicalFileObject(value: unknown): boolean {
  const f = asFields(value);
  return (
    !!f &&
    typeof f.id === 'string' &&
    isOptional(f.object, 'string') &&
    typeof f.filename === 'string' &&
    isNullish(f.url, 'string') &&
    isNullish(f.bytes, 'number') &&
    isOptional(f.created_at, 'number') &&
    isOptional(f.purpose, 'string') &&
    isStringMap(f.metadata)
  );
}

/** A vector store that vectorStoreSchema would return unchanged. */
export function isCanonicalVectorStore(value: unknown): boolean {
  const f = asFields(value);
  if (!f || typeof f.id !== 'string' || typeof f.name !== 'string' || !isStringMap(f.metadata)) return false;
  if (!isOptional(f.object, 'string') || !isOptional(f.created_at, 'number') || !isNullish(f.expires_at, 'number')) return false;
  if (!isOptional(f.status, 'string') || !isOptional(f.usage_bytes, 'number')) return false;
  if (f.file_counts === undefined) return true;
  const counts = asFields(f.file_counts);
  return (
    !!counts &&
    isOptional(counts.in_progress, 'number') &&
    isOptional(counts.completed, 'number') &&
    isOptional(counts.failed, 'number') &&
    isOptional(counts.cancelled, 'number') &&
    isOptional(counts.total, 'number')
  );
}

export interface ListEnvelope<T> {
  object?: string;
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
  [key: string]: unknown;
}

export interface ListSchema<T> {
  /** The whole page with every item through zod: the reference behaviour. */
  full: z.ZodType<ListEnvelope<T>>;
  /** The envelope alone; `data` is checked by `isCanonicalItem`. */
  envelope: z.ZodType<Omit<ListEnvelope<unknown>, 'data'> & { data?: unknown }>;
  isCanonicalItem(value: unknown): boolean;
}

export function listSchema<T extends z.ZodType>(item: T, isCanonicalItem: (value: unknown) => boolean): ListSchema<z.output<T>> {
  return {
    full: listEnvelopeSchema(item) as unknown as z.ZodType<ListEnvelope<z.output<T>>>,
    envelope: listEnvelopeSchema(z.unknown()).extend({ data: z.unknown() }),
    isCanonicalItem,
  };
}

/**
 * The envelope through zod and each item through its plain check; when any item is not in its
 * canonical shape, the whole page through zod (the same result and errors as before).
 */
export function parseListFast<T>(schema: ListSchema<T>, value: unknown): { success: true; data: ListEnvelope<T> } | undefined {
  const envelope = schema.envelope.safeParse(value);
  if (!envelope.success) return undefined;
  const data = envelope.data.data;
  if (!Array.isArray(data)) return undefined;
  for (let i = 0; i < data.length; i++) if (!schema.isCanonicalItem(data[i])) return undefined;
  return { success: true, data: envelope.data as ListEnvelope<T> };
}

/** Content may come as a string (the document) or as OpenAI's `[{type: "text", text}]`. */
function normalizeContent(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    return value.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('\n');
  }
  return value === null || value === undefined ? '' : String(value);
}

export const searchResultItemSchema = z.looseObject({
  id: z.string().optional(),
  object: z.string().optional(),
  score: z
    .number()
    .nullish()
    .transform((v) => v ?? 0),
  content: z.preprocess(normalizeContent, z.string()),
  file_id: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
});
export type SearchResultItem = z.infer<typeof searchResultItemSchema>;

export const searchResultSchema = z.looseObject({
  object: z.string().optional(),
  data: z.array(searchResultItemSchema),
  query: z.string().optional(),
  max_num_results: z.number().optional(),
  vector_store_id: z.string().optional(),
  files: z.array(z.string()).nullish(),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

export const deletedSchema = z.looseObject({
  id: z.string().optional(),
  object: z.string().optional(),
  deleted: z.boolean().optional(),
});

export const fileContentPageSchema = z.looseObject({
  object: z.string().optional(),
  data: z.array(z.looseObject({ type: z.string().optional(), text: z.preprocess(normalizeContent, z.string()) })),
});
