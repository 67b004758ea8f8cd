import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { SecretKeys } from '../common/constants';
import { Disposable, toDisposable } from '../common/lifecycle';
import type { Logger } from '../common/log';
import type { SecretsService } from './secrets';

/** The subset of the backend bundle's exports the extension uses. */
interface BackendModule {
  startBackend(options: {
    host?: string;
    port?: number;
    dataDir: string;
    token: string;
    apiKey: string;
    upstream?: LocalUpstream;
    network?: LocalNetwork;
    log?: (level: 'trace' | 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  }): Promise<{ url: string; port: number; close(): Promise<void> }>;
}

/**
 * The local backend's upstream: the company gateway, whose embeddings make Local mode's search
 * hybrid (BM25 + vectors; the gateway names the endpoint `/v1/embed`), or a language-model server
 * the user chose ("Use a Language Model…"), which answers chat. See `localUpstream`.
 */
export interface LocalUpstream {
  url: string;
  key?: string;
  embeddingModel?: string;
  embedPath?: '/embed';
}

/**
 * DocChat's network settings for the backend's own calls (upstream, web crawl): the same proxy
 * rules and certificates as the extension's clients. Holds http.proxyAuthorization: never logged.
 */
export interface LocalNetwork {
  proxy?: string;
  noProxy?: string[];
  proxyAuthorization?: string;
  strictSSL?: boolean;
  caFiles?: string[];
  systemCertificates?: boolean;
}

/** The gateway's documented default embedding model. */
export const DEFAULT_GATEWAY_EMBEDDING_MODEL = 'text-embed-3-small';

export interface LocalEndpoint {
  readonly url: string;
  readonly token: string;
}

/**
 * Runs the embedded backend inside the extension host ("Local" mode). The bundle is loaded
 * only when Local mode is first needed, so activation never pays for it.
 */
export class LocalBackend extends Disposable {
  private running: Promise<{ endpoint: LocalEndpoint; close(): Promise<void> }> | undefined;
  /** The upstream and network the running backend was started with, to restart it when they change. */
  private runningUpstream: string | undefined;

  constructor(
    private readonly context: Pick<vscode.ExtensionContext, 'extensionPath' | 'globalStorageUri'>,
    private readonly secrets: SecretsService,
    private readonly log: Logger,
  ) {
    super();
    this._register(toDisposable(() => void this.stop()));
  }

  get dataDir(): string {
    return path.join(this.context.globalStorageUri.fsPath, 'backend');
  }

  /**
   * Starts the backend once; later calls return the same endpoint, unless the upstream or the
   * network settings changed, which restarts it (same data folder and token).
   */
  async start(upstream?: LocalUpstream, network?: LocalNetwork): Promise<LocalEndpoint> {
    const signature = JSON.stringify({ upstream, network });
    if (this.running && signature !== this.runningUpstream) {
      await this.stop();
    }
    this.runningUpstream = signature;
    this.running ??= this.launch(upstream, network).catch((error: unknown) => {
      this.running = undefined;
      throw error;
    });
    return (await this.running).endpoint;
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (running) {
      try {
        await (await running).close();
        this.log.info('Local backend stopped');
      } catch (error) {
        this.log.warn(`Local backend did not stop cleanly: ${String(error)}`);
      }
    }
  }

  private async launch(upstream: LocalUpstream | undefined, network: LocalNetwork | undefined): Promise<{ endpoint: LocalEndpoint; close(): Promise<void> }> {
    const token = await this.localToken();
    await fs.mkdir(this.dataDir, { recursive: true });
    const bundle = path.join(this.context.extensionPath, 'dist', 'backend.js');
    // A runtime require keeps the backend out of the extension bundle and off the activation path.
    const backend = require(bundle) as BackendModule;
    if (typeof backend.startBackend !== 'function') {
      throw new Error(`${bundle} does not export startBackend`);
    }
    let server: Awaited<ReturnType<BackendModule['startBackend']>>;
    try {
      server = await backend.startBackend({
        host: '127.0.0.1',
        port: 0,
        dataDir: this.dataDir,
        token,
        apiKey: token,
        upstream,
        network,
        log: this.log.child('backend').sink(),
      });
    } catch (error) {
      // Another window of this profile already serves the same data folder (with the same token
      // from the shared secret storage): use its backend rather than fail.
      const locked = error as { name?: unknown; url?: unknown };
      if (locked.name === 'DataDirLockedError' && typeof locked.url === 'string') {
        this.log.info(`Using the local backend another window runs at ${locked.url}`);
        return { endpoint: { url: locked.url, token }, close: async () => undefined };
      }
      throw error;
    }
    const hybrid = upstream?.embeddingModel ? `, hybrid search with ${upstream.embeddingModel} from ${upstream.url}` : upstream ? `, chat forwarded to ${upstream.url}` : '';
    this.log.info(`Local backend listening on ${server.url} (data in ${this.dataDir}${hybrid})`);
    return { endpoint: { url: server.url, token }, close: () => server.close() };
  }

  /** The generated token, kept in SecretStorage so restarts keep the same one. */
  private async localToken(): Promise<string> {
    const existing = await this.secrets.get(SecretKeys.localToken);
    if (existing) {
      return existing;
    }
    const token = crypto.randomBytes(32).toString('base64url');
    await this.secrets.set(SecretKeys.localToken, token);
    return token;
  }
}
