import * as vscode from 'vscode';
import type { DocumentsClient } from '../api/documents/client';
import type { GatewayClient } from '../api/gateway/client';
import { ContextKeys, SecretKeys } from '../common/constants';
import { Disposable, toDisposable } from '../common/lifecycle';
import type { Logger } from '../common/log';
import {
  createDocumentsClient,
  createGatewayClient,
  localOcrLanguages,
  networkOptions,
  planConnection,
  type ClientHooks,
  type Endpoint,
} from './clientFactory';
import type { ConfigService } from './config';
import type { LocalBackend } from './localBackend';
import { announceLocalBackendChange } from './localBackendNotices';
import { localUpstream } from './localUpstream';
import type { ModelServerMemory } from './modelServerMemory';
import type { RateLimitMonitor } from './rateLimits';
import type { SecretsService } from './secrets';
import { CLIENT_SETTING_KEYS, hostLabel } from './settingsModel';

export type ConnectionState =
  /** DocChat has not been used in this window yet: nothing is started, nothing is requested. */
  | { readonly kind: 'idle' }
  | { readonly kind: 'starting' }
  | { readonly kind: 'local'; readonly url: string }
  | { readonly kind: 'remote'; readonly url: string; readonly host: string }
  | { readonly kind: 'signedOut'; readonly url: string; readonly host: string }
  | { readonly kind: 'error'; readonly message: string };

/** Why the gateway client is missing, for features that need it (chat). */
export type GatewayUnavailable = 'noUrl' | 'noApiKey' | 'notReady';

/**
 * Owns the current DocumentsClient and GatewayClient and rebuilds them whenever a setting or a
 * secret they depend on changes (in this window or another). Features read `documents`/`gateway`
 * at the moment they need them and listen to `onDidChange`.
 */
export class ConnectionService extends Disposable {
  private _state: ConnectionState = { kind: 'idle' };
  private _documents: DocumentsClient | undefined;
  private _gateway: GatewayClient | undefined;
  private _gatewayUnavailable: GatewayUnavailable | undefined = 'notReady';
  private generation = 0;
  private queue: Promise<void> = Promise.resolve();
  private firstUse: Promise<void> | undefined;
  private readonly ready: Promise<void>;
  private markReady!: () => void;
  /** The check of the local backend that `unreachable` started and that is still running. */
  private probing: Promise<boolean> | undefined;
  /** The OCR-language sentence last shown, so a wrong setting is said once. */
  private ocrLanguagesWarned: string | undefined;

  private readonly _onDidChange = this._register(new vscode.EventEmitter<ConnectionState>());
  /** Fires after the clients were rebuilt (new URL, token, proxy …) or the mode changed. */
  readonly onDidChange = this._onDidChange.event;

  constructor(
    private readonly config: ConfigService,
    private readonly secrets: SecretsService,
    private readonly localBackend: LocalBackend,
    private readonly rateLimits: RateLimitMonitor,
    private readonly log: Logger,
    private readonly userAgent: string,
    private readonly modelServer: ModelServerMemory,
  ) {
    super();
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this._register(
      toDisposable(() => {
        void this._documents?.close().catch(() => undefined);
        void this._gateway?.close().catch(() => undefined);
      }),
    );
    this._register(
      config.onDidChange((e) => {
        if (this.firstUse && (e.affectsHttp || CLIENT_SETTING_KEYS.some((k) => e.affects(k)))) {
          void this.rebuild('settings changed');
        }
      }),
    );
    this._register(
      secrets.onDidChange((key) => {
        if (this.firstUse) {
          void this.rebuild(`${key} changed`);
        }
      }),
    );
    this._register(
      localBackend.onDidChange((change) => {
        announceLocalBackendChange(change, this.log);
        if (change instanceof Error) {
          this.apply({ kind: 'error', message: change.message }, undefined, undefined, 'notReady');
        } else {
          void this.rebuild('the local backend restarted');
        }
      }),
    );
    void this.setContext();
  }

  get state(): ConnectionState {
    return this._state;
  }
  get documents(): DocumentsClient | undefined {
    return this._documents;
  }
  get gateway(): GatewayClient | undefined {
    return this._gateway;
  }
  get gatewayUnavailable(): GatewayUnavailable | undefined {
    return this._gateway ? undefined : this._gatewayUnavailable;
  }

  /** Resolves once the first connection attempt finished (whatever its outcome); see `use`. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** True once DocChat was used in this window (see `use`). */
  get used(): boolean {
    return this.firstUse !== undefined;
  }

  /**
   * DocChat is used in this window (its view shown, one of its commands, the chat panel,
   * `@docchat`, a folder sync to resume): connect, which in Local mode starts or joins the local
   * backend. Only the first call connects; every call resolves once that first attempt finished.
   * Activation never calls it, so a window that does not use DocChat starts and requests nothing.
   */
  use(reason: string): Promise<void> {
    if (!this.firstUse) {
      this.log.info(`DocChat is used in this window (${reason}): connecting`);
      this.firstUse = this.rebuild(`first use: ${reason}`);
    }
    return this.ready;
  }

  /**
   * A request could not reach its server. The one route to the local backend's check, taken by
   * the clients' transport, the error reporter and the chat: in Local mode the backend is asked
   * whether it still answers and is restarted when it is gone (outside Local mode there is none
   * and nothing happens). Reports that arrive while a check runs share it. Resolves true once the
   * backend answers (again).
   */
  unreachable(): Promise<boolean> {
    this.probing ??= this.localBackend.probe().finally(() => (this.probing = undefined));
    return this.probing;
  }

  /**
   * The user asked to restart Local mode's backend: a backend that still answers is kept, one that
   * stopped is started again (the check of `unreachable`), and one given up on after repeated
   * crashes, or never started, is started anew. Resolves once that attempt finished.
   */
  async restartLocal(): Promise<void> {
    if (await this.unreachable()) return;
    await this.rebuild('the local backend was restarted from the chat');
  }

  /** Serialised: a newer rebuild always wins over one still starting the local backend. */
  rebuild(reason: string): Promise<void> {
    const generation = ++this.generation;
    this.queue = this.queue.then(() => (generation === this.generation ? this.doRebuild(reason) : undefined));
    return this.queue;
  }

  private async doRebuild(reason: string): Promise<void> {
    const settings = this.config.current;
    const [documentsToken, gatewayApiKey] = await Promise.all([
      this.secrets.get(SecretKeys.documentsToken),
      this.secrets.get(SecretKeys.gatewayApiKey),
    ]);
    const plan = planConnection(settings, { documentsToken, gatewayApiKey });
    this.log.debug(`Connecting (${reason}): ${plan.kind}`);
    const hooks: ClientHooks = {
      onRateLimitWait: (e) => this.rateLimits.report(e.operation, e.waitMs),
      log: this.log.child('api').sink(),
      userAgent: this.userAgent,
    };
    let state: ConnectionState;
    let documents: DocumentsClient | undefined;
    let gatewayEndpoint: Endpoint | undefined;
    let gatewayHooks = hooks;
    try {
      if (plan.kind === 'local') {
        if (this._state.kind !== 'local') {
          this.apply({ kind: 'starting' }, undefined, undefined, 'notReady');
        }
        const modelServer = this.modelServer.choice;
        const modelServerKey = modelServer?.hasKey ? await this.secrets.get(SecretKeys.modelServerKey) : undefined;
        const upstream = localUpstream(plan.gateway, settings, modelServer && { url: modelServer.url, key: modelServerKey });
        const ocr = localOcrLanguages(settings);
        if (ocr.error && ocr.error !== this.ocrLanguagesWarned) {
          // Said once per wrong setting; the shipped languages of the setting are used meanwhile.
          this.ocrLanguagesWarned = ocr.error;
          this.log.warn(`docchat.attach.ocrLanguages: ${ocr.error}`);
          void vscode.window.showWarningMessage(vscode.l10n.t('DocChat setting docchat.attach.ocrLanguages: {0}', ocr.error));
        }
        const local = await this.localBackend.start(upstream, networkOptions(settings), ocr.languages);
        // The local backend serves this user alone, without the service's per-minute limits.
        const localHooks: ClientHooks = { ...hooks, onUnreachable: () => this.unreachable(), rateLimits: false };
        documents = createDocumentsClient(settings, local, localHooks);
        gatewayEndpoint = plan.gateway === 'local' ? local : plan.gateway;
        if (plan.gateway === 'local') gatewayHooks = localHooks;
        state = { kind: 'local', url: local.url };
      } else {
        await this.localBackend.stop();
        gatewayEndpoint = plan.gateway;
        if (plan.kind === 'remote') {
          documents = createDocumentsClient(settings, plan.documents, hooks);
          state = { kind: 'remote', url: plan.documents.url, host: hostLabel(plan.documents.url) };
        } else {
          state = { kind: 'signedOut', url: plan.documentsUrl, host: hostLabel(plan.documentsUrl) };
        }
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error(`Could not start the local backend: ${message}`);
      this.apply({ kind: 'error', message }, undefined, undefined, 'notReady');
      return;
    }
    const gateway = gatewayEndpoint ? createGatewayClient(settings, gatewayEndpoint, gatewayHooks) : undefined;
    const unavailable: GatewayUnavailable | undefined = gateway ? undefined : settings.gatewayUrl ? 'noApiKey' : 'noUrl';
    this.apply(state, documents, gateway, unavailable);
  }

  private apply(
    state: ConnectionState,
    documents: DocumentsClient | undefined,
    gateway: GatewayClient | undefined,
    unavailable: GatewayUnavailable | undefined,
  ): void {
    if (this.isDisposed) {
      return;
    }
    const previous = [this._documents, this._gateway];
    this._state = state;
    this._documents = documents;
    this._gateway = gateway;
    // Requests already running on the old clients finish; their idle connections are released.
    for (const client of previous) {
      if (client && client !== documents && client !== gateway) {
        client.close().catch((error: unknown) => this.log.debug(`Closing a replaced client failed: ${String(error)}`));
      }
    }
    this._gatewayUnavailable = unavailable;
    void this.setContext();
    if (state.kind !== 'starting') {
      this.markReady();
    }
    this._onDidChange.fire(state);
  }

  private async setContext(): Promise<void> {
    const s = this._state;
    await vscode.commands.executeCommand('setContext', ContextKeys.connection, s.kind);
    await vscode.commands.executeCommand('setContext', ContextKeys.localMode, s.kind === 'local');
    await vscode.commands.executeCommand('setContext', ContextKeys.signedIn, s.kind === 'local' || s.kind === 'remote');
    await vscode.commands.executeCommand('setContext', ContextKeys.unavailable, s.kind === 'signedOut' || s.kind === 'error');
  }
}
