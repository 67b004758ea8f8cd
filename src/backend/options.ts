import type { ConversionLimits } from './convert/limits';
import type { ConversionTimer } from './convert/pool';
import type { DocumentsOperation } from '../api/documents/schemas';
import type { TransportOptions } from '../api/http/options';

/**
 * How the backend reaches the upstream and crawled pages: the same proxy rules, exemptions and
 * certificates as the extension's own clients (see src/api/http/dispatcher.ts). Without them, the
 * environment's `HTTPS_PROXY` / `NO_PROXY` / `NODE_EXTRA_CA_CERTS` still apply.
 */
export type NetworkOptions = Pick<
  TransportOptions,
  'proxy' | 'noProxy' | 'proxyAuthorization' | 'strictSSL' | 'caFiles' | 'systemCertificates' | 'useEnvProxy' | 'env' | 'connectTimeoutMs'
>;

export type BackendLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
export type BackendLog = (level: BackendLogLevel, message: string) => void;

export interface UpstreamOptions {
  /** Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (`/v1` is added when missing). */
  url: string;
  key?: string;
  /**
   * Embedding model used for hybrid search of new files. Default: the first upstream model whose
   * id contains "embed"; none found means keyword (BM25) search only.
   */
  embeddingModel?: string;
  /**
   * Path of the embeddings endpoint below the base URL: `/embeddings` (OpenAI-compatible servers,
   * the default) or `/embed` (the company gateway).
   */
  embedPath?: string;
}

export interface BackendOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Folder for persisted data; created when missing. */
  dataDir: string;
  /** Documents service bearer token. */
  token: string;
  /** Gateway Api-Key (may equal the token). */
  apiKey: string;
  /**
   * Per-minute rate limits of the documents service (default true: the documents' table, as the
   * command line has them). false turns them off: the extension's Local mode (the process serves
   * one user on their own machine, where the limits would only slow a folder sync or search down)
   * and benchmarks. An object overrides single operations.
   */
  rateLimits?: boolean | Partial<Record<DocumentsOperation, number>>;
  /** Upload size limit, default 50 MiB; larger uploads get 413. */
  maxUploadBytes?: number;
  /** Files above this size fail conversion as too large; default 32 MiB. */
  maxConvertBytes?: number;
  /** Bounds of every conversion (time, memory, HTML depth, output) and the number of workers. */
  conversion?: Partial<ConversionLimits>;
  /** How a conversion's time bound is timed; default the wall clock (tests expire it themselves). */
  conversionTimer?: ConversionTimer;
  /** OpenAI-compatible server for chat, embeddings and model lists. */
  upstream?: UpstreamOptions;
  /** Proxy and certificates for the backend's own outgoing calls (upstream, web crawl). */
  network?: NetworkOptions;
  /** People directory for skillshare (JSON); default: the bundled sample. */
  skillsFile?: string;
  log?: BackendLog;
  /**
   * Shared-process mode: windows hold leases (`/v1/local/leases`) and the backend asks to stop
   * (`onStop`) `idleExitMs` after the last one is gone, or when a newer version asks it to.
   */
  lifetime?: BackendLifetime;
}

export interface BackendLifetime {
  idleExitMs: number;
  /** A lease not renewed within this time is gone; default 90 s. */
  leaseTtlMs?: number;
  /** Version of the extension that started the process, reported to the windows. */
  version: string;
  onStop(reason: string): void;
}

export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
