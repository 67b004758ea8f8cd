/**
 * File names for store files. A store file carries only the file id; the name of a page of them
 * comes from single retrievals in parallel, of many at once from the files list (loaded once and
 * reused, with single retrievals for files created since).
 * No `vscode` import.
 */
import type { FileObject } from '../../api/documents/schemas';

export interface FileSource {
  listFiles(params: { after?: string; limit?: number }): Promise<{ data: FileObject[]; lastId: string | null; hasMore: boolean }>;
  retrieveFile(id: string): Promise<FileObject>;
}

/** How many single retrievals one ensure() may make before it leaves the rest nameless. */
const MAX_SINGLE_RETRIEVALS = 20;
const LIST_PAGE = 10_000;
/**
 * Up to this many unknown ids (a page of the tree) are retrieved one by one, in parallel, rather
 * than waiting for the whole files list: in a store of 10,000 files the list takes hundreds of
 * milliseconds, a page of single retrievals a few.
 */
const PAGE_RETRIEVALS = 100;
const PARALLEL_RETRIEVALS = 10;

export class FileCatalog {
  private readonly files = new Map<string, FileObject>();
  private listed = false;
  private listing: Promise<void> | undefined;
  /** Ids that could not be found: not asked for again until invalidate(). */
  private readonly unknown = new Set<string>();

  constructor(private readonly source: () => FileSource | undefined) {}

  get(id: string): FileObject | undefined {
    return this.files.get(id);
  }

  set(file: FileObject): void {
    this.files.set(file.id, file);
    this.unknown.delete(file.id);
  }

  /** Forget what is known (after a full refresh or a change of connection). */
  invalidate(): void {
    this.files.clear();
    this.unknown.clear();
    this.listed = false;
    this.listing = undefined;
  }

  /** Makes sure the given ids have a FileObject when the service knows them. */
  async ensure(ids: readonly string[]): Promise<void> {
    let missing = ids.filter((id) => !this.files.has(id) && !this.unknown.has(id));
    if (missing.length === 0) {
      return;
    }
    if (!this.listed && missing.length <= PAGE_RETRIEVALS) {
      return this.retrieve(missing, PARALLEL_RETRIEVALS);
    }
    if (!this.listed) {
      await this.listAll();
      missing = missing.filter((id) => !this.files.has(id));
    }
    await this.retrieve(missing.slice(0, MAX_SINGLE_RETRIEVALS), 1);
  }

  /** Retrieves `ids` one by one, `parallel` at a time. */
  private async retrieve(ids: readonly string[], parallel: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ids.length) {
        const id = ids[next++]!;
        const source = this.source();
        if (!source) {
          return;
        }
        try {
          this.set(await source.retrieveFile(id));
        } catch {
          // A file deleted from the files list still shows, by id.
          this.unknown.add(id);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, ids.length) }, worker));
  }

  private listAll(): Promise<void> {
    this.listing ??= (async () => {
      const source = this.source();
      if (!source) {
        return;
      }
      let after: string | undefined;
      for (;;) {
        const page = await source.listFiles({ limit: LIST_PAGE, ...(after ? { after } : {}) });
        for (const file of page.data) {
          this.files.set(file.id, file);
        }
        after = page.lastId ?? page.data.at(-1)?.id;
        if (!page.hasMore || !after || page.data.length === 0) {
          break;
        }
      }
      this.listed = true;
    })().finally(() => {
      this.listing = undefined;
    });
    return this.listing;
  }
}
