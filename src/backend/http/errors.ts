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

/** An error in the service's shape; fields by name, so a call says what each value is. */
export interface ApiErrorFields {
  type: ErrorType;
  message: string;
  /** The request field at fault, if any. */
  param?: string | null;
  code?: string | null;
  /** Defaults to the status of `type`. */
  status?: number;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  readonly type: ErrorType;
  readonly param: string | null;
  readonly code: string | null;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(fields: ApiErrorFields) {
    super(fields.message);
    this.type = fields.type;
    this.param = fields.param ?? null;
    this.code = fields.code ?? null;
    this.status = fields.status ?? STATUS_OF[fields.type];
    this.headers = fields.headers ?? {};
  }

  toBody(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export function invalid(param: string | null, message: string, code = 'invalid_value'): ApiError {
  return new ApiError({ type: 'invalid_request_error', message, param, code });
}

export function notFound(what: string, id: string, param: string | null = null): ApiError {
  return new ApiError({ type: 'not_found_error', message: `No ${what} with id '${id}'.`, param, code: 'not_found' });
}

export function notImplemented(message: string): ApiError {
  return new ApiError({ type: 'not_implemented', message, code: 'not_implemented' });
}
