import type { z } from 'zod';
import { ProtocolError, ValidationError } from './errors';

type Issue = z.core.$ZodIssue;

/** Length in characters as a person (and a Python service) counts them: code points. */
export function charCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function fieldOf(issue: Issue, root?: string): string {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) path.push(issue.keys[0]!);
  const joined = path.join('.');
  if (root) return joined ? `${root}.${joined}` : root;
  return joined || 'body';
}

export function limitOf(issue: Issue): string {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'string' ? `at most ${issue.maximum} characters` : `at most ${issue.maximum}`;
    case 'too_small':
      return issue.origin === 'string' ? `at least ${issue.minimum} characters` : `at least ${issue.minimum}`;
    case 'invalid_type':
      return issue.expected === 'array' ? 'a list' : issue.expected === 'object' ? 'an object' : `a ${issue.expected}`;
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return 'a known field';
    case 'custom': {
      const limit = (issue.params as { limit?: unknown } | undefined)?.limit;
      return typeof limit === 'string' ? limit : 'valid';
    }
    default:
      return 'valid';
  }
}

/** zod's default messages are terse; schemas give their own, and this names the field for the rest. */
export function messageOf(issue: Issue, field: string): string {
  if (issue.code === 'unrecognized_keys') return `Unknown field "${field}".`;
  const custom = issue.message && !/^(Invalid|Too (big|small)|Expected)/.test(issue.message);
  if (custom) return issue.message;
  return `${field} must be ${limitOf(issue)}.`;
}

export function toValidationError(issue: Issue, root?: string): ValidationError {
  const field = fieldOf(issue, root);
  return new ValidationError(field, limitOf(issue), messageOf(issue, field), { retryable: false });
}

/** Strict check of an outgoing request; throws a ValidationError naming the first offending field. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error.issues[0]!, root);
  return result.data;
}

/** The first problem as a sentence, or undefined: for validate-as-you-type in input boxes. */
export function firstProblem(schema: z.ZodType, value: unknown, root?: string): string | undefined {
  const result = schema.safeParse(value);
  return result.success ? undefined : toValidationError(result.error.issues[0]!, root).message;
}

/** Tolerant check of a response; a shape we cannot use at all is a ProtocolError. */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  details: { status?: number; requestId?: string } = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = issue.path.length ? ` at "${issue.path.join('.')}"` : '';
  throw new ProtocolError(`The server sent an unexpected ${what}: ${issue.message}${at}.`, details);
}
