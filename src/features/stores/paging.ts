/**
 * A list loaded page by page ("Load more"). No `vscode` import: the tree nodes hold one of these
 * and the paging rules are unit-tested against the real backend.
 */

export interface PageRequest {
  after?: string;
  limit: number;
}

/** The part of the client's ListPage the tree needs. */
export interface Page<T> {
  data: T[];
  lastId: string | null;
  hasMore: boolean;
}

export type PageFetcher<T> = (request: PageRequest) => Promise<Page<T>>;

export class PagedList<T extends { id: string }> {
  private _items: T[] = [];
  private _hasMore = false;
  private _loaded = false;
  private cursor: string | undefined;
  private inFlight: Promise<void> | undefined;
  /** Bumped by reset(), so a page that arrives after a reset is dropped. */
  private epoch = 0;
  /** Items prepended while the first page was on its way: newer than that page, so they go first. */
  private early: T[] = [];

  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly pageSize: () => number,
  ) {}

  get items(): readonly T[] {
    return this._items;
  }
  get hasMore(): boolean {
    return this._hasMore;
  }
  get loaded(): boolean {
    return this._loaded;
  }

  /** Loads the first page unless it is loaded already. */
  ensureLoaded(): Promise<void> {
    return this._loaded ? Promise.resolve() : this.load();
  }

  /** Appends the next page (one request at a time; concurrent calls share it). */
  loadMore(): Promise<void> {
    return this._loaded && !this._hasMore ? Promise.resolve() : this.load();
  }

  /** Forgets everything: the next ensureLoaded() starts from the first page. */
  reset(): void {
    this.epoch++;
    this._items = [];
    this.early = [];
    this._hasMore = false;
    this._loaded = false;
    this.cursor = undefined;
    this.inFlight = undefined;
  }

  /** Replaces an item in place (keeps its position); returns false when it is not in the list. */
  update(item: T): boolean {
    const index = this._items.findIndex((i) => i.id === item.id);
    if (index < 0) {
      return false;
    }
    this._items = this._items.map((existing, i) => (i === index ? item : existing));
    return true;
  }

  /**
   * Puts a new item first (newest-first order) or updates it when present. Before the first page
   * is loaded it waits for that page when one is on its way (the page was asked for before the
   * item changed), and is left to the first load otherwise.
   */
  prepend(item: T): void {
    if (!this._loaded) {
      if (this.inFlight) this.early = [item, ...this.early.filter((i) => i.id !== item.id)];
      return;
    }
    if (!this.update(item)) {
      this._items = [item, ...this._items];
    }
  }

  /** Whether the loaded items hold `id`. */
  has(id: string): boolean {
    return this._items.some((i) => i.id === id);
  }

  remove(id: string): void {
    this._items = this._items.filter((i) => i.id !== id);
    this.early = this.early.filter((i) => i.id !== id);
  }

  private load(): Promise<void> {
    if (this.inFlight) {
      return this.inFlight;
    }
    const epoch = this.epoch;
    const after = this._loaded ? this.cursor : undefined;
    const request: PageRequest = { limit: this.pageSize(), ...(after ? { after } : {}) };
    const run = this.fetchPage(request).then((page) => {
      if (epoch !== this.epoch) {
        return;
      }
      const early = this._loaded ? [] : this.early;
      this.early = [];
      const known = new Set([...early, ...this._items].map((i) => i.id));
      // Items created between two pages may shift the list; never show one twice.
      this._items = [...early, ...this._items, ...page.data.filter((i) => !known.has(i.id))];
      this.cursor = page.lastId ?? page.data.at(-1)?.id ?? this.cursor;
      this._hasMore = page.hasMore && page.data.length > 0;
      this._loaded = true;
    });
    const tracked: Promise<void> = run.finally(() => {
      if (this.inFlight === tracked) {
        this.inFlight = undefined;
      }
    });
    this.inFlight = tracked;
    return tracked;
  }
}
