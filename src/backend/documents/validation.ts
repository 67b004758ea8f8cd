/**
 * Request bodies of the documents service: the client's schemas (src/api/documents/schemas.ts),
 * with the server's tolerance added (null for an optional field, OpenAI's `expires_after`), so the
 * client and the backend refuse the same input with the same sentence.
 */
import {
  LIMITS,
  attachFileBodySchema,
  createVectorStoreRequestSchema,
  expiresAfterSchema,
  metadataSchema,
  searchRequestSchema,
  updateMetadataRequestSchema,
  type Metadata,
} from '../../api/documents/schemas';
import { z } from 'zod';
import { invalid } from '../http/errors';
import { nullableOptionals, parseBody } from '../http/requestBody';
import { attributeFilterSchema, filterDepth, MAX_FILTER_DEPTH, type AttributeFilter } from './filters';
import type { ExpiresAfter } from './model';

/** Metadata keys are the caller's data: a problem inside names `metadata` (or `attributes`) itself. */
const opaque = ['metadata', 'attributes'];

/** Files attached when a store is created (OpenAI's `file_ids`); OpenAI's limit. */
export const MAX_CREATE_FILE_IDS = 500;

/** OpenAI's chunking choice: `auto` is what this backend does (by the document's headings); `static` sizes it cannot honour. */
const chunkingStrategy = z
  .looseObject({ type: z.string({ error: 'chunking_strategy.type must be a string.' }) })
  .refine((strategy) => strategy.type === 'auto', {
    error: 'chunking_strategy must be {"type": "auto"}: the embedded backend chunks by the document\'s headings and sizes.',
  });

const createStoreBody = nullableOptionals(
  createVectorStoreRequestSchema.extend({
    expires_after: expiresAfterSchema.optional(),
    file_ids: z
      .array(z.string({ error: 'file_ids must be a list of file ids.' }).min(1, { error: 'A file id must not be empty.' }), {
        error: 'file_ids must be a list of file ids.',
      })
      .max(MAX_CREATE_FILE_IDS, { error: `file_ids may name at most ${MAX_CREATE_FILE_IDS} files.` })
      .optional(),
    chunking_strategy: chunkingStrategy.optional(),
  }),
);
/** `attributes`: OpenAI's name for a store file's metadata. */
const attachBody = nullableOptionals(
  attachFileBodySchema.extend({ attributes: metadataSchema.optional(), chunking_strategy: chunkingStrategy.optional() }),
);
const storeFileUpdateBody = z.strictObject({ metadata: metadataSchema.optional(), attributes: metadataSchema.optional() });

/** The metadata of a request that may name it `metadata` or, as OpenAI does for store files, `attributes`. */
function metadataOrAttributes(parsed: { metadata?: Metadata | null; attributes?: Metadata | null }): Metadata | undefined {
  if (parsed.metadata && parsed.attributes) {
    throw invalid('attributes', "Give metadata or attributes (OpenAI's name for it), not both.", 'invalid_value');
  }
  return parsed.metadata ?? parsed.attributes ?? undefined;
}
/**
 * The contract's search fields, and OpenAI's others that a client written for OpenAI sends:
 * attribute `filters`, `ranking_options.score_threshold` (scores here are 0 to 1) and
 * `rewrite_query` (accepted; the query is searched as written, `search_query` says so).
 */
const searchBody = nullableOptionals(
  searchRequestSchema.extend({
    filters: attributeFilterSchema.optional(),
    ranking_options: z
      .looseObject({
        ranker: z.string({ error: 'ranking_options.ranker must be a string.' }).nullish(),
        score_threshold: z
          .number({ error: 'ranking_options.score_threshold must be a number from 0 to 1.' })
          .min(0, { error: 'ranking_options.score_threshold must be a number from 0 to 1.' })
          .max(1, { error: 'ranking_options.score_threshold must be a number from 0 to 1.' })
          .nullish(),
      })
      .optional(),
    rewrite_query: z.boolean({ error: 'rewrite_query must be true or false.' }).optional(),
  }),
);

export function checkCreateStore(body: unknown): {
  name: string;
  metadata: Metadata;
  expiresAfter: ExpiresAfter | null;
  fileIds: string[];
} {
  const parsed = parseBody(createStoreBody, body, { opaque });
  return {
    name: parsed.name,
    metadata: parsed.metadata ?? {},
    expiresAfter: parsed.expires_after ?? null,
    fileIds: [...new Set(parsed.file_ids ?? [])],
  };
}

export function checkAttach(body: unknown): { fileId: string; metadata: Metadata | undefined; skipOcr: boolean } {
  const parsed = parseBody(attachBody, body, { opaque });
  return { fileId: parsed.file_id, metadata: metadataOrAttributes(parsed), skipOcr: parsed.skip_ocr ?? false };
}

/** A store file's update: its metadata, under that name or OpenAI's `attributes`. */
export function checkStoreFileUpdate(body: unknown): Metadata {
  const metadata = metadataOrAttributes(parseBody(storeFileUpdateBody, body, { opaque }));
  if (!metadata) {
    throw invalid('metadata', 'metadata is required: an object of string keys and string values.', 'missing_required_parameter');
  }
  return metadata;
}

export function checkMetadataUpdate(body: unknown): Metadata {
  return parseBody(updateMetadataRequestSchema, body, { opaque }).metadata;
}

/** The metadata field of a multipart upload, already parsed from its JSON. */
export function checkMetadata(value: unknown): Metadata {
  return parseBody(metadataSchema.nullish(), value, { root: 'metadata', opaque }) ?? {};
}

export interface SearchParams {
  query: string;
  maxNumResults: number;
  fileIds: string[] | undefined;
  /** OpenAI's attribute filter over the store files' metadata. */
  filter?: AttributeFilter;
  /** Results scoring below this (0 to 1) are left out. */
  scoreThreshold?: number;
}

export function checkSearch(body: unknown): SearchParams {
  const filters = body !== null && typeof body === 'object' ? (body as { filters?: unknown }).filters : undefined;
  if (filterDepth(filters) > MAX_FILTER_DEPTH) {
    throw invalid('filters', `filters may nest compound filters at most ${MAX_FILTER_DEPTH} levels deep.`, 'too_deep');
  }
  const parsed = parseBody(searchBody, body);
  return {
    query: parsed.query,
    maxNumResults: parsed.max_num_results ?? LIMITS.maxNumResults.default,
    fileIds: parsed.file_ids ? [...new Set(parsed.file_ids)] : undefined,
    filter: parsed.filters ?? undefined,
    scoreThreshold: parsed.ranking_options?.score_threshold ?? undefined,
  };
}
