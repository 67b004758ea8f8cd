/**
 * Request bodies are checked with the client's own zod schemas (src/api/…/schemas.ts), so the
 * client and the backend refuse the same input with the same sentence. This is the one place
 * where a zod issue becomes the service's 400 answer `{error: {type, message, param, code}}`,
 * and where a schema gets the server's tolerance (fields the client never sends as null).
 */
import { z } from 'zod';
import { messageOf } from '../../api/http/validate';
import { invalid, type ApiError } from './errors';

type Issue = z.core.$ZodIssue;

export interface BodyCheckOptions {
  /**
   * Fields whose keys are data, not field names (metadata): an issue inside one names the field
   * itself as `param`.
   */
  opaque?: readonly string[];
  /** The field the checked value sits in, when it is not the whole body (a multipart field). */
  root?: string;
}

/** `messages.0.role` as the wire says it: `messages[0].role`. */
function paramOf(path: readonly PropertyKey[], opaque: readonly string[]): string | null {
  if (path.length && opaque.includes(String(path[0]))) return String(path[0]);
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || null;
}

/** The value at `path` in what was sent (zod's issues leave it out); undefined when any step is missing. */
function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let value = body;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/**
 * The wire code of an issue: a schema's own (`params.code`), else one that says what kind of
 * limit was broken. `sent` is the value the issue is about, as the request has it.
 */
function codeOf(issue: Issue, sent: unknown): string {
  switch (issue.code) {
    // A union left as it is (see closestIssue): no branch took the value's type.
    case 'invalid_union':
    case 'invalid_type':
      // A field left out (or null, "not set"); a null item of a list is a value of the wrong type.
      return sent === undefined || (sent === null && typeof issue.path.at(-1) !== 'number') ? 'missing_required_parameter' : 'invalid_type';
    case 'too_small':
      if (issue.origin === 'number' || issue.origin === 'bigint') return 'out_of_range';
      if (issue.origin === 'array' || issue.origin === 'set') return Number(issue.minimum) === 1 ? 'empty_array' : 'array_too_short';
      return 'string_too_short';
    case 'too_big':
      return issue.origin === 'number' ? 'out_of_range' : issue.origin === 'array' ? 'too_many_items' : 'string_too_long';
    case 'unrecognized_keys':
      return 'unknown_parameter';
    case 'invalid_format':
      return issue.format === 'url' ? 'invalid_url' : 'invalid_format';
    case 'custom': {
      const code = (issue.params as { code?: unknown } | undefined)?.code;
      return typeof code === 'string' ? code : 'invalid_value';
    }
    default:
      return 'invalid_value';
  }
}

/**
 * A union (`input`: a string or a list of strings) reports all its branches; the branch that got
 * past the type check is the one the sender meant, so its issue is the one to answer with.
 */
function closestIssue(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first && !(first.code === 'invalid_type' && first.path.length === 0)) {
      return closestIssue({ ...first, path: [...issue.path, ...first.path] } as Issue);
    }
  }
  return issue;
}

function knownFields(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** The 400 answer for one zod issue about `body`. */
export function issueToApiError(raw: Issue, schema: z.ZodType, body: unknown, options: BodyCheckOptions = {}): ApiError {
  const issue = closestIssue(raw);
  const inner = issue.code === 'unrecognized_keys' && issue.keys.length ? [...issue.path, issue.keys[0]!] : issue.path;
  const path = options.root ? [options.root, ...inner] : inner;
  const param = paramOf(path, options.opaque ?? []);
  let message = messageOf(issue, param ?? 'body');
  if (issue.code === 'unrecognized_keys' && issue.path.length === 0 && !options.root) {
    message = `Unknown field "${param}"; this request accepts ${knownFields(schema)
      .map((k) => `"${k}"`)
      .join(', ')}.`;
  }
  return invalid(param, message, codeOf(issue, valueAt(body, issue.path)));
}

/** Checks a request body against a schema; throws the 400 answer naming the first offending field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, options?: BodyCheckOptions): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw issueToApiError(result.error.issues[0]!, schema, body, options);
  return result.data;
}

type Shape = Record<string, z.ZodType>;
type Nullish<T extends Shape> = {
  [K in keyof T]: T[K] extends z.ZodOptional<infer Inner extends z.ZodType> ? z.ZodOptional<z.ZodNullable<Inner>> : T[K];
};

/**
 * The server's variant of a request schema: every optional field may also be `null` (what
 * OpenAI-style clients send for "not set"); the limits stay those of the client's schema.
 */
export function nullableOptionals<T extends Shape, C extends z.core.$ZodObjectConfig>(
  schema: z.ZodObject<T, C>,
): z.ZodObject<Nullish<T>, C> {
  const shape: Shape = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    shape[key] = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType).nullish() : field;
  }
  return schema.extend(shape) as unknown as z.ZodObject<Nullish<T>, C>;
}
