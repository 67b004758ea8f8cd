import type { Dispatcher } from 'undici';
import type { DocumentsOperation } from '../documents/schemas';
import type { GatewayOperation } from '../gateway/schemas';
import type { Clock } from './clock';

export type Operation = DocumentsOperation | GatewayOperation;
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
export type LogSink = (level: LogLevel, message: string) => void;

export interface TransportOptions {
  /** Proxy URL for both http and https targets (VS Code's `http.proxy`). Without it, `*_PROXY` env vars apply. */
  proxy?: string;
  /** Hosts that bypass the proxy (VS Code's `http.noProxy`), e.g. `["localhost", ".corp.example"]`. */
  noProxy?: string[] | string;
  /** Read `HTTP_PROXY` / `HTTPS_PROXY` (when no proxy is given) and `NO_PROXY`. Default true. */
  useEnvProxy?: boolean;
  /** Sent as `Proxy-Authorization` to the proxy (VS Code's `http.proxyAuthorization`). */
  proxyAuthorization?: string;
  /** Trust the operating system's certificates too (VS Code's `http.systemCertificates`). Default true. */
  systemCertificates?: boolean;
  /** Environment for `*_PROXY`, `NO_PROXY` and `NODE_EXTRA_CA_CERTS`. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Verify TLS certificates (VS Code's `http.proxyStrictSSL`). Default true. */
  strictSSL?: boolean;
  /** Files with extra PEM certificates to trust, in addition to Node's roots. */
  caFiles?: string[];
  /** Extra PEM certificates to trust, as text. */
  ca?: string[];
  connectTimeoutMs?: number;
  /** Time to wait for response headers. Default 60 s. */
  headersTimeoutMs?: number;
  /** Time to wait for the headers of slow operations (uploads, generation, crawls). Default 5–10 min, per operation. */
  longHeadersTimeoutMs?: number;
  /** Largest response body read into memory (JSON, file content, a whole stream). Default 256 MiB. */
  maxResponseBytes?: number;
  /** Time allowed between chunks of a response body. Default 60 s. */
  bodyTimeoutMs?: number;
  /** Time allowed between events of a stream. Default 120 s. */
  streamIdleTimeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Allow plain http:// to hosts other than loopback. Default false. */
  allowInsecureHttp?: boolean;
  userAgent?: string;
  /** Use this dispatcher instead of building one (then the client does not close it). */
  dispatcher?: Dispatcher;
  /** Time source (tests inject one that does not really sleep). */
  clock?: Clock;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Observes each retry before its backoff. */
  onRetry?: (e: { operation: string; attempt: number; delayMs: number; reason: string }) => void;
}

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:4123`; the `/v1` prefix is added by the client. */
  baseUrl: string;
  /** Bearer token (documents) or Api-Key (gateway); a function is called for every request. */
  token: string | (() => string | Promise<string>);
  transport?: TransportOptions;
  /** Client-side limits per operation (requests per sliding minute, as the service counts them). Default on. */
  rateLimits?: boolean | Partial<Record<Operation, number>>;
  onRateLimitWait?: (e: { operation: string; waitMs: number }) => void;
  /**
   * Told when a request could not reach the server at all (nothing was sent). Resolves true when
   * the server is back (Local mode restarts its backend at the same address); the request is then
   * sent once more at once, whatever its method.
   */
  onUnreachable?: () => Promise<boolean>;
  /** Never receives secrets. */
  log?: LogSink;
}

export interface CallOptions {
  signal?: AbortSignal;
}
