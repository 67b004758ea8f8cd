/**
 * One small error hierarchy for both services. Every message is a sentence a user can read;
 * none of them ever contains a token (the transport redacts before constructing).
 */
export type ErrorKind =
  'validation' | 'auth' | 'not_found' | 'rate_limit' | 'server' | 'network' | 'timeout' | 'stream' | 'aborted' | 'protocol';

export interface ErrorDetails {
  status?: number;
  requestId?: string;
  retryable?: boolean;
  hint?: string;
  /** `error.type` / `error.code` / `error.param` of an `{error: {...}}` body, when present. */
  type?: string;
  code?: string;
  param?: string;
  cause?: unknown;
}

export class DocChatError extends Error {
  readonly kind: ErrorKind;
  readonly status?: number;
  readonly requestId?: string;
  readonly retryable: boolean;
  readonly hint?: string;
  readonly type?: string;
  readonly code?: string;
  readonly param?: string;

  constructor(kind: ErrorKind, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.status = details.status;
    this.requestId = details.requestId;
    this.retryable = details.retryable ?? false;
    this.hint = details.hint;
    this.type = details.type;
    this.code = details.code;
    this.param = details.param;
  }

  /** Message plus hint and request id: what a log line or a details pane shows. */
  describe(): string {
    const parts = [this.message];
    if (this.hint) parts.push(this.hint);
    if (this.requestId) parts.push(`(request id ${this.requestId})`);
    return parts.join(' ');
  }
}

/** A request that breaks a documented limit (raised before sending) or a 4xx the server rejected. */
export class ValidationError extends DocChatError {
  /** Dotted path of the offending field, e.g. `metadata.owner` or `max_num_results`. */
  readonly field: string;
  /** The limit that was broken, e.g. `at most 63 characters`. */
  readonly limit: string;
  constructor(field: string, limit: string, message: string, details: ErrorDetails = {}) {
    super('validation', message, details);
    this.field = field;
    this.limit = limit;
  }
}

export class AuthError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('auth', message, details);
  }
}

export class NotFoundError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('not_found', message, details);
  }
}

export class RateLimitError extends DocChatError {
  /** What the server asked us to wait, when it said so. */
  readonly retryAfterMs?: number;
  constructor(message: string, details: ErrorDetails & { retryAfterMs?: number } = {}) {
    super('rate_limit', message, { retryable: true, ...details });
    this.retryAfterMs = details.retryAfterMs;
  }
}

export class ServerError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('server', message, details);
  }
}

export class NetworkError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('network', message, details);
  }
}

export class TimeoutError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('timeout', message, details);
  }
}

/** An `event: error` inside a stream, or a stream that ended before it was complete. */
export class StreamError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('stream', message, details);
  }
}

export class AbortedError extends DocChatError {
  constructor(message = 'The request was cancelled.', details: ErrorDetails = {}) {
    super('aborted', message, details);
  }
}

/** The server answered something that is not the API: HTML, malformed JSON, a foreign redirect. */
export class ProtocolError extends DocChatError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('protocol', message, details);
  }
}

/**
 * True for a request or operation that was cancelled: DocChat's own `aborted` errors and an
 * `AbortError` from an `AbortSignal` (fetch, undici, timers, streams). The one test of "this was
 * cancelled" of the clients, the chat, the folder sync and the gateway tools.
 */
export function isAbortError(error: unknown): boolean {
  return (error instanceof DocChatError && error.kind === 'aborted') || (error instanceof Error && error.name === 'AbortError');
}

export function isDocChatError(value: unknown): value is DocChatError {
  return value instanceof DocChatError;
}

/**
 * The sentence a user reads for an error: its message, then its hint. The UI's notifications,
 * the chat and the MCP server's tool errors all word an error this way; no secret is in it
 * (the transport redacts before an error is built).
 */
export function errorSentence(error: unknown): string {
  if (error instanceof DocChatError) {
    return error.hint ? `${error.message} ${error.hint}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
