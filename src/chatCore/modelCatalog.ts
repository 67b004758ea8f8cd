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
 * The setting wins when set (unless it is marked unavailable); otherwise the local model when
 * offered, else the first one that is not marked unavailable.
 */
export function pickDefaultModel(options: readonly ModelOption[], configured: string): string | undefined {
  if (configured && !options.some((o) => o.id === configured && o.unavailable)) {
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

  constructor(
    private readonly storage: KeyValueStore,
    private readonly now: () => number = Date.now,
    /**
     * Models found unusable this session, with the reason (shared with "Use a Language Model…"):
     * marked in the list until a forced refresh (Refresh Model List) asks the server again.
     */
    private readonly unavailable: Map<string, UnavailableModel> = new Map(),
  ) {}

  get state(): ModelCatalogState {
    return this.current;
  }

  /**
   * `model` answered: its server answers again, so no model is "server not answering" any more
   * (a model the server refused stays marked). False when nothing changed.
   */
  markAnswered(model: string): boolean {
    if (!this.unavailable.get(model)?.server) return false;
    for (const [id, mark] of this.unavailable) if (mark.server) this.unavailable.delete(id);
    this.set(this.ids, this.configuredDefault, this.error);
    return true;
  }

  /**
   * Marks `model` unavailable for `reason`; with `server`, every model of the language-model
   * server (all but local-extractive) too. Kept in the list, marked, until a forced refresh.
   */
  markUnavailable(model: string, reason: string, server = false): ModelCatalogState {
    const ids = server ? [model, ...this.ids.filter((id) => id !== LOCAL_CHAT_MODEL)] : [model];
    for (const id of ids) {
      // A model the server refused stays marked with that reason when the whole server stops.
      if (id === LOCAL_CHAT_MODEL || (server && this.unavailable.has(id) && !this.unavailable.get(id)!.server)) continue;
      this.unavailable.set(id, { reason, ...(server ? { server } : {}) });
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
      const mark = this.unavailable.get(m.id);
      return mark ? { ...m, unavailable: mark.reason } : m;
    });
    const defaultModel = pickDefaultModel(models, configuredDefault);
    this.current = { models, loading: false, ...(error ? { error } : {}), ...(defaultModel ? { defaultModel } : {}) };
    return this.current;
  }
}
