/**
 * Request checks of the documents service. The limits and the wording come from the client's
 * schemas (src/api/documents/schemas.ts) so that the client and the backend refuse the same input
 * with the same sentence; this file adds the wire-level details (param, code, unknown fields).
 */
import { LIMITS, validateMetadata, validateStoreName } from '../../api/documents/schemas';
import { charCount } from '../../api/http/validate';
import { invalid } from '../http/errors';
import type { ExpiresAfter, Metadata } from './model';

type Body = Record<string, unknown>;

export const SKIP_OCR_FIELD = 'skip_ocr';
export const FILE_IDS_FIELD = 'file_ids';

export function rejectUnknownFields(body: Body, known: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) {
      throw invalid(key, `Unknown field "${key}"; this request accepts ${known.map((k) => `"${k}"`).join(', ')}.`, 'unknown_parameter');
    }
  }
}

export function requireString(body: Body, field: string, what = field): string {
  const value = body[field];
  if (value === undefined || value === null) throw invalid(field, `${what} is required.`, 'missing_required_parameter');
  if (typeof value !== 'string') throw invalid(field, `${what} must be a string.`, 'invalid_type');
  return value;
}

export function checkStoreName(value: unknown): string {
  if (value === undefined || value === null) throw invalid('name', 'name is required.', 'missing_required_parameter');
  if (typeof value !== 'string') throw invalid('name', 'The name must be a string.', 'invalid_type');
  const problem = validateStoreName(value);
  if (problem) {
    const length = charCount(value);
    const code = length < LIMITS.storeName.min ? 'string_too_short' : length > LIMITS.storeName.max ? 'string_too_long' : 'invalid_format';
    throw invalid('name', problem, code);
  }
  return value;
}

/** Metadata as given (null means none); the error names the limit that was broken. */
export function checkMetadata(value: unknown, param = 'metadata'): Metadata {
  if (value === undefined || value === null) return {};
  const problem = validateMetadata(value);
  if (!problem) return { ...(value as Metadata) };
  const { maxPairs, maxKeyLength, maxValueLength } = LIMITS.metadata;
  let code = 'invalid_type';
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > maxPairs) code = 'metadata_too_many_pairs';
    else if (entries.some(([key]) => charCount(key) > maxKeyLength)) code = 'metadata_key_too_long';
    else if (entries.some(([, v]) => typeof v === 'string' && charCount(v) > maxValueLength)) code = 'metadata_value_too_long';
  }
  throw invalid(param, problem, code);
}

export function checkExpiresAfter(value: unknown): ExpiresAfter | null {
  if (value === undefined || value === null) return null;
  const v = value as { anchor?: unknown; days?: unknown };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('expires_after', 'expires_after must be an object {anchor: "last_active_at", days}.', 'invalid_type');
  }
  if (v.anchor !== 'last_active_at') {
    throw invalid('expires_after.anchor', 'expires_after.anchor must be "last_active_at".', 'invalid_value');
  }
  if (typeof v.days !== 'number' || !Number.isInteger(v.days) || v.days < 1 || v.days > 365) {
    throw invalid('expires_after.days', 'expires_after.days must be a whole number from 1 to 365.', 'out_of_range');
  }
  return { anchor: 'last_active_at', days: v.days };
}

export function checkBoolean(body: Body, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalid(field, `${field} must be true or false.`, 'invalid_type');
  return value;
}

export interface SearchParams {
  query: string;
  maxNumResults: number;
  fileIds: string[] | undefined;
}

export function checkSearch(body: Body): SearchParams {
  rejectUnknownFields(body, ['query', 'max_num_results', FILE_IDS_FIELD]);
  const query = requireString(body, 'query');
  const length = charCount(query);
  if (length < LIMITS.query.min || !query.trim()) throw invalid('query', 'The query must not be empty.', 'string_too_short');
  if (length > LIMITS.query.max) {
    throw invalid(
      'query',
      `The query may be at most ${LIMITS.query.max.toLocaleString('en-US')} characters long (it has ${length.toLocaleString('en-US')}).`,
      'string_too_long',
    );
  }
  const { min, max, default: fallback } = LIMITS.maxNumResults;
  let maxNumResults: number = fallback;
  const rawMax = body.max_num_results;
  if (rawMax !== undefined && rawMax !== null) {
    if (typeof rawMax !== 'number' || !Number.isInteger(rawMax)) {
      throw invalid('max_num_results', 'max_num_results must be a whole number.', 'invalid_type');
    }
    if (rawMax < min || rawMax > max) {
      throw invalid('max_num_results', `max_num_results must be between ${min} and ${max} (got ${rawMax}).`, 'out_of_range');
    }
    maxNumResults = rawMax;
  }
  let fileIds: string[] | undefined;
  const rawIds = body[FILE_IDS_FIELD];
  if (rawIds !== undefined && rawIds !== null) {
    if (!Array.isArray(rawIds) || rawIds.some((id) => typeof id !== 'string' || !id)) {
      throw invalid(FILE_IDS_FIELD, `${FILE_IDS_FIELD} must be a list of file ids.`, 'invalid_type');
    }
    fileIds = [...new Set(rawIds as string[])];
  }
  return { query, maxNumResults, fileIds };
}
