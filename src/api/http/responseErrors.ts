/** Turns an HTTP error response or a connection failure into a DocChatError with a readable message. */
import {
  AuthError,
  DocChatError,
  NetworkError,
  NotFoundError,
  ProtocolError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
  type ErrorDetails,
} from './errors';
import { redactUserInfo } from './dispatcher';
import { isRetryableStatus } from './retry';

export interface ErrorContext {
  /** "documents service" or "gateway", for messages. */
  service: string;
  /** What the token is called in messages: "token" or "API key". */
  credential: string;
  origin: string;
  path: string;
  requestId?: string;
  retryAfterMs?: number;
  /** `host:port` of the proxy the request went through, if any. */
  proxyHost?: string;
}

interface BodyInfo {
  message?: string;
  type?: string;
  code?: string;
  param?: string;
  html: boolean;
  malformed: boolean;
}

const MAX_MESSAGE = 500;

function sentence(text: string): string {
  const trimmed = text.replace(/\s+/g, ' ').trim();
  const short = trimmed.length > MAX_MESSAGE ? `${trimmed.slice(0, MAX_MESSAGE)}…` : trimmed;
  return /[.!?…)]$/.test(short) ? short : `${short}.`;
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Reads `{error: {message, type, param, code}}`, `{error: "…"}`, `{message}`, `{detail}` or plain text. */
export function describeErrorBody(text: string, contentType: string): BodyInfo {
  const trimmed = text.trim();
  if (/text\/html/i.test(contentType) || /^<(!doctype|html|head|body)/i.test(trimmed)) {
    return { html: true, malformed: false };
  }
  const looksJson = /json/i.test(contentType) || /^[[{]/.test(trimmed);
  if (!looksJson) return { message: trimmed ? sentence(trimmed) : undefined, html: false, malformed: false };
  let body: unknown;
  try {
    body = JSON.parse(trimmed);
  } catch {
    // An empty body says nothing (a load balancer's bare 502), which is not malformed.
    return { html: false, malformed: trimmed !== '' };
  }
  if (typeof body === 'string') return { message: body.trim() ? sentence(body) : undefined, html: false, malformed: false };
  if (!body || typeof body !== 'object') return { html: false, malformed: false };
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (error && typeof error === 'object') {
    const e = error as Record<string, unknown>;
    const message = str(e.message);
    return {
      message: message ? sentence(message) : undefined,
      type: str(e.type),
      code: str(e.code),
      param: str(e.param),
      html: false,
      malformed: false,
    };
  }
  const detail = record.detail;
  if (Array.isArray(detail) && detail.length > 0) {
    // FastAPI validation errors: [{loc: ["body", "name"], msg: "…"}]
    const first = detail[0] as { loc?: unknown[]; msg?: unknown };
    const param = Array.isArray(first?.loc) ? first.loc.filter((p) => p !== 'body').join('.') : undefined;
    const msg = str(first?.msg);
    return { message: msg ? sentence(param ? `${param}: ${msg}` : msg) : undefined, param, html: false, malformed: false };
  }
  // FastAPI's `detail` may be an object too (`{"detail": {"error": "…"}}`, `{"detail": {"message": "…"}}`), and ASP.NET's problem+json has `title`.
  const inner = detail && typeof detail === 'object' ? (detail as Record<string, unknown>) : undefined;
  const message =
    str(error) ??
    str(record.message) ??
    str(detail) ??
    str(inner?.message) ??
    str(inner?.error) ??
    str(record.error_description) ??
    str(record.title);
  return { message: message ? sentence(message) : undefined, code: str(record.code), html: false, malformed: false };
}

export function errorFromResponse(status: number, contentType: string, text: string, ctx: ErrorContext): DocChatError {
  const info = describeErrorBody(text, contentType);
  const details = {
    status,
    requestId: ctx.requestId,
    retryable: isRetryableStatus(status),
    type: info.type,
    code: info.code,
    param: info.param,
  };
  if (status === 407) return proxyAuthError(ctx, details);
  if (status >= 500 && (info.html || info.malformed || !info.message)) {
    // A load balancer's page, a truncated body or nothing at all: the status is all there is to say.
    const what = info.html ? ' (it sent an error page instead of API data)' : info.malformed ? ' (with a broken JSON body)' : '';
    return new ServerError(`The ${ctx.service} ${serverFailure(status)}${what}.`, {
      ...details,
      hint: details.retryable ? 'Try again in a moment; if it persists, the service or a gateway in front of it is down.' : undefined,
    });
  }
  // A proxy's page for a refusal whose status says it all: the status is the reason, not the page.
  if (info.html && status === 429) return tooManyRequests(ctx.service, ctx.retryAfterMs, details);
  if (info.html && status === 413) {
    return new ValidationError(
      'request',
      'request_too_large',
      `The request is too large for the ${ctx.service} or a proxy in front of it (413).`,
      details,
    );
  }
  if (info.html) {
    return new ProtocolError(`The ${ctx.service} answered ${status} with a web page instead of API data.`, {
      ...details,
      hint: 'Is the URL right, or is a proxy or sign-in page in the way?',
    });
  }
  if (info.malformed) {
    return new ProtocolError(`The ${ctx.service} answered ${status} with malformed JSON.`, details);
  }
  const message = info.message;
  if (status === 401 || status === 403) {
    return new AuthError(
      message ??
        (status === 401
          ? `The ${ctx.service} rejected the ${ctx.credential}.`
          : `The ${ctx.credential} is not allowed to do this at the ${ctx.service}.`),
      { ...details, hint: `Check that the ${ctx.credential} is set and still valid.` },
    );
  }
  if (status === 404) return new NotFoundError(message ?? `Not found at the ${ctx.service}: ${ctx.path}.`, details);
  if (status === 408) return new TimeoutError(message ?? `The ${ctx.service} timed out waiting for the request.`, details);
  if (status === 429) return tooManyRequests(ctx.service, ctx.retryAfterMs, details, message);
  if (status >= 500) {
    return new ServerError(message ?? `The ${ctx.service} failed with an internal error (${status}).`, details);
  }
  return new ValidationError(
    info.param ?? 'request',
    info.code ?? info.type ?? `HTTP ${status}`,
    message ?? `The ${ctx.service} rejected the request (${status}).`,
    details,
  );
}

/** A refusal for the per-minute limit, saying when to try again when that is known. */
export function tooManyRequests(service: string, retryAfterMs?: number, details: ErrorDetails = {}, message?: string): RateLimitError {
  const wait = retryAfterMs !== undefined ? ` Try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s.` : '';
  return new RateLimitError(message ?? `Too many requests to the ${service}.${wait}`, { ...details, retryAfterMs });
}

function serverFailure(status: number): string {
  switch (status) {
    case 502:
      return 'is failing behind its gateway (502 Bad Gateway)';
    case 503:
      return 'is unavailable (503 Service Unavailable)';
    case 504:
      return 'did not answer its gateway in time (504 Gateway Timeout)';
    default:
      return `failed with a server error (${status})`;
  }
}

function proxyAuthError(ctx: ErrorContext, details: { status?: number; requestId?: string }): NetworkError {
  const proxy = ctx.proxyHost ? `The proxy ${ctx.proxyHost}` : 'The proxy';
  return new NetworkError(
    `${proxy} asks for credentials (407 Proxy Authentication Required): set them in VS Code's http.proxyAuthorization setting or in the proxy URL (docchat.network.proxy).`,
    { ...details, code: 'PROXY_AUTH_REQUIRED', retryable: false },
  );
}

interface CertificateProblem {
  why: string;
  fix: string;
}

const WITH_CA = 'Add the certificate authority that signed it to docchat.network.caFiles (or NODE_EXTRA_CA_CERTS)';
const CERTIFICATE_PROBLEMS: Record<string, CertificateProblem> = {
  CERT_HAS_EXPIRED: {
    why: 'has expired',
    fix: 'The service must renew it. Turning docchat.network.strictSSL off skips the check, at your own risk.',
  },
  CERT_NOT_YET_VALID: {
    why: 'is not valid yet',
    fix: "Check this computer's clock, or ask the service to fix the certificate's dates.",
  },
  DEPTH_ZERO_SELF_SIGNED_CERT: {
    why: 'is self-signed',
    fix: 'Add that certificate to docchat.network.caFiles (or NODE_EXTRA_CA_CERTS) if you trust it.',
  },
  SELF_SIGNED_CERT_IN_CHAIN: {
    why: 'is signed by a certificate authority that is not trusted (a self-signed root in the chain, as a company CA or an inspecting proxy uses)',
    fix: `${WITH_CA}.`,
  },
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: {
    why: 'is signed by an unknown certificate authority',
    fix: `${WITH_CA}.`,
  },
  UNABLE_TO_GET_ISSUER_CERT: {
    why: 'is signed by an unknown certificate authority',
    fix: `${WITH_CA}.`,
  },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: {
    why: 'is signed by an unknown certificate authority (or the server does not send its intermediate certificates)',
    fix: `${WITH_CA}, or ask the service to send its full certificate chain.`,
  },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    why: 'is issued for another host name',
    fix: 'Check the URL in the settings; the certificate must name the host you connect to.',
  },
  CERT_REVOKED: { why: 'has been revoked', fix: 'The service must replace it.' },
};

/** `Proxy response (407) !== 200 when HTTP Tunneling` → 407. */
function tunnelStatus(message: string): number | undefined {
  const match = /Proxy response \((\d{3})\)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

const NOT_REACHED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS|SSL|ERR_OSSL/i;

/** The error code of a Node/undici error, looking into AggregateError and `cause`. */
export function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  if (e?.cause && e.cause !== error) return errorCode(e.cause);
  return undefined;
}

/** True when the failure happened before any byte reached the server, so even a POST may be retried. */
export function provablyNotSent(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NOT_REACHED_CODES.has(code);
}

export function errorFromNetwork(error: unknown, ctx: ErrorContext, timeouts: { headersMs: number; bodyMs: number }): DocChatError {
  if (error instanceof DocChatError) return error;
  const code = errorCode(error) ?? '';
  const raw = redactUserInfo(error instanceof Error ? error.message : String(error));
  const host = (() => {
    try {
      return new URL(ctx.origin).host;
    } catch {
      return ctx.origin;
    }
  })();
  const base = { cause: error, requestId: ctx.requestId, code: code || undefined };
  switch (code) {
    case 'ECONNREFUSED':
      return new NetworkError(`Could not connect to the ${ctx.service} at ${ctx.origin}: the connection was refused.`, {
        ...base,
        retryable: true,
        hint: 'Is the URL right, and is the service running?',
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new NetworkError(`Could not find the host ${host} of the ${ctx.service}.`, {
        ...base,
        retryable: code === 'EAI_AGAIN',
        hint: 'Is the URL right, or is a proxy needed (http.proxy setting or HTTPS_PROXY)?',
      });
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return new TimeoutError(`Connecting to the ${ctx.service} at ${ctx.origin} timed out.`, {
        ...base,
        retryable: true,
        hint: 'Is the URL right, or is a proxy needed?',
      });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new TimeoutError(`The ${ctx.service} did not answer within ${Math.round(timeouts.headersMs / 1000)} s.`, {
        ...base,
        retryable: true,
      });
    case 'UND_ERR_BODY_TIMEOUT':
      return new TimeoutError(`The ${ctx.service} stopped sending data for ${Math.round(timeouts.bodyMs / 1000)} s.`, {
        ...base,
        retryable: true,
      });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new NetworkError(`The ${ctx.service} host ${host} is unreachable.`, {
        ...base,
        retryable: true,
        hint: 'Are you on the right network or VPN, or is a proxy needed?',
      });
  }
  const tunnel = tunnelStatus(raw);
  if (tunnel === 407) return proxyAuthError(ctx, { requestId: ctx.requestId });
  if (tunnel !== undefined) {
    return new NetworkError(
      `The proxy ${ctx.proxyHost ?? ''} could not open a connection to ${host} (it answered ${tunnel}).`.replace('proxy  ', 'proxy '),
      {
        ...base,
        retryable: tunnel >= 500,
        hint: 'Is the service URL right, and may the proxy reach it? Hosts that must not go through the proxy belong in http.noProxy or NO_PROXY.',
      },
    );
  }
  const problem = CERTIFICATE_PROBLEMS[code];
  if (problem) {
    return new NetworkError(`The TLS certificate of ${host} ${problem.why} (${code}).`, { ...base, retryable: false, hint: problem.fix });
  }
  if (TLS_CODE.test(code)) {
    return new NetworkError(`The TLS certificate of ${host} could not be verified (${code}).`, {
      ...base,
      retryable: false,
      hint: 'If your company uses its own certificate authority, add its certificate file to the extra CA certificates setting (docchat.network.caFiles).',
    });
  }
  if (/proxy/i.test(raw)) {
    return new NetworkError(`The proxy refused the connection to the ${ctx.service} (${raw}).`, {
      ...base,
      retryable: false,
      hint: 'Check the proxy URL and its credentials (http.proxy setting or HTTPS_PROXY).',
    });
  }
  return new NetworkError(`The connection to the ${ctx.service} at ${ctx.origin} failed${code ? ` (${code})` : ''}.`, {
    ...base,
    retryable: true,
    hint: 'Is the URL right, or is a proxy or firewall interrupting the connection?',
  });
}
