/**
 * The search of one store inside the search quick pick: results as the user types, with the
 * rate-limit wait and the weaker matches left out (see searchController.ts for the rules).
 */
import * as vscode from 'vscode';
import type { SearchResult, VectorStore } from '../../api/documents/schemas';
import { NotFoundError, RateLimitError } from '../../api/http/errors';
import type { Services } from '../../services';
import { requireDocuments } from '../../services/commands';
import { describeError } from '../../services/errors';
import { FileCatalog } from '../stores';
import type { Passage } from './passages';
import type { StoreRef } from './searchQuickPick';
import { SearchController, presentResult, searchRequest, shownResults, type SearchState } from './searchController';

/** A row of the picker: a store to choose, a search result, or a status line. */
export interface PickItem extends vscode.QuickPickItem {
  passage?: Passage;
  store?: VectorStore;
}

export const ADD_TO_CHAT: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('comment-discussion'),
  tooltip: vscode.l10n.t('Add to Chat'),
};
export const REVEAL: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('list-tree'),
  tooltip: vscode.l10n.t('Reveal in Vector Stores'),
};

/** A line that is not a result (a hint, progress, an error): shown whatever is typed. */
/**
 * A row that says what the picker is doing. Its icon is the row's icon, not `$(…)` in its label, so
 * a screen reader speaks the sentence and not the icon's name ("eye-closed", "loading spin").
 */
export function statusItem(icon: string, label: string, detail?: string): PickItem {
  return { label, iconPath: new vscode.ThemeIcon(icon), detail, alwaysShow: true };
}

/**
 * The file names of one connection's search results, shared by its searches: a second search does
 * not read the whole files list again (10,000 files in a large account) before it shows results.
 * A new connection has a new client, so its names are its own.
 */
const catalogs = new WeakMap<object, FileCatalog>();

function catalogOf(client: object, source: ConstructorParameters<typeof FileCatalog>[0]): FileCatalog {
  let catalog = catalogs.get(client);
  if (!catalog) catalogs.set(client, (catalog = new FileCatalog(source)));
  return catalog;
}

/** The search of one store in the picker: its results as the user types. */
export class StoreSearch {
  readonly catalog: FileCatalog;
  private state: SearchState<SearchResult> = { kind: 'idle' };
  /**
   * The status rows last given to the picker (label and detail). Each assignment is a message to
   * the workbench, which draws the list again: the same "Searching…" row is not sent twice, above
   * all not just before the results it would delay.
   */
  private sentStatus: string | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly controller: SearchController<SearchResult>;
  private readonly rateListener: vscode.Disposable;

  constructor(
    private readonly services: Services,
    private readonly picker: vscode.QuickPick<PickItem>,
    private readonly store: StoreRef,
    restriction: () => readonly { id: string }[],
    private readonly withChat: () => boolean,
    /** The store is gone (deleted since it was chosen, or named by an old answer): searching it again can only fail. */
    onStoreGone?: () => void,
  ) {
    const client = requireDocuments(services.connection);
    this.catalog = catalogOf(client, () => services.connection.documents);
    this.catalog.retryUnknown();
    this.controller = new SearchController<SearchResult>({
      search: async (query, signal) => {
        const result = await client.search(store.id, searchRequest(query, services.config.current.searchMaxResults, restriction()), {
          signal,
        });
        try {
          await this.catalog.ensure(result.data.map((d) => d.file_id));
        } catch (error) {
          services.log.warn(`File names for search results unavailable: ${describeError(error)}`);
        }
        return result;
      },
      retryAfterMs: (error) => (error instanceof RateLimitError ? (error.retryAfterMs ?? 1000) : undefined),
      onState: (next) => {
        this.state = next;
        if (next.kind === 'error') {
          services.log.error(`Search in ${store.id} failed: ${describeError(next.error)}`);
          // Restricted to files, a "not found" may name a file that is gone, not the store.
          if (next.error instanceof NotFoundError && onStoreGone && restriction().length === 0) {
            onStoreGone();
            return;
          }
        }
        if (next.kind === 'waiting') {
          services.rateLimits.report('search', next.waitMs);
        }
        this.render();
      },
    });
    this.rateListener = services.rateLimits.onDidChange((wait) => {
      if (wait.operation === 'search') this.render();
    });
  }

  setQuery(value: string): void {
    this.controller.setQuery(value);
    // An unchanged query (the empty one a new search starts with) shows its state too.
    this.render();
  }

  rerun(): void {
    this.controller.rerun();
  }

  dispose(): void {
    this.controller.dispose();
    this.rateListener.dispose();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  render(): void {
    const { picker, state } = this;
    const waitSeconds = this.services.rateLimits.secondsLeft('search');
    const busy = state.kind === 'pending' || state.kind === 'loading' || state.kind === 'waiting';
    if (picker.busy !== busy) picker.busy = busy;
    switch (state.kind) {
      case 'idle':
        this.showStatus([
          statusItem(
            'search',
            vscode.l10n.t('Type to search'),
            vscode.l10n.t('Results show the file, the score (0–1) and the matching passage.'),
          ),
        ]);
        break;
      case 'pending':
        this.showStatus([statusItem('loading~spin', vscode.l10n.t('Searching for "{0}"…', state.query))]);
        break;
      case 'loading':
        this.showStatus([
          waitSeconds > 0
            ? statusItem(
                'watch',
                vscode.l10n.t('Waiting {0} s for the search rate limit…', waitSeconds),
                vscode.l10n.t('The documents service allows 30 searches a minute.'),
              )
            : statusItem('loading~spin', vscode.l10n.t('Searching for "{0}"…', state.query)),
        ]);
        break;
      case 'waiting':
        this.showStatus([
          statusItem(
            'watch',
            vscode.l10n.t('Waiting {0} s for the search rate limit…', Math.max(waitSeconds, Math.ceil(state.waitMs / 1000))),
            vscode.l10n.t('The service asked DocChat to slow down; the search runs again by itself.'),
          ),
        ]);
        break;
      case 'error':
        this.showStatus([statusItem('error', describeError(state.error), vscode.l10n.t('Details are in the DocChat output.'))]);
        break;
      case 'results': {
        const query = state.query;
        const { shown, hidden } = shownResults(state.result.data, query);
        this.sentStatus = undefined;
        picker.items = shown.length
          ? [
              ...shown.map((item) => this.resultItem(item, query)),
              ...(hidden
                ? [
                    statusItem(
                      'eye-closed',
                      hidden === 1 ? vscode.l10n.t('1 weaker match not shown') : vscode.l10n.t('{0} weaker matches not shown', hidden),
                      vscode.l10n.t('Their scores are far below the best match of this search.'),
                    ),
                  ]
                : []),
            ]
          : [statusItem('info', vscode.l10n.t('No results for "{0}"', query))];
        break;
      }
    }
    const counting = picker.busy && waitSeconds > 0;
    if (counting && !this.ticker) {
      this.ticker = setInterval(() => this.render(), 1000);
    } else if (!counting && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** Gives the picker status rows, unless they are the ones it shows already. */
  private showStatus(items: PickItem[]): void {
    const key = JSON.stringify(items.map((i) => [i.label, i.detail ?? '']));
    if (key === this.sentStatus) return;
    this.sentStatus = key;
    this.picker.items = items;
  }

  private resultItem(item: SearchResult['data'][number], query: string): PickItem {
    const { store } = this;
    const filename = this.catalog.get(item.file_id)?.filename || item.file_id;
    const passage: Passage = {
      storeId: store.id,
      storeName: store.name,
      fileId: item.file_id,
      filename,
      content: item.content,
      score: item.score,
    };
    return {
      ...presentResult(filename, item.score, item.content, query),
      iconPath: new vscode.ThemeIcon('file'),
      alwaysShow: true,
      buttons: this.withChat() ? [ADD_TO_CHAT, REVEAL] : [REVEAL],
      passage,
    };
  }
}
