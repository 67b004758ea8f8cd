import * as l10n from '@vscode/l10n';
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { TransportOptions } from '../../api/http/options';
import { upstreamSignature, isProcessAlive, type DiscoveryInfo } from '../../common/discoveryFile';
import { Disposable, type DisposableLike, toDisposable } from '../../common/lifecycle';
import type { Logger } from '../../common/log';
import { CrashPolicy } from './crashPolicy';
import { BackendFiles, judge } from './discovery';
import { type LeaseClientFactory, WindowLease } from './lease';
import { delay, spawnBackend, waitForExit } from './spawner';

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
 * rules and certificates as the extension's clients. Holds http.proxyAuthorization, so it goes to
 * the backend in its environment, never on its command line, and is never logged.
 */
export type LocalNetwork = Pick<
  TransportOptions,
  'proxy' | 'noProxy' | 'proxyAuthorization' | 'strictSSL' | 'caFiles' | 'systemCertificates'
>;

/** The gateway's documented default embedding model. */
export const DEFAULT_GATEWAY_EMBEDDING_MODEL = 'text-embed-3-small';

export interface LocalEndpoint {
  readonly url: string;
  readonly token: string;
}

export interface LocalBackendOptions {
  /** Version of this extension; an older running backend is replaced by a newer one. */
  version: string;
  /** Node to run the backend with; default `process.execPath` (with ELECTRON_RUN_AS_NODE=1). */
  execPath?: string;
  /** Arguments before the script, e.g. `--require tsx/cjs` in tests. */
  execArgv?: string[];
  /** Script to run; default `<extension>/dist/backend-cli.js`. */
  script?: string;
  /** The backend exits this long after the last window let go; default 5 minutes. */
  idleExitMs?: number;
  /** A window renews its lease this often; the lease lasts three times as long. Default 30 s. */
  heartbeatMs?: number;
  /**
   * Use the running backend whatever upstream it forwards to (the MCP server, which knows no
   * upstream, must not replace the one a window started with its gateway). Default false.
   */
  anyUpstream?: boolean;
  /** Makes the client of the backend's lease API (see LeaseClientFactory). */
  leaseClient: LeaseClientFactory;
}

const START_TIMEOUT_MS = 120_000;

/**
 * Local mode: one backend process per VS Code profile, shared by all its windows. The first
 * window that needs it starts `dist/backend-cli.js` as a detached Node process (`spawner.ts`); it
 * writes a discovery file (URL, pid, version, token; mode 0600) in the profile's global storage,
 * which the other windows read (`discovery.ts`). Each window holds a lease it renews
 * (`lease.ts`); the backend exits on its own a while after the last lease is gone. A backend that
 * dies is started again (same port and token, so open clients keep working); a crash loop ends
 * in one error (`crashPolicy.ts`). Plain Node, no `vscode` import: the MCP server uses it too.
 */
export class LocalBackend extends Disposable {
  private connecting: Promise<LocalEndpoint> | undefined;
  private endpoint: LocalEndpoint | undefined;
  private signature: string | null = null;
  private upstream: LocalUpstream | undefined;
  private network: LocalNetwork | undefined;
  /** The OCR languages the backend reads scans in, when not its default. */
  private ocrLanguages: readonly string[] | undefined;
  /** The process this window started and watches, if it started the backend. */
  private child: ChildProcess | undefined;
  /** The restart under way after the backend stopped. */
  private restarting: Promise<LocalEndpoint> | undefined;
  /** Raised by stop(): a connection or restart begun before it gives up instead of spawning. */
  private epoch = 0;
  private readonly files: BackendFiles;
  private readonly lease: WindowLease;
  private readonly crashPolicy = new CrashPolicy();
  private readonly changeListeners = new Set<(endpoint: LocalEndpoint | Error) => void>();
  private currentPid: number | undefined;

  constructor(
    /** The extension's folder and the profile's storage folder (what an ExtensionContext has). */
    private readonly context: { readonly extensionPath: string; readonly globalStorageUri: { readonly fsPath: string } },
    private readonly log: Logger,
    private readonly options: LocalBackendOptions,
  ) {
    super();
    this.files = new BackendFiles(context.globalStorageUri.fsPath);
    this.lease = new WindowLease(options.heartbeatMs ?? 30_000, options.leaseClient);
    this._register(toDisposable(() => void this.stop().finally(() => this.lease.close())));
  }

  get storageDir(): string {
    return this.files.storageDir;
  }
  get dataDir(): string {
    return this.files.dataDir;
  }
  get discoveryFile(): string {
    return this.files.discoveryFile;
  }
  get logFile(): string {
    return this.files.logFile;
  }
  /** Process id of the backend this window uses, when connected. */
  get pid(): number | undefined {
    return this.currentPid;
  }

  /** Fires with the endpoint after the backend was restarted, or with the error that ended the restarts. */
  onDidChange(listener: (endpoint: LocalEndpoint | Error) => void): DisposableLike {
    this.changeListeners.add(listener);
    return { dispose: () => void this.changeListeners.delete(listener) };
  }

  /**
   * Connects to the profile's backend, starting it when none runs; later calls return the same
   * endpoint unless the upstream (or the OCR languages) changed, which replaces the backend (same
   * data folder and token).
   */
  async start(upstream?: LocalUpstream, network?: LocalNetwork, ocrLanguages?: readonly string[]): Promise<LocalEndpoint> {
    const signature = upstreamSignature(upstream, network as Record<string, unknown> | undefined, ocrLanguages);
    if (signature !== this.signature) {
      this.signature = signature;
      this.upstream = upstream;
      this.network = network;
      this.ocrLanguages = ocrLanguages;
      this.connecting = undefined;
    }
    this.crashPolicy.reset();
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  /**
   * Checks the backend now (after a request could not reach it) and restarts it when it is gone.
   * Resolves true once it answers (again), false when it could not be started.
   */
  async probe(): Promise<boolean> {
    const endpoint = this.endpoint;
    if (!endpoint && !this.restarting) return false;
    if (!this.restarting && endpoint && (await this.lease.renew(endpoint))) return true;
    if (!this.restarting) this.recover('it did not answer');
    return (
      this.restarting?.then(
        () => true,
        () => false,
      ) ?? false
    );
  }

  /** Lets go of this window's lease; the backend stays up for the other windows (or idles out). */
  async stop(): Promise<void> {
    this.epoch++;
    this.lease.stopHeartbeat();
    const endpoint = this.endpoint;
    this.endpoint = undefined;
    this.connecting = undefined;
    this.child = undefined;
    if (endpoint) {
      await this.lease.release(endpoint);
      this.log.info('Released the local backend');
    }
  }

  private async connect(): Promise<LocalEndpoint> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const epoch = this.epoch;
    const stillWanted = () => {
      if (epoch !== this.epoch || this.isDisposed) throw new Error(l10n.t('Local mode was stopped while its backend was starting.'));
    };
    const wanted = { version: this.options.version, upstream: this.signature, anyUpstream: this.options.anyUpstream };
    while (Date.now() < deadline) {
      stillWanted();
      const info = await this.files.readDiscovery();
      const check = info && (await judge(info, this.files, wanted, (candidate) => this.lease.take(candidate)));
      stillWanted();
      if (check?.kind === 'ok') return this.use(check.info);
      if (check?.kind === 'busy') {
        await delay(200);
        continue;
      }
      if (check?.kind === 'replace') {
        this.log.info(`Replacing the local backend (process ${check.info.pid}): ${check.why}`);
        await this.lease.askToStop(check.info);
        await waitForExit(check.info.pid, 30_000);
      } else if (check?.kind === 'stale') {
        this.log.info(`The local backend's discovery file is stale (${check.why}); starting a new backend`);
        if (isProcessAlive(check.info.pid) && (await this.files.lockHolder()) === check.info.pid) {
          process.kill(check.info.pid, 'SIGTERM');
          await waitForExit(check.info.pid, 15_000);
        }
        await this.files.removeDiscoveryIf(check.info);
      } else if (check?.kind === 'gone') {
        this.log.info(`The local backend (process ${check.info.pid}) is gone; starting a new one`);
      }
      // Another backend holds the data folder and is still loading it: wait for its file.
      const holder = await this.files.lockHolder();
      if (holder !== undefined && holder !== check?.info.pid && isProcessAlive(holder)) {
        await delay(200);
        continue;
      }
      stillWanted();
      // The successor keeps the address and token of the backend it follows (the discovery file's,
      // or, when the backend stopped and removed its file, the one this window used), so the
      // clients already made go on working; the backend takes a free port when that one is taken.
      const keep = check ? (check.kind !== 'stale' ? check.info : undefined) : this.endpoint;
      const outcome = await spawnBackend({
        files: this.files,
        execPath: this.options.execPath ?? process.execPath,
        execArgv: this.options.execArgv ?? [],
        script: this.options.script ?? path.join(this.context.extensionPath, 'dist', 'backend-cli.js'),
        ownerVersion: this.options.version,
        idleExitMs: this.options.idleExitMs ?? 5 * 60_000,
        leaseTtlMs: this.lease.ttlMs,
        token: keep?.token,
        port: keep ? portOf(keep.url) : 0,
        upstream: this.upstream,
        network: this.network,
        ocrLanguages: this.ocrLanguages,
      });
      if (outcome.kind === 'started') {
        this.watch(outcome.child);
        this.log.info(`Started the local backend (process ${outcome.child.pid}, log in ${this.logFile})`);
      } else if (outcome.kind === 'failed') {
        throw new Error(l10n.t('The local DocChat backend could not start: {0}. See {1}.', outcome.why, this.logFile));
      }
    }
    throw new Error(l10n.t('The local DocChat backend did not start within {0} s. See {1}.', START_TIMEOUT_MS / 1000, this.logFile));
  }

  private use(info: DiscoveryInfo): LocalEndpoint {
    const endpoint = { url: info.url, token: info.token };
    this.endpoint = endpoint;
    this.currentPid = info.pid;
    this.log.info(`Using the local backend at ${info.url} (process ${info.pid}, version ${info.version}; data in ${this.dataDir})`);
    this.lease.startHeartbeat(() => void this.probe());
    return endpoint;
  }

  /** The window that started the backend hears at once when it dies. */
  private watch(child: ChildProcess): void {
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.isDisposed) return;
      this.child = undefined;
      // Exit code 0: it was asked to stop (a newer version replaces it) or idled out; the next
      // probe or request finds its successor. Anything else is a crash: start it again now.
      if (code === 0) {
        this.log.info('The local backend stopped on request; the next request finds its successor');
        return;
      }
      this.recover(signal ? `it was ended by ${signal}` : `it exited with code ${code}`);
    });
  }

  private recover(why: string): void {
    if (this.restarting || this.isDisposed || !this.endpoint) return;
    this.log.warn(`The local backend stopped (${why}); starting it again`);
    const decision = this.crashPolicy.crashed(this.logFile);
    if (decision.action === 'stop') {
      this.lease.stopHeartbeat();
      this.endpoint = undefined;
      this.connecting = undefined;
      const failure = new Error(decision.message);
      this.log.error(failure.message);
      this.fire(failure);
      return;
    }
    const previous = this.endpoint;
    const epoch = this.epoch;
    const restarting = delay(decision.delayMs).then(() => {
      if (epoch !== this.epoch) throw new Error(l10n.t('Local mode was stopped.'));
      this.connecting = this.connect();
      return this.connecting;
    });
    this.restarting = restarting;
    void restarting
      .then(
        (endpoint) => {
          this.log.info(
            endpoint.url === previous.url ? 'The local backend is back at the same address' : `The local backend moved to ${endpoint.url}`,
          );
          this.fire(endpoint);
        },
        (error: unknown) => {
          this.connecting = undefined;
          if (epoch !== this.epoch) return;
          this.log.error(`Could not restart the local backend: ${String(error)}`);
          this.fire(error instanceof Error ? error : new Error(String(error)));
        },
      )
      .finally(() => {
        if (this.restarting === restarting) this.restarting = undefined;
      });
  }

  private fire(value: LocalEndpoint | Error): void {
    for (const listener of this.changeListeners) listener(value);
  }
}

function portOf(url: string): number {
  try {
    return Number(new URL(url).port) || 0;
  } catch {
    return 0;
  }
}
