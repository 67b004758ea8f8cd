/**
 * The search of one store inside the search quick pick: results as the user types, with the
 * rate-limit wait and the weaker matches left out (see searchController.ts for the rules).
 */
import * as vscode from 'vscode';
import type { SearchResult, VectorStore } from '../../api/documents/schemas';
import { RateLimitError } from '../../api/http/errors';
import type { Services } from '../../services';
import { requireDocuments } from '../../services/commands';
import { describeError } from '../../services/errors';
import { FileCatalog } from '../stores';
import type { Passage } from './passages';
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
export function statusItem(label: string, detail?: string): PickItem {
  return { label, detail, alwaysShow: true };
}

/** The search of one store in the picker: its results as the user types. */
export class StoreSearch {
  readonly catalog: FileCatalog;
  private state: SearchState<SearchResult> = { kind: 'idle' };
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly controller: SearchController<SearchResult>;
  private readonly rateListener: vscode.Disposable;

  constructor(
    private readonly services: Services,
    private readonly picker: vscode.QuickPick<PickItem>,
    private readonly store: VectorStore,
    restriction: () => readonly { id: string }[],
    private readonly withChat: () => boolean,
  ) {
    this.catalog = new FileCatalog(() => services.connection.documents);
    const client = requireDocuments(services.connection);
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
    picker.busy = state.kind === 'pending' || state.kind === 'loading' || state.kind === 'waiting';
    switch (state.kind) {
      case 'idle':
        picker.items = [
          statusItem(
            vscode.l10n.t('$(search) Type to search'),
            vscode.l10n.t('Results show the file, the score (0–1) and the matching passage.'),
          ),
        ];
        break;
      case 'pending':
        picker.items = [statusItem(vscode.l10n.t('$(loading~spin) Searching for "{0}"…', state.query))];
        break;
      case 'loading':
        picker.items = [
          waitSeconds > 0
            ? statusItem(
                vscode.l10n.t('$(watch) Waiting {0} s for the search rate limit…', waitSeconds),
                vscode.l10n.t('The documents service allows 30 searches a minute.'),
              )
            : statusItem(vscode.l10n.t('$(loading~spin) Searching for "{0}"…', state.query)),
        ];
        break;
      case 'waiting':
        picker.items = [
          statusItem(
            vscode.l10n.t('$(watch) Waiting {0} s for the search rate limit…', Math.max(waitSeconds, Math.ceil(state.waitMs / 1000))),
            vscode.l10n.t('The service asked DocChat to slow down; the search runs again by itself.'),
          ),
        ];
        break;
      case 'error':
        picker.items = [statusItem(`$(error) ${describeError(state.error)}`, vscode.l10n.t('Details are in the DocChat output.'))];
        break;
      case 'results': {
        const query = state.query;
        const { shown, hidden } = shownResults(state.result.data, query);
        picker.items = shown.length
          ? [
              ...shown.map((item) => this.resultItem(item, query)),
              ...(hidden
                ? [
                    statusItem(
                      hidden === 1
                        ? vscode.l10n.t('$(eye-closed) 1 weaker match not shown')
                        : vscode.l10n.t('$(eye-closed) {0} weaker matches not shown', hidden),
                      vscode.l10n.t('Their scores are far below the best match of this search.'),
                    ),
                  ]
                : []),
            ]
          : [statusItem(vscode.l10n.t('$(info) No results for "{0}"', query))];
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
