/** The vector store picker's list (first page, recently used first). No `vscode` import. */
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
          this.current = { stores, loading: false };
          // A partial list cannot tell that a remembered store is gone (see defaultGrounding).
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
