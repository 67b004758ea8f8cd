/**
 * The vector store picker's list (first page, recently used first), which follows the stores tree:
 * stores created, renamed and deleted there show at once. No `vscode` import.
 */
import type { StoreCatalogState } from '../../chatCore/protocol';

export interface StoreLister {
  listVectorStores(
    params?: { limit?: number },
    options?: { signal?: AbortSignal },
  ): Promise<{ data: ReadonlyArray<{ id: string; name: string }>; hasMore?: boolean }>;
}

/** More stores than a picker can usefully show; the rest stay reachable through the tree. */
export const STORE_PICKER_LIMIT = 100;

export class StoreCatalog {
  private current: StoreCatalogState = { stores: [], loading: false };
  private inflight: Promise<StoreCatalogState> | undefined;
  private listed: StoreCatalogState['stores'] | undefined;
  /**
   * Stores seen to go: deleted in the tree, or listed once and missing from a later complete list.
   * A store this window never listed (created elsewhere since) is not gone: the service decides.
   */
  private readonly gone = new Set<string>();

  get state(): StoreCatalogState {
    return this.current;
  }

  /** The stores of the last successful load; undefined before one (or while not connected). */
  get known(): StoreCatalogState['stores'] | undefined {
    return this.listed;
  }

  nameOf(id: string): string | undefined {
    return this.current.stores.find((s) => s.id === id)?.name;
  }

  /**
   * A store was created, or its record changed (renamed): the list shows it at once, without
   * asking the service again. A new store comes first, as the tree shows it.
   */
  upsert(store: { id: string; name: string }): boolean {
    const entry = { id: store.id, name: store.name || store.id };
    this.gone.delete(store.id);
    const index = this.current.stores.findIndex((s) => s.id === store.id);
    const stores = index >= 0 ? this.current.stores.map((s, i) => (i === index ? entry : s)) : [entry, ...this.current.stores];
    if (index >= 0 && this.current.stores[index]!.name === entry.name) return false;
    this.replaceStores(stores);
    return true;
  }

  /** A store was deleted: it leaves the list (and the known stores) at once. */
  remove(id: string): boolean {
    this.gone.add(id);
    if (!this.current.stores.some((s) => s.id === id)) return false;
    this.replaceStores(this.current.stores.filter((s) => s.id !== id));
    return true;
  }

  /**
   * The stores tree listed `stores` (its first page; `complete` when that is every store): names
   * follow it, and a complete list also drops the stores that are gone and adds the new ones.
   */
  follow(stores: ReadonlyArray<{ id: string; name: string }>, complete: boolean): boolean {
    const listed = new Map(stores.map((s) => [s.id, s.name || s.id]));
    let next = this.current.stores.map((s) => (listed.has(s.id) ? { id: s.id, name: listed.get(s.id)! } : s));
    if (complete) {
      this.noteGone(next, listed);
      const known = new Set(next.map((s) => s.id));
      next = [
        ...stores.filter((s) => !known.has(s.id)).map((s) => ({ id: s.id, name: s.name || s.id })),
        ...next.filter((s) => listed.has(s.id)),
      ];
    }
    const changed =
      next.length !== this.current.stores.length ||
      next.some((s, i) => s.id !== this.current.stores[i]!.id || s.name !== this.current.stores[i]!.name);
    if (!changed && (!complete || this.current.complete)) return false;
    this.replaceStores(next, complete || undefined);
    return true;
  }

  /** True when the store is known to be gone: deleted, or dropped from a list of every store. */
  isGone(id: string): boolean {
    return this.gone.has(id);
  }

  /** A complete list `now` holds every store: those listed before and missing now are gone. */
  private noteGone(before: StoreCatalogState['stores'], now: ReadonlyMap<string, string>): void {
    for (const id of now.keys()) this.gone.delete(id);
    for (const store of before) if (!now.has(store.id)) this.gone.add(store.id);
  }

  private replaceStores(stores: StoreCatalogState['stores'], complete = this.current.complete): void {
    const { complete: _complete, ...rest } = this.current;
    this.current = { ...rest, stores, ...(complete ? { complete: true } : {}) };
    if (complete || this.listed) this.listed = stores;
  }

  load(lister: StoreLister | undefined, order: (ids: string[]) => string[] = (ids) => ids): Promise<StoreCatalogState> {
    if (!lister) {
      this.listed = undefined;
      this.current = { stores: [], loading: false, error: 'Not connected to the documents service.' };
      return Promise.resolve(this.current);
    }
    if (this.inflight) {
      return this.inflight;
    }
    this.current = { ...this.current, loading: true };
    this.inflight = lister
      .listVectorStores({ limit: STORE_PICKER_LIMIT })
      .then(
        (page) => {
          const byId = new Map(page.data.map((s) => [s.id, { id: s.id, name: s.name || s.id }]));
          const stores = order([...byId.keys()]).map((id) => byId.get(id)!);
          if (!page.hasMore) this.noteGone(this.current.stores, new Map(stores.map((s) => [s.id, s.name])));
          // A partial list cannot tell that a remembered store is gone (see defaultGrounding).
          this.current = { stores, loading: false, ...(page.hasMore ? {} : { complete: true }) };
          this.listed = page.hasMore ? undefined : stores;
          return this.current;
        },
        (error: unknown) => {
          this.current = {
            stores: this.current.stores,
            loading: false,
            error: `Could not list the vector stores: ${error instanceof Error ? error.message : String(error)}`,
          };
          return this.current;
        },
      )
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }
}
