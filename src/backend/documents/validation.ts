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
import { nullableOptionals, parseBody } from '../http/requestBody';
import type { ExpiresAfter } from './model';

/** Metadata keys are the caller's data: a problem inside names `metadata` itself. */
const opaque = ['metadata'];

const createStoreBody = nullableOptionals(createVectorStoreRequestSchema.extend({ expires_after: expiresAfterSchema.optional() }));
const attachBody = nullableOptionals(attachFileBodySchema);
const searchBody = nullableOptionals(searchRequestSchema);

export function checkCreateStore(body: unknown): { name: string; metadata: Metadata; expiresAfter: ExpiresAfter | null } {
  const parsed = parseBody(createStoreBody, body, { opaque });
  return { name: parsed.name, metadata: parsed.metadata ?? {}, expiresAfter: parsed.expires_after ?? null };
}

export function checkAttach(body: unknown): { fileId: string; metadata: Metadata | undefined; skipOcr: boolean } {
  const parsed = parseBody(attachBody, body, { opaque });
  return { fileId: parsed.file_id, metadata: parsed.metadata ?? undefined, skipOcr: parsed.skip_ocr ?? false };
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
}

export function checkSearch(body: unknown): SearchParams {
  const parsed = parseBody(searchBody, body);
  return {
    query: parsed.query,
    maxNumResults: parsed.max_num_results ?? LIMITS.maxNumResults.default,
    fileIds: parsed.file_ids ? [...new Set(parsed.file_ids)] : undefined,
  };
}
