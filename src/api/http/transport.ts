/**
 * The HTTP layer both clients share: one keep-alive dispatcher, the token on its own origin only,
 * client-side rate limits, retries like the official SDKs, readable errors, no secrets in logs.
 */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { abortedError, type Clock, systemClock } from './clock';
import { createDispatcher, proxyHost } from './dispatcher';
import { undici } from './undici';
import { createProxyPolicy, isLoopback, type ProxyPolicy } from './proxyPolicy';
import { AuthError, DocChatError, ProtocolError, TimeoutError, ValidationError } from './errors';
import type { ClientOptions, LogLevel, TransportOptions } from './options';
import { RateLimiter } from './rateLimit';
import { errorFromNetwork, errorFromResponse, provablyNotSent, type ErrorContext } from './responseErrors';
import { DEFAULT_MAX_RETRIES, isRetryableStatus, retryDelay, serverRetryHint } from './retry';
import { parseResponse } from './validate';
import { shownUrl } from '../../common/shownUrl';

export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;
export const DEFAULT_BODY_TIMEOUT_MS = 60_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
export const GENERATION_HEADERS_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Headers = Record<string, string | string[] | undefined>;

export interface AuthScheme {
  header: string;
  value(token: string): string;
  /** How the credential is called in messages ("token", "API key"). */
  name: string;
}

export interface TransportConfig extends ClientOptions {
  /** "documents service" / "gateway", for messages. */
  service: string;
  auth: AuthScheme;
  defaultRateLimits: Readonly<Record<string, number | undefined>>;
}

export interface RequestSpec {
  operation: string;
  method: Method;
  /** Path below the base URL, starting with `/v1/`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: { data: Uint8Array; contentType: string };
  headers?: Record<string, string>;
  /** Default: every method but POST. Non-idempotent requests are only retried when provably not sent. */
  idempotent?: boolean;
  signal?: AbortSignal;
  accept?: string;
  headersTimeoutMs?: number;
  /** 0 disables undici's body timeout (streams use their own idle timeout). */
  bodyTimeoutMs?: number;
  /** A tighter bound on this response's body than maxResponseBytes, and the error for a body past it. */
  bodyLimit?: BodyLimit;
}

export interface BodyLimit {
  maxBytes: number;
  tooLarge(): DocChatError;
}

export interface OpenResponse {
  status: number;
  headers: Headers;
  contentType: string;
  requestId?: string;
  body: Dispatcher.ResponseData['body'];
  path: string;
}

export function headerValue(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isLoopbackHost(hostname: string): boolean {
  return isLoopback(hostname);
}

/** The decoded name of one `name=value` pair of a query as written. */
function queryKey(pair: string): string {
  const name = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

export class Transport {
  readonly clock: Clock;
  private readonly options: TransportOptions;
  private readonly limiter: RateLimiter;
  private readonly limits: Readonly<Record<string, number | undefined>>;
  private ownDispatcher?: Dispatcher;
  private warmDispatcher?: (origin: string) => void;
  private proxyPolicy?: ProxyPolicy;
  private closed = false;
  private readonly seenTokens = new Set<string>();

  constructor(private readonly config: TransportConfig) {
    this.options = config.transport ?? {};
    this.clock = this.options.clock ?? systemClock;
    const rl = config.rateLimits;
    this.limits = rl === false ? {} : { ...config.defaultRateLimits, ...(typeof rl === 'object' ? rl : {}) };
    this.limiter = new RateLimiter(this.limits, this.clock, config.onRateLimitWait);
    // A client is made before its first request (when DocChat connects): what that request would
    // otherwise build on its way is built as soon as the process is idle.
    setImmediate(() => this.warmUp()).unref();
  }

  /**
   * Loads undici and builds the connection pool and, for an https service, its trust store. Any
   * problem (a bad URL or proxy setting) is left for the first request to report.
   */
  warmUp(): void {
    if (this.closed || this.options.dispatcher) return;
    try {
      const origin = this.origin;
      this.dispatcher();
      this.warmDispatcher?.(origin);
    } catch {
      // Reported by the request that needs it.
    }
  }

  get service(): string {
    return this.config.service;
  }

  /**
   * The base URL without a trailing slash or `/v1` on its path (the request paths carry it). Its
   * query ("?api-version=2024-10-01", which gateways behind an API manager ask for) is kept and
   * sent with every request; a fragment is never sent.
   */
  private base(): URL {
    let url: URL;
    try {
      url = new URL(this.config.baseUrl.trim());
      url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
      url.hash = '';
    } catch {
      throw new ValidationError(
        'baseUrl',
        'an absolute http(s) URL',
        `The ${this.config.service} URL "${shownUrl(this.config.baseUrl)}" is not a valid URL.`,
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ValidationError(
        'baseUrl',
        'an http(s) URL',
        `The ${this.config.service} URL must start with https:// (it starts with ${url.protocol}//).`,
      );
    }
    if (url.username || url.password) {
      throw new ValidationError(
        'baseUrl',
        'no user name or password',
        `The ${this.config.service} URL must not contain a user name or password.`,
      );
    }
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !this.options.allowInsecureHttp) {
      throw new ValidationError(
        'baseUrl',
        'https:// unless the host is this machine',
        `DocChat does not send your ${this.config.auth.name} over plain http:// to ${url.host}. Use https://, or allow it with the docchat.network.allowInsecureHttp setting.`,
      );
    }
    return url;
  }

  get origin(): string {
    return this.base().origin;
  }

  private url(path: string, query?: RequestSpec['query']): URL {
    const base = this.base();
    const url = new URL(base.pathname.replace(/\/+$/, '') + path, base.origin);
    const own = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) own.set(key, String(value));
    }
    // The base URL's own parameters first, as written (a signed query must stay byte for byte); a
    // request's parameter of the same name takes its place.
    const kept = base.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '' && !own.has(queryKey(pair)));
    const search = [...kept, own.toString()].filter(Boolean).join('&');
    url.search = search ? `?${search}` : '';
    return url;
  }

  private dispatcher(): Dispatcher {
    if (this.options.dispatcher) return this.options.dispatcher;
    if (!this.ownDispatcher) {
      const { dispatcher, policy, warm } = createDispatcher(this.options);
      this.ownDispatcher = dispatcher;
      this.warmDispatcher = warm;
      this.proxyPolicy = policy;
    }
    return this.ownDispatcher;
  }

  /** `host:port` of the proxy requests to the service go through, if any (for messages). */
  private proxyHostForService(): string | undefined {
    this.proxyPolicy ??= createProxyPolicy(this.options);
    const proxy = this.proxyPolicy.proxyFor(this.origin);
    return proxy ? proxyHost(proxy) : undefined;
  }

  private log(level: LogLevel, message: string): void {
    this.config.log?.(level, this.redact(message));
  }

  /** Removes every token this transport has sent from a text (server messages may echo it). */
  redact(text: string): string {
    let out = text;
    for (const token of this.seenTokens) if (token.length >= 4) out = out.split(token).join('***');
    return out;
  }

  private async token(): Promise<string> {
    const source = this.config.token;
    const token = (typeof source === 'function' ? await source() : source)?.trim() ?? '';
    if (!token) {
      throw new AuthError(`No ${this.config.auth.name} is set for the ${this.config.service}.`, {
        hint: `Set the ${this.config.auth.name} first.`,
      });
    }
    if (!this.seenTokens.has(token)) {
      // A rotating token source must not grow this without bound; the newest ones matter.
      if (this.seenTokens.size >= 8) this.seenTokens.delete(this.seenTokens.values().next().value!);
      this.seenTokens.add(token);
    }
    return token;
  }

  private errorContext(path: string, requestId?: string, retryAfterMs?: number): ErrorContext {
    return {
      service: this.config.service,
      credential: this.config.auth.name,
      origin: this.origin,
      path,
      requestId,
      retryAfterMs,
      proxyHost: this.proxyHostForService(),
    };
  }

  private timeouts(spec: RequestSpec) {
    // An operation that names its own (long) headers timeout is a slow one: the long option applies.
    const headersMs =
      spec.headersTimeoutMs !== undefined
        ? (this.options.longHeadersTimeoutMs ?? spec.headersTimeoutMs)
        : (this.options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS);
    return {
      headersMs,
      bodyMs: spec.bodyTimeoutMs ?? this.options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    };
  }

  get maxResponseBytes(): number {
    return this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  /** The error for a response body beyond maxResponseBytes (a misbehaving server must not exhaust memory). */
  tooLargeError(requestId?: string, status?: number): ProtocolError {
    return new ProtocolError(
      `The ${this.config.service} sent a response larger than ${formatSize(this.maxResponseBytes)}; DocChat stopped reading it.`,
      { requestId, status, hint: 'Is the URL right, or is a proxy in the way?' },
    );
  }

  get streamIdleTimeoutMs(): number {
    return this.options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  }

  /** Sends one attempt, following redirects on the same origin only. */
  private async sendOnce(spec: RequestSpec, token: string): Promise<Dispatcher.ResponseData & { finalPath: string }> {
    const origin = this.origin;
    let url = this.url(spec.path, spec.query);
    let method: Method = spec.method;
    const payload = spec.json !== undefined ? { data: Buffer.from(JSON.stringify(spec.json)), contentType: 'application/json' } : spec.body;
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent ?? 'DocChat',
      accept: spec.accept ?? 'application/json',
      ...(spec.headers ?? {}),
      [this.config.auth.header]: this.config.auth.value(token),
    };
    if (payload) headers['content-type'] = payload.contentType;
    const { headersMs, bodyMs } = this.timeouts(spec);

    for (let hop = 0; ; hop++) {
      const response = await undici().request(url, {
        method,
        headers,
        body: payload ? payload.data : undefined,
        dispatcher: this.dispatcher(),
        signal: spec.signal,
        headersTimeout: headersMs,
        bodyTimeout: bodyMs,
      });
      if (!REDIRECT_STATUSES.has(response.statusCode)) return Object.assign(response, { finalPath: url.pathname });
      await response.body.dump().catch(() => undefined);
      const location = headerValue(response.headers, 'location');
      const requestId = requestIdOf(response.headers);
      if (!location) {
        throw new ProtocolError(`The ${this.config.service} answered ${response.statusCode} without saying where to.`, {
          status: response.statusCode,
          requestId,
        });
      }
      const target = new URL(location, url);
      if (target.origin !== origin) {
        throw new ProtocolError(
          `The ${this.config.service} redirected to another address (${target.origin}). DocChat does not follow it, so your ${this.config.auth.name} is not sent there.`,
          { status: response.statusCode, requestId, hint: 'Check the service URL in the settings.' },
        );
      }
      const keepsMethod = response.statusCode === 307 || response.statusCode === 308 || method === 'GET';
      if (!keepsMethod || hop >= MAX_REDIRECTS) {
        throw new ProtocolError(
          `The ${this.config.service} redirected ${method} ${url.pathname} to ${target.pathname}, which DocChat does not follow.`,
          {
            status: response.statusCode,
            requestId,
            hint: 'Check the service URL in the settings.',
          },
        );
      }
      this.log('debug', `${method} ${url.pathname} redirected to ${target.pathname}`);
      url = target;
      method = spec.method;
    }
  }

  /** Sends with rate limiting and retries; resolves with a 2xx response whose body is still unread. */
  async open(spec: RequestSpec): Promise<OpenResponse> {
    const idempotent = spec.idempotent ?? spec.method !== 'POST';
    const maxRetries = Math.max(0, this.options.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.base(); // refuses a bad or insecure URL before anything else happens
    let recovered = false;
    for (let retries = 0; ; retries++) {
      if (spec.signal?.aborted) throw abortedError(spec.signal);
      await this.limiter.acquire(spec.operation, spec.signal);
      const token = await this.token();
      const started = this.clock.now();
      let response: Dispatcher.ResponseData & { finalPath: string };
      try {
        response = await this.sendOnce(spec, token);
      } catch (raw) {
        if (spec.signal?.aborted) throw abortedError(spec.signal);
        const error = this.cleanError(errorFromNetwork(raw, this.errorContext(spec.path), this.timeouts(spec)));
        if (!recovered && provablyNotSent(raw) && this.config.onUnreachable) {
          recovered = true;
          if (await this.config.onUnreachable()) {
            this.log('info', `${spec.method} ${spec.path} could not connect; the server is back, sending it again`);
            retries--;
            continue;
          }
        }
        const mayRetry = error.retryable && retries < maxRetries && (idempotent || provablyNotSent(raw));
        this.log(mayRetry ? 'info' : 'warn', `${spec.method} ${spec.path} failed: ${error.message}`);
        if (!mayRetry) throw error;
        await this.backoff(spec, retries, {}, error.message);
        continue;
      }
      const requestId = requestIdOf(response.headers);
      const status = response.statusCode;
      const elapsed = this.clock.now() - started;
      this.log('debug', `${spec.method} ${response.finalPath} → ${status} (${elapsed} ms${requestId ? `, ${requestId}` : ''})`);
      const contentType = headerValue(response.headers, 'content-type') ?? '';
      if (status < 300) {
        return { status, headers: response.headers, contentType, requestId, body: response.body, path: response.finalPath };
      }

      // A streamed request reads without undici's body timeout (an answer may pause): its error body gets the stream's idle bound.
      const text = await readCapped(response.body, MAX_ERROR_BODY_BYTES, spec.bodyTimeoutMs === 0 ? this.streamIdleTimeoutMs : 0);
      const delay = retryDelay(retries, response.headers, this.options.random, Date.now());
      const error = this.cleanError(
        errorFromResponse(status, contentType, text, this.errorContext(response.finalPath, requestId, delay.serverSaid)),
      );
      // A wait past what DocChat waits for fails this request (below) and holds no other: each meets
      // the service's answer itself.
      if (status === 429 && !delay.tooLong) this.limiter.drain(spec.operation, delay.serverSaid ?? delay.delayMs);
      const retryable = serverRetryHint(response.headers) ?? isRetryableStatus(status);
      // A 429 is a refusal before any work was done, so even a non-idempotent request may go again.
      const allowed = idempotent || status === 429;
      if (!retryable || !allowed || retries >= maxRetries || delay.tooLong) throw error;
      this.log('info', `${spec.method} ${spec.path} answered ${status}; retrying (${retries + 1} of ${maxRetries})`);
      if (status === 429 && this.limits[spec.operation]) {
        // The limiter holds the next acquire() until the wait the 429 named is over, and the caller sees that wait.
        this.options.onRetry?.({ operation: spec.operation, attempt: retries + 1, delayMs: delay.delayMs, reason: `${status}` });
        continue;
      }
      if (status === 429) this.config.onRateLimitWait?.({ operation: spec.operation, waitMs: delay.delayMs });
      await this.backoff(spec, retries, response.headers, `${status}`, delay.delayMs);
    }
  }

  private async backoff(spec: RequestSpec, retries: number, headers: Headers, reason: string, delayMs?: number): Promise<void> {
    const wait = delayMs ?? retryDelay(retries, headers, this.options.random).delayMs;
    this.options.onRetry?.({ operation: spec.operation, attempt: retries + 1, delayMs: wait, reason });
    await this.clock.sleep(wait, spec.signal);
  }

  private cleanError<E extends DocChatError>(error: E): E {
    const redacted = this.redact(error.message);
    if (redacted !== error.message) Object.defineProperty(error, 'message', { value: redacted });
    return error;
  }

  /** A 2xx JSON response, validated tolerantly against `schema`. */
  async json<S extends z.ZodType>(spec: RequestSpec, schema: S, what: string): Promise<z.output<S>> {
    const response = await this.open(spec);
    const value = await this.readJson(response, spec);
    return parseResponse(schema, value, what, { status: response.status, requestId: response.requestId });
  }

  /** Reads a 2xx body as JSON; an HTML page or malformed JSON is a ProtocolError. */
  async readJson(response: OpenResponse, spec: RequestSpec): Promise<unknown> {
    // A streamed request reads without undici's body timeout (an answer may pause): a JSON answer to it gets the stream's idle bound.
    const idleMs = spec.bodyTimeoutMs === 0 ? this.streamIdleTimeoutMs : 0;
    const text = (await this.readBody(response, spec, (body) => this.readAllCapped(body, response, spec.bodyLimit, idleMs))).toString(
      'utf8',
    );
    const trimmed = text.trim();
    const details = { status: response.status, requestId: response.requestId };
    if (/text\/html/i.test(response.contentType) || /^<(!doctype|html|head|body)/i.test(trimmed)) {
      throw new ProtocolError(`The ${this.config.service} sent a web page instead of API data.`, {
        ...details,
        hint: 'Is the URL right, or is a proxy or sign-in page in the way?',
      });
    }
    if (trimmed === '') return undefined;
    try {
      return JSON.parse(trimmed);
    } catch {
      throw new ProtocolError(`The ${this.config.service} sent malformed JSON.`, details);
    }
  }

  async readBody<T>(response: OpenResponse, spec: RequestSpec, read: (body: OpenResponse['body']) => Promise<T>): Promise<T> {
    try {
      return await read(response.body);
    } catch (raw) {
      if (spec.signal?.aborted) throw abortedError(spec.signal);
      if (raw instanceof DocChatError) throw raw;
      throw this.cleanError(errorFromNetwork(raw, this.errorContext(response.path, response.requestId), this.timeouts(spec)));
    }
  }

  /** The whole body, refusing more than maxResponseBytes or `limit` (by Content-Length up front, else while reading). */
  async readAllCapped(
    body: OpenResponse['body'],
    response: Pick<OpenResponse, 'headers' | 'requestId' | 'status'>,
    limit?: BodyLimit,
    /** Gives up (the stream's idle error) when no data arrives for this long; 0: undici's body timeout bounds it. */
    idleMs = 0,
  ): Promise<Buffer> {
    const max = Math.min(this.maxResponseBytes, limit?.maxBytes ?? Infinity);
    const tooLarge = () =>
      limit && limit.maxBytes <= this.maxResponseBytes ? limit.tooLarge() : this.tooLargeError(response.requestId, response.status);
    const declared = Number(headerValue(response.headers, 'content-length'));
    if (Number.isFinite(declared) && declared > max) {
      discardBody(body);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stall = new IdleWatch(body, idleMs);
    try {
      for await (const chunk of body) {
        stall.arm();
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        size += buffer.length;
        if (size > max) {
          discardBody(body);
          throw tooLarge();
        }
        chunks.push(buffer);
      }
    } catch (error) {
      if (stall.stalled) throw this.streamIdleError(response.requestId);
      throw error;
    } finally {
      stall.stop();
    }
    if (stall.stalled) throw this.streamIdleError(response.requestId);
    // One chunk (a small body) needs no copy.
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  }

  /** A 2xx response's raw bytes. */
  async bytes(spec: RequestSpec): Promise<{ data: Uint8Array; contentType: string; requestId?: string }> {
    const response = await this.open(spec);
    const data = new Uint8Array(await this.readBody(response, spec, (body) => this.readAllCapped(body, response)));
    return { data, contentType: response.contentType, requestId: response.requestId };
  }

  /** An idle timeout for streams, raised as a TimeoutError with a readable message. */
  streamIdleError(requestId?: string): TimeoutError {
    return new TimeoutError(`The ${this.config.service} sent nothing for ${Math.round(this.streamIdleTimeoutMs / 1000)} s.`, {
      requestId,
      retryable: false,
    });
  }

  networkError(raw: unknown, path: string, requestId: string | undefined, spec: RequestSpec): DocChatError {
    return this.cleanError(errorFromNetwork(raw, this.errorContext(path, requestId), this.timeouts(spec)));
  }

  async close(): Promise<void> {
    this.closed = true;
    const dispatcher = this.ownDispatcher;
    this.ownDispatcher = undefined;
    await dispatcher?.close();
  }
}

export function requestIdOf(headers: Headers): string | undefined {
  return headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id') ?? headerValue(headers, 'x-correlation-id');
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * Stops reading a body. undici reports a body destroyed before its end as an aborted request; when
 * the end had already arrived nothing listens for that any more, and it would be an uncaught error.
 */
function discardBody(body: OpenResponse['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Destroys a body when no chunk arrives for `idleMs` after it starts or after `arm` (each chunk); 0 watches nothing. */
class IdleWatch {
  stalled = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly body: OpenResponse['body'],
    private readonly idleMs: number,
  ) {
    this.arm();
  }

  arm(): void {
    if (this.idleMs <= 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.stalled = true;
      this.body.destroy();
    }, this.idleMs);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** An error body, at most `maxBytes`; nothing when it broke off or sent no data for `idleMs` (0: no bound). */
async function readCapped(body: OpenResponse['body'], maxBytes: number, idleMs = 0): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stall = new IdleWatch(body, idleMs);
  try {
    for await (const chunk of body) {
      stall.arm();
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= maxBytes) {
        body.destroy();
        break;
      }
    }
  } catch {
    // A body that broke off or stalled is cut JSON at best: the status alone makes the error.
    return '';
  } finally {
    stall.stop();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
