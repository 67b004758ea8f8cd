/**
 * File names for store files. A store file carries only the file id; the name comes from the
 * files list, loaded once and reused, with single retrievals for files created since. The list is
 * read newest first, and a page of the tree waits only until its files are named, not for the
 * whole list (10,000 files in a large store): recently attached files are found in its first page.
 * Single retrievals for a whole page would soon meet the service's 120 retrievals a minute.
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
const FIRST_LIST_PAGE = 1_000;

export class FileCatalog {
  private readonly files = new Map<string, FileObject>();
  private listed = false;
  private listing: Promise<void> | undefined;
  /** Bumped by invalidate(): a files list read for an earlier generation stops at its next page. */
  private generation = 0;
  /** Ids that could not be found: not asked for again until invalidate(). */
  private readonly unknown = new Set<string>();
  /** Called after each page of the files list. */
  private readonly pageListeners = new Set<() => void>();

  constructor(private readonly source: () => FileSource | undefined) {}

  get(id: string): FileObject | undefined {
    return this.files.get(id);
  }

  set(file: FileObject): void {
    this.files.set(file.id, file);
    this.unknown.delete(file.id);
  }

  /** Asks again, at the next ensure(), for the ids that could not be found (a new search session). */
  retryUnknown(): void {
    this.unknown.clear();
  }

  /** Forget what is known (after a full refresh or a change of connection). */
  invalidate(): void {
    this.files.clear();
    this.unknown.clear();
    this.listed = false;
    this.listing = undefined;
    this.generation++;
  }

  /** Makes sure the given ids have a FileObject when the service knows them. */
  async ensure(ids: readonly string[]): Promise<void> {
    let missing = ids.filter((id) => !this.files.has(id) && !this.unknown.has(id));
    if (missing.length === 0) {
      return;
    }
    if (!this.listed) {
      const generation = this.generation;
      await this.untilNamedOrListed(missing);
      // A refresh cut that list short: the tree asks again for what it shows now.
      if (generation !== this.generation) {
        return;
      }
      missing = missing.filter((id) => !this.files.has(id));
      if (missing.length === 0) {
        return;
      }
    }
    for (const id of missing.slice(0, MAX_SINGLE_RETRIEVALS)) {
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
  }

  /** Resolves when every id is named or the whole list is read; rejects when reading it fails. */
  private async untilNamedOrListed(ids: readonly string[]): Promise<void> {
    const listing = this.listAll();
    await new Promise<void>((resolve) => {
      const check = () => {
        if (ids.every((id) => this.files.has(id))) done();
      };
      const done = () => {
        this.pageListeners.delete(check);
        resolve();
      };
      this.pageListeners.add(check);
      listing.then(done, done);
      check();
    });
    if (!ids.every((id) => this.files.has(id))) {
      await listing; // the list is read (or its error is thrown)
    }
  }

  private listAll(): Promise<void> {
    if (this.listing) {
      return this.listing;
    }
    const generation = this.generation;
    const listing = (async () => {
      const source = this.source();
      if (!source) {
        return;
      }
      let after: string | undefined;
      /** Cursors followed: a server that ignores `after` (or goes round) would otherwise be asked forever. */
      const followed = new Set<string>();
      for (;;) {
        const page = await source.listFiles({ limit: after ? LIST_PAGE : FIRST_LIST_PAGE, ...(after ? { after } : {}) });
        // A refresh or another connection made this list stale: its names and the rest of it
        // (up to 10,000 files parsed on the extension host thread) are no longer wanted.
        if (generation !== this.generation) {
          return;
        }
        for (const file of page.data) {
          this.files.set(file.id, file);
        }
        this.pageListeners.forEach((listener) => listener());
        after = page.lastId ?? page.data.at(-1)?.id;
        if (!page.hasMore || !after || page.data.length === 0 || followed.has(after)) {
          break;
        }
        followed.add(after);
      }
      this.listed = true;
    })().finally(() => {
      if (this.listing === listing) {
        this.listing = undefined;
      }
    });
    this.listing = listing;
    return listing;
  }
}
