import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  compareVersions,
  DISCOVERY_FILE_NAME,
  isProcessAlive,
  readDiscovery,
  upstreamSignature,
  type DiscoveryInfo,
} from '../common/discoveryFile';
import { Disposable, type DisposableLike, toDisposable } from '../common/lifecycle';
import type { Logger } from '../common/log';

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
}

/** Crash loop: this many unexpected exits within `CRASH_WINDOW_MS` stop the restarts. */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 3 * 60_000;
const START_TIMEOUT_MS = 120_000;
const EXIT_DATA_DIR_LOCKED = 3;

type Check =
  | { kind: 'ok'; info: DiscoveryInfo }
  | { kind: 'replace'; info: DiscoveryInfo; why: string }
  | { kind: 'stale'; info: DiscoveryInfo; why: string }
  /** Its process died (a crash): start a new one with the same token and port. */
  | { kind: 'gone'; info: DiscoveryInfo }
  | { kind: 'busy'; info: DiscoveryInfo };

/**
 * Local mode: one backend process per VS Code profile, shared by all its windows. The first
 * window that needs it starts `dist/backend-cli.js` as a detached Node process; it writes a
 * discovery file (URL, pid, version, token; mode 0600) in the profile's global storage, which the
 * other windows read. Each window holds a lease it renews; the backend exits on its own a while
 * after the last lease is gone. A backend that dies is started again (same port and token, so
 * open clients keep working); a crash loop ends in one error.
 */
export class LocalBackend extends Disposable {
  private connecting: Promise<LocalEndpoint> | undefined;
  private endpoint: LocalEndpoint | undefined;
  private signature: string | null = null;
  private upstream: LocalUpstream | undefined;
  private network: LocalNetwork | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private child: ChildProcess | undefined;
  /** The restart under way after the backend stopped. */
  private restarting: Promise<LocalEndpoint> | undefined;
  /** Raised by stop(): a connection or restart begun before it gives up instead of spawning. */
  private epoch = 0;
  private readonly crashes: number[] = [];
  private failure: Error | undefined;
  private readonly leaseId = `w${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly changeListeners = new Set<(endpoint: LocalEndpoint | Error) => void>();

  constructor(
    /** The extension's folder and the profile's storage folder (what an ExtensionContext has). */
    private readonly context: { readonly extensionPath: string; readonly globalStorageUri: { readonly fsPath: string } },
    private readonly log: Logger,
    private readonly options: LocalBackendOptions,
  ) {
    super();
    this._register(toDisposable(() => void this.stop()));
  }

  get storageDir(): string {
    return this.context.globalStorageUri.fsPath;
  }
  get dataDir(): string {
    return path.join(this.storageDir, 'backend');
  }
  get discoveryFile(): string {
    return path.join(this.storageDir, DISCOVERY_FILE_NAME);
  }
  get logFile(): string {
    return path.join(this.storageDir, 'backend.log');
  }
  /** Process id of the backend this window uses, when connected. */
  get pid(): number | undefined {
    return this.currentPid;
  }
  private currentPid: number | undefined;

  /** Fires with the endpoint after the backend was restarted, or with the error that ended the restarts. */
  onDidChange(listener: (endpoint: LocalEndpoint | Error) => void): DisposableLike {
    this.changeListeners.add(listener);
    return { dispose: () => void this.changeListeners.delete(listener) };
  }

  /**
   * Connects to the profile's backend, starting it when none runs; later calls return the same
   * endpoint unless the upstream changed, which replaces the backend (same data folder and token).
   */
  async start(upstream?: LocalUpstream, network?: LocalNetwork): Promise<LocalEndpoint> {
    const signature = upstreamSignature(upstream, network as Record<string, unknown> | undefined);
    if (signature !== this.signature) {
      this.signature = signature;
      this.upstream = upstream;
      this.network = network;
      this.connecting = undefined;
    }
    this.failure = undefined;
    this.crashes.length = 0;
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
    if (!this.endpoint && !this.restarting) return false;
    if (!this.restarting && (await this.renewLease())) return true;
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
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const endpoint = this.endpoint;
    this.endpoint = undefined;
    this.connecting = undefined;
    this.child = undefined;
    if (endpoint) {
      await this.request(endpoint, 'DELETE', `/v1/local/leases/${this.leaseId}`).catch(() => undefined);
      this.log.info('Released the local backend');
    }
  }

  private async connect(): Promise<LocalEndpoint> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const epoch = this.epoch;
    const stillWanted = () => {
      if (epoch !== this.epoch || this.isDisposed) throw new Error('Local mode was stopped while its backend was starting.');
    };
    while (Date.now() < deadline) {
      stillWanted();
      const check = await this.check(await readDiscovery(this.discoveryFile));
      stillWanted();
      if (check?.kind === 'ok') return this.use(check.info);
      if (check?.kind === 'busy') {
        await delay(200);
        continue;
      }
      if (check?.kind === 'replace') {
        this.log.info(`Replacing the local backend (process ${check.info.pid}): ${check.why}`);
        await this.request(check.info, 'POST', '/v1/local/shutdown').catch(() => undefined);
        await waitForExit(check.info.pid, 30_000);
      } else if (check?.kind === 'stale') {
        this.log.info(`The local backend's discovery file is stale (${check.why}); starting a new backend`);
        if (isProcessAlive(check.info.pid) && (await this.lockHolder()) === check.info.pid) {
          process.kill(check.info.pid, 'SIGTERM');
          await waitForExit(check.info.pid, 15_000);
        }
        await this.removeDiscoveryIf(check.info);
      } else if (check?.kind === 'gone') {
        this.log.info(`The local backend (process ${check.info.pid}) is gone; starting a new one`);
      }
      // Another backend holds the data folder and is still loading it: wait for its file.
      const holder = await this.lockHolder();
      if (holder !== undefined && holder !== check?.info.pid && isProcessAlive(holder)) {
        await delay(200);
        continue;
      }
      stillWanted();
      const keep = check && check.kind !== 'stale' ? check.info : undefined;
      const outcome = await this.spawnBackend(keep?.token, keep ? portOf(keep.url) : 0);
      if (outcome !== 'locked' && outcome !== 'started') {
        throw new Error(`The local DocChat backend could not start: ${outcome}. See ${this.logFile}.`);
      }
    }
    throw new Error(`The local DocChat backend did not start within ${START_TIMEOUT_MS / 1000} s. See ${this.logFile}.`);
  }

  /** What to do with the backend a discovery file names. */
  private async check(info: DiscoveryInfo | undefined): Promise<Check | undefined> {
    if (!info) return undefined;
    if (!isProcessAlive(info.pid)) return { kind: 'gone', info };
    let status: number;
    let body: { pid?: number; version?: string } = {};
    try {
      const response = await this.request(info, 'POST', '/v1/local/leases', { id: this.leaseId, ttl_ms: this.leaseTtlMs });
      status = response.status;
      body = (await response.json().catch(() => ({}))) as typeof body;
    } catch {
      // Alive but not answering: still loading its data, or the pid belongs to something else now.
      return (await this.lockHolder()) === info.pid
        ? { kind: 'busy', info }
        : { kind: 'stale', info, why: 'nothing answers at its address' };
    }
    if (status === 401) return { kind: 'stale', info, why: 'the backend there does not accept its token' };
    if (status !== 200 || body.pid !== info.pid) return { kind: 'stale', info, why: `the backend there answered ${status}` };
    if (compareVersions(body.version ?? info.version, this.options.version) < 0) {
      return { kind: 'replace', info, why: `it runs version ${body.version ?? info.version}, this window ${this.options.version}` };
    }
    if (info.upstream !== this.signature && !this.options.anyUpstream) {
      return { kind: 'replace', info, why: 'the embeddings upstream changed' };
    }
    return { kind: 'ok', info };
  }

  private use(info: DiscoveryInfo): LocalEndpoint {
    const endpoint = { url: info.url, token: info.token };
    this.endpoint = endpoint;
    this.currentPid = info.pid;
    this.log.info(`Using the local backend at ${info.url} (process ${info.pid}, version ${info.version}; data in ${this.dataDir})`);
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => void this.probe(), this.heartbeatMs);
    this.heartbeat.unref?.();
    return endpoint;
  }

  /**
   * Starts a backend process. Resolves 'started' once its discovery file names it, 'locked' when
   * another process won the data folder (its file is read next), or a sentence saying why not.
   */
  private async spawnBackend(token: string | undefined, port: number): Promise<'started' | 'locked' | string> {
    await fs.mkdir(this.storageDir, { recursive: true });
    const logHandle = await fs.open(this.logFile, 'a', 0o600);
    const script = this.options.script ?? path.join(this.context.extensionPath, 'dist', 'backend-cli.js');
    const upstream = this.upstream;
    const args = [
      ...(this.options.execArgv ?? []),
      script,
      '--data-dir',
      this.dataDir,
      '--discovery-file',
      this.discoveryFile,
      '--port',
      String(port),
      '--owner-version',
      this.options.version,
      '--idle-exit-ms',
      String(this.options.idleExitMs ?? 5 * 60_000),
      '--lease-ttl-ms',
      String(this.leaseTtlMs),
      ...(upstream ? ['--upstream', upstream.url] : []),
      ...(upstream?.embeddingModel ? ['--upstream-embed-model', upstream.embeddingModel] : []),
      ...(upstream?.embedPath ? ['--upstream-embed-path', upstream.embedPath] : []),
    ];
    let child: ChildProcess;
    try {
      child = spawn(this.options.execPath ?? process.execPath, args, {
        detached: true,
        stdio: ['ignore', 'ignore', logHandle.fd],
        windowsHide: true,
        env: {
          ...process.env,
          ELECTRON_RUN_AS_NODE: '1',
          DOCCHAT_BACKEND_TOKEN: token ?? randomBytes(32).toString('base64url'),
          ...(upstream?.key ? { DOCCHAT_UPSTREAM_KEY: upstream.key } : {}),
          ...(this.network ? { DOCCHAT_NETWORK: JSON.stringify(this.network) } : {}),
        },
      });
    } finally {
      await logHandle.close();
    }
    child.unref();
    const exited = new Promise<number | string>((resolve) => {
      child.once('exit', (code, signal) => resolve(code ?? String(signal)));
      child.once('error', (error) => resolve(error.message));
    });
    let outcome: number | string | undefined;
    void exited.then((value) => (outcome = value));
    while (outcome === undefined) {
      const info = await readDiscovery(this.discoveryFile);
      if (info?.pid === child.pid) {
        this.watch(child);
        this.log.info(`Started the local backend (process ${child.pid}, log in ${this.logFile})`);
        return 'started';
      }
      await Promise.race([delay(100), exited]);
    }
    if (outcome === EXIT_DATA_DIR_LOCKED) return 'locked';
    return typeof outcome === 'number' ? `it exited with code ${outcome}` : `it ended (${outcome})`;
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
    const now = Date.now();
    this.crashes.push(now);
    while (this.crashes.length && this.crashes[0]! < now - CRASH_WINDOW_MS) this.crashes.shift();
    this.log.warn(`The local backend stopped (${why}); starting it again`);
    if (this.crashes.length >= MAX_CRASHES) {
      clearInterval(this.heartbeat);
      this.endpoint = undefined;
      this.connecting = undefined;
      this.failure = new Error(
        `The local DocChat backend stopped ${this.crashes.length} times within 3 minutes, so it is not restarted again. See the DocChat output and ${this.logFile}.`,
      );
      this.log.error(this.failure.message);
      this.fire(this.failure);
      return;
    }
    const backoff = Math.min(250 * 2 ** (this.crashes.length - 1), 8_000);
    const previous = this.endpoint;
    const epoch = this.epoch;
    const restarting = delay(backoff).then(() => {
      if (epoch !== this.epoch) throw new Error('Local mode was stopped.');
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

  private async renewLease(): Promise<boolean> {
    const endpoint = this.endpoint;
    if (!endpoint) return false;
    try {
      const response = await this.request(endpoint, 'POST', '/v1/local/leases', { id: this.leaseId, ttl_ms: this.leaseTtlMs });
      await response.body?.cancel();
      return response.status === 200;
    } catch {
      return false;
    }
  }

  private get heartbeatMs(): number {
    return this.options.heartbeatMs ?? 30_000;
  }
  private get leaseTtlMs(): number {
    return this.heartbeatMs * 3;
  }

  private request(endpoint: { url: string; token: string }, method: string, route: string, body?: unknown): Promise<Response> {
    return fetch(`${endpoint.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${endpoint.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
  }

  /** The pid in the data folder's lock file: the process that really serves the data. */
  private async lockHolder(): Promise<number | undefined> {
    try {
      const lock = JSON.parse(await fs.readFile(path.join(this.dataDir, 'backend.lock'), 'utf8')) as { pid?: unknown };
      return typeof lock.pid === 'number' ? lock.pid : undefined;
    } catch {
      return undefined;
    }
  }

  private async removeDiscoveryIf(info: DiscoveryInfo): Promise<void> {
    const current = await readDiscovery(this.discoveryFile);
    if (current && current.pid === info.pid && current.startedAt === info.startedAt) {
      await fs.rm(this.discoveryFile, { force: true });
    }
  }
}

function portOf(url: string): number {
  try {
    return Number(new URL(url).port) || 0;
  } catch {
    return 0;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) await delay(50);
}
