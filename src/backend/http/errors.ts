/**
 * Errors the backend answers with. Every one becomes `{error: {message, type, param, code}}`
 * with the status the wire contract assigns to its type.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'request_too_large'
  | 'server_error'
  | 'not_implemented';

const STATUS_OF: Record<ErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  not_found_error: 404,
  rate_limit_error: 429,
  request_too_large: 413,
  server_error: 500,
  not_implemented: 501,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    status?: number,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status ?? STATUS_OF[type];
  }

  toBody(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export function invalid(param: string | null, message: string, code = 'invalid_value'): ApiError {
  return new ApiError('invalid_request_error', message, param, code);
}

export function notFound(what: string, id: string, param: string | null = null): ApiError {
  return new ApiError('not_found_error', `No ${what} with id '${id}'.`, param, 'not_found');
}

export function notImplemented(message: string): ApiError {
  return new ApiError('not_implemented', message, null, 'not_implemented');
}
