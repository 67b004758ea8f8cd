import * as vscode from 'vscode';
import type * as LifetimeClient from '../api/lifetime/client';
import { atFirstUse } from '../common/atFirstUse';
import { Disposable } from '../common/lifecycle';
import type { Logger } from '../common/log';
import { ConfigService } from './config';
import { ConnectionService } from './connection';
import { GroundingMemory } from './defaultGrounding';
import { DocumentsEvents } from './documentsEvents';
import { ErrorReporter } from './errors';
import { LocalBackend } from './localBackend';
import { ModelServerMemory } from './modelServerMemory';
import { RateLimitMonitor } from './rateLimits';
import { RecentStores } from './recentStores';
import { SecretsService } from './secrets';
import { setCommandUse } from './commands';
import { StatusBar } from './statusBar';

export type { ConnectionState, GatewayUnavailable } from './connection';
export type { DocChatSettings } from './settingsModel';

/** The lease client and its schemas (zod) load when the window first joins a backend, not at activation. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const lifetimeClient = atFirstUse(() => require('../api/lifetime/client') as typeof LifetimeClient);

/**
 * What every feature's `register(context, services)` receives.
 *
 * - `connection.documents` / `connection.gateway`: the current clients (undefined while signed
 *   out or starting); read them when needed and listen to `connection.onDidChange`.
 * - `config.current`: normalised settings (`defaultModel`, `projectCode`, `pageSize`, …).
 * - `errors.report(error, vscode.l10n.t('DocChat: could not do something.'))`: shows an error once with "Open Output" / "Set Token".
 * - `log`: the "DocChat" output channel; `log.child('chat')` tags a component.
 * - `documentsEvents`: tell the stores tree about stores/files a feature created or changed.
 */
export interface Services {
  readonly log: Logger;
  readonly config: ConfigService;
  readonly secrets: SecretsService;
  readonly connection: ConnectionService;
  readonly rateLimits: RateLimitMonitor;
  readonly errors: ErrorReporter;
  readonly localBackend: LocalBackend;
  readonly recentStores: RecentStores;
  readonly documentsEvents: DocumentsEvents;
  /** The grounding chosen last in this workspace (chat panel and `@docchat`). */
  readonly grounding: GroundingMemory;
  /** The language-model server Local mode forwards chat to, if the user chose one. */
  readonly modelServer: ModelServerMemory;
}

export class ExtensionServices extends Disposable implements Services {
  readonly config: ConfigService;
  readonly secrets: SecretsService;
  readonly connection: ConnectionService;
  readonly rateLimits: RateLimitMonitor;
  readonly errors: ErrorReporter;
  readonly localBackend: LocalBackend;
  readonly recentStores: RecentStores;
  readonly documentsEvents: DocumentsEvents;
  readonly grounding: GroundingMemory;
  readonly modelServer: ModelServerMemory;

  constructor(
    context: vscode.ExtensionContext,
    readonly log: Logger,
  ) {
    super();
    this.config = this._register(new ConfigService());
    this.secrets = this._register(new SecretsService(context.secrets));
    this.rateLimits = this._register(new RateLimitMonitor());
    this.errors = new ErrorReporter(log.child('errors'), this.rateLimits, () => void this.connection.unreachable());
    this.grounding = new GroundingMemory(context.workspaceState);
    this.modelServer = new ModelServerMemory(context.globalState);
    const version = String(context.extension.packageJSON.version ?? '0.0.0');
    // Tests and `npm start` shorten the shared backend's idle time (and a window's lease, which
    // lasts three heartbeats) through the environment.
    const idleExitMs = Number(process.env.DOCCHAT_LOCAL_IDLE_EXIT_MS) || undefined;
    const heartbeatMs = Number(process.env.DOCCHAT_LOCAL_HEARTBEAT_MS) || undefined;
    this.localBackend = this._register(
      new LocalBackend(context, log.child('local'), {
        version,
        idleExitMs,
        heartbeatMs,
        leaseClient: (options) => new (lifetimeClient().LeaseClient)(options),
      }),
    );
    this.connection = this._register(
      new ConnectionService(
        this.config,
        this.secrets,
        this.localBackend,
        this.rateLimits,
        log.child('connection'),
        `DocChat/${version} VSCode/${vscode.version}`,
        this.modelServer,
      ),
    );
    this.recentStores = new RecentStores(context.globalState);
    this.documentsEvents = this._register(new DocumentsEvents());
    this._register(setCommandUse((reason) => this.connection.use(reason)));
    this._register(new StatusBar(this.connection, this.rateLimits));
  }
}
