/**
 * The model picker's list: the gateway's completion models (cached for an hour, refreshable)
 * plus, from a gateway that has the deprecated inference endpoint, the legacy models only it
 * serves, marked with the endpoint's retirement date. Local mode's backend lists what it serves
 * (local-extractive and the chosen language-model server's models) and nothing else: a model it
 * cannot serve is never offered. No `vscode` import.
 */
import { COMPLETION_MODELS, INFERENCE_RETIREMENT, LEGACY_INFERENCE_MODELS, LOCAL_CHAT_MODEL } from '../api/gateway/models';
import type { ModelCatalogState, ModelOption } from './protocol';
import { StateKeys } from '../common/constants';

/** Why a model cannot be used this session; `server`: its whole server does not answer. */
export interface UnavailableModel {
  reason: string;
  server?: boolean;
}

/** The origin of Local mode's model list when its backend forwards chat to the model server at `url`. */
export function localModelOrigin(url: string): string {
  return `local+${url}`;
}

/**
 * The models a server refused for chat this session ("whisper-1" does not support chat), with the
 * server's reason, per server (the model list's origin) and model id: a list asked again (Refresh
 * Model List, the server started again) still marks them, and another server's model of the same
 * name is not marked. An answer from the model drops its mark. Not kept between sessions.
 */
export class ModelRefusals {
  private readonly reasons = new Map<string, string>();

  private static key(origin: string, model: string): string {
    return `${origin}\n${model}`;
  }

  refuse(origin: string, model: string, reason: string): void {
    this.reasons.set(ModelRefusals.key(origin, model), reason);
  }

  /** Why the server at `origin` refused `model`, or undefined when it did not. */
  reason(origin: string, model: string): string | undefined {
    return this.reasons.get(ModelRefusals.key(origin, model));
  }

  /** Forgets a refusal (the model answered, or the user chose it again); false when there was none. */
  clear(origin: string, model: string): boolean {
    return this.reasons.delete(ModelRefusals.key(origin, model));
  }
}

export interface ModelLister {
  listCompletionModels(options?: { signal?: AbortSignal }): Promise<ReadonlyArray<{ id: string }>>;
}

/** Where the list is kept between sessions (VS Code's globalState in the extension). */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

interface CachedList {
  /** Which gateway the list came from: lists differ between the local backend and a remote one. */
  origin: string;
  fetchedAt: number;
  ids: string[];
}

const CACHE_KEY = StateKeys.chatModelList;
export const MODEL_LIST_TTL_MS = 60 * 60 * 1000;

const LEGACY = new Set<string>(LEGACY_INFERENCE_MODELS);

export function isLegacyModel(id: string): boolean {
  return LEGACY.has(id);
}

/**
 * Who answers the chat: `gateway`, a company gateway (its models and the legacy ones of its
 * inference endpoint); `local`, Local mode's backend (only what it lists).
 */
export type ModelServer = 'gateway' | 'local';

export function modelOptions(completionIds: readonly string[], server: ModelServer = 'gateway'): ModelOption[] {
  const completion = [...new Set(completionIds)].filter((id) => !LEGACY.has(id));
  return [
    ...completion.map((id): ModelOption => ({ id, kind: 'completion' })),
    ...(server === 'gateway'
      ? LEGACY_INFERENCE_MODELS.map((id): ModelOption => ({ id, kind: 'legacy', retirement: INFERENCE_RETIREMENT }))
      : []),
  ];
}

/** The models a server surely has, shown until it lists its own. */
function documentedModels(server: ModelServer): string[] {
  return server === 'local' ? [LOCAL_CHAT_MODEL] : [...COMPLETION_MODELS];
}

/**
 * The setting wins when set, also when it is marked unavailable (the chat shows it marked, and
 * asking says why: nothing switches to another model without the user); otherwise the local
 * model when offered, else the first one that is not marked unavailable.
 */
export function pickDefaultModel(options: readonly ModelOption[], configured: string): string | undefined {
  if (configured) {
    return configured;
  }
  const completion = options.filter((o) => o.kind === 'completion' && !o.unavailable);
  return (completion.find((o) => o.id === LOCAL_CHAT_MODEL) ?? completion[0] ?? options[0])?.id;
}

export class ModelCatalog {
  private current: ModelCatalogState = { models: modelOptions([]), loading: false };
  private server: ModelServer = 'gateway';
  private inflight: Promise<ModelCatalogState> | undefined;

  private configuredDefault = '';
  private ids: readonly string[] = [];
  private error: string | undefined;
  /** Where the list comes from (see `load`): the server a refusal is remembered for. */
  private origin = '';

  constructor(
    private readonly storage: KeyValueStore,
    private readonly now: () => number = Date.now,
    /**
     * Models whose server does not answer, with the reason (shared with "Use a Language Model…"):
     * marked in the list until the server answers or a forced refresh (Refresh Model List) asks it.
     */
    private readonly unavailable: Map<string, UnavailableModel> = new Map(),
    /** Models their server refused for chat this session (shared with "Use a Language Model…"). */
    private readonly refusals: ModelRefusals = new ModelRefusals(),
  ) {}

  get state(): ModelCatalogState {
    return this.current;
  }

  /** Why the current server refused `model` for chat this session, or undefined. */
  refusal(model: string): string | undefined {
    return model === LOCAL_CHAT_MODEL ? undefined : this.refusals.reason(this.origin, model);
  }

  /**
   * `model` answered: its server answers again, so no model is "server not answering" any more,
   * and `model` itself is no longer refused (another model the server refused stays marked).
   * False when nothing changed.
   */
  markAnswered(model: string): boolean {
    const refused = this.refusals.clear(this.origin, model);
    if (!refused && !this.unavailable.get(model)?.server) return false;
    for (const [id, mark] of this.unavailable) if (mark.server) this.unavailable.delete(id);
    this.set(this.ids, this.configuredDefault, this.error);
    return true;
  }

  /**
   * Marks `model` unavailable for `reason`; with `server`, every model of the language-model
   * server (all but local-extractive) too, until the server answers again. Without `server`, the
   * server refused the model: remembered for this server for the session (see `ModelRefusals`).
   */
  markUnavailable(model: string, reason: string, server = false): ModelCatalogState {
    if (model !== LOCAL_CHAT_MODEL && !server) this.refusals.refuse(this.origin, model, reason);
    if (server) {
      for (const id of [model, ...this.ids]) if (id !== LOCAL_CHAT_MODEL) this.unavailable.set(id, { reason, server });
    }
    return this.set(this.ids, this.configuredDefault, this.error);
  }

  /**
   * The list for `origin`: from the cache when fresh (and not `force`), else from the gateway.
   * When the gateway cannot list, the last list (or the documented models) stays, with the error.
   */
  load(
    lister: ModelLister | undefined,
    origin: string,
    configuredDefault: string,
    force = false,
    server: ModelServer = 'gateway',
  ): Promise<ModelCatalogState> {
    this.server = server;
    this.origin = origin;
    // A refusal stays (it is the model's, see `ModelRefusals`); whether the server answers is asked again.
    if (force) this.unavailable.clear();
    const cached = this.storage.get<CachedList>(CACHE_KEY);
    const usable = cached && cached.origin === origin && Array.isArray(cached.ids) ? cached : undefined;
    if (!force && usable && this.now() - usable.fetchedAt < MODEL_LIST_TTL_MS) {
      return Promise.resolve(this.set(usable.ids, configuredDefault));
    }
    if (!lister) {
      return Promise.resolve(
        this.set(usable?.ids ?? documentedModels(server), configuredDefault, 'Not connected to a language-model gateway.'),
      );
    }
    if (this.inflight) {
      return this.inflight;
    }
    this.current = { ...this.current, loading: true };
    this.inflight = lister
      .listCompletionModels()
      .then(
        async (models) => {
          const ids = models.map((m) => m.id).filter((id) => typeof id === 'string' && id !== '');
          // The server says which of its models cannot be used now (a model server that stopped).
          for (const m of models) {
            const reason = (m as { unavailable?: unknown }).unavailable;
            if (typeof reason === 'string' && reason && m.id !== LOCAL_CHAT_MODEL) this.unavailable.set(m.id, { reason, server: true });
          }
          await this.storage.update(CACHE_KEY, { origin, fetchedAt: this.now(), ids } satisfies CachedList);
          return this.set(ids, configuredDefault);
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          return this.set(usable?.ids ?? documentedModels(server), configuredDefault, `Could not list the models: ${message}`);
        },
      )
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  private set(ids: readonly string[], configuredDefault: string, error?: string): ModelCatalogState {
    this.ids = ids;
    this.configuredDefault = configuredDefault;
    this.error = error;
    const models = modelOptions(ids, this.server).map((m) => {
      // A refusal says more than "server not answering": it stays when the whole server stops.
      const reason = this.refusal(m.id) ?? this.unavailable.get(m.id)?.reason;
      return reason ? { ...m, unavailable: reason } : m;
    });
    const defaultModel = pickDefaultModel(models, configuredDefault);
    this.current = { models, loading: false, ...(error ? { error } : {}), ...(defaultModel ? { defaultModel } : {}) };
    return this.current;
  }
}
