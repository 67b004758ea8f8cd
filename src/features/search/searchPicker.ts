import * as vscode from 'vscode';
import type { SearchResult, VectorStore } from '../../api/documents/schemas';
import { RateLimitError } from '../../api/http/errors';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import { FileCatalog } from '../stores';
import type { Passage, PassageDocuments } from './passages';
import { SearchController, presentResult, searchRequest, shownResults, type SearchState } from './searchController';
import { requireDocuments } from '../../services/commands';

export interface FileChoice {
  id: string;
  name: string;
}

interface ResultItem extends vscode.QuickPickItem {
  passage?: Passage;
}

const ADD_TO_CHAT: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('comment-discussion'),
  tooltip: vscode.l10n.t('Add to Chat'),
};
const REVEAL: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('list-tree'), tooltip: vscode.l10n.t('Reveal in Vector Stores') };
const RESTRICT: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('filter'),
  tooltip: vscode.l10n.t('Search only in chosen files…'),
};
const UNRESTRICT: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('clear-all'), tooltip: vscode.l10n.t('Search all files') };

/** The chat's "add context" command, when the chat feature is installed. */
async function chatAvailable(): Promise<boolean> {
  return (await vscode.commands.getCommands(true)).includes(Commands.addChatContext);
}

export interface SearchPickerOptions {
  store: VectorStore;
  restrictTo?: FileChoice[];
  initialQuery?: string;
}

export async function showSearchPicker(services: Services, passages: PassageDocuments, options: SearchPickerOptions): Promise<void> {
  const client = requireDocuments(services.connection);
  const { store } = options;
  const catalog = new FileCatalog(() => services.connection.documents);
  let restriction = options.restrictTo ?? [];
  const withChat = await chatAvailable();
  const picker = vscode.window.createQuickPick<ResultItem>();
  picker.matchOnDescription = false;
  picker.matchOnDetail = false;
  picker.ignoreFocusOut = false;
  picker.placeholder = vscode.l10n.t('Search "{0}" (results as you type)', store.name);
  let state: SearchState<SearchResult> = { kind: 'idle' };
  let choosingFiles = false;
  let ticker: ReturnType<typeof setInterval> | undefined;

  const updateChrome = () => {
    picker.title = restriction.length
      ? restriction.length === 1
        ? vscode.l10n.t('Search "{0}" in "{1}"', store.name, restriction[0]!.name)
        : vscode.l10n.t('Search "{0}" in {1} files', store.name, restriction.length)
      : vscode.l10n.t('Search "{0}"', store.name);
    picker.buttons = restriction.length ? [RESTRICT, UNRESTRICT] : [RESTRICT];
  };

  const statusItem = (label: string, detail?: string): ResultItem => ({ label, detail, alwaysShow: true });

  const render = () => {
    const waitSeconds = services.rateLimits.secondsLeft('search');
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
        const { shown, hidden } = shownResults(state.result.data);
        const query = state.query;
        picker.items = shown.length
          ? [
              ...shown.map((item) => resultItem(item, query)),
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
    if (counting && !ticker) {
      ticker = setInterval(render, 1000);
    } else if (!counting && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };

  const resultItem = (item: SearchResult['data'][number], query: string): ResultItem => {
    const filename = catalog.get(item.file_id)?.filename || item.file_id;
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
      buttons: withChat ? [ADD_TO_CHAT, REVEAL] : [REVEAL],
      passage,
    };
  };

  const controller = new SearchController<SearchResult>({
    search: async (query, signal) => {
      const result = await client.search(store.id, searchRequest(query, services.config.current.searchMaxResults, restriction), {
        signal,
      });
      try {
        await catalog.ensure(result.data.map((d) => d.file_id));
      } catch (error) {
        services.log.warn(`File names for search results unavailable: ${describeError(error)}`);
      }
      return result;
    },
    retryAfterMs: (error) => (error instanceof RateLimitError ? (error.retryAfterMs ?? 1000) : undefined),
    onState: (next) => {
      state = next;
      if (next.kind === 'error') {
        services.log.error(`Search in ${store.id} failed: ${describeError(next.error)}`);
      }
      if (next.kind === 'waiting') {
        services.rateLimits.report('search', next.waitMs);
      }
      render();
    },
  });

  const rateListener = services.rateLimits.onDidChange((wait) => {
    if (wait.operation === 'search') {
      render();
    }
  });

  return new Promise<void>((resolve) => {
    picker.onDidChangeValue((value) => controller.setQuery(value));
    picker.onDidAccept(() => {
      const passage = picker.selectedItems[0]?.passage;
      if (!passage) {
        return;
      }
      picker.hide();
      passages
        .open(passage)
        .then(undefined, (error: unknown) =>
          services.errors.report(error, vscode.l10n.t('DocChat: could not open the passage of "{0}".', passage.filename)),
        );
    });
    picker.onDidTriggerItemButton((e) => {
      const passage = e.item.passage;
      if (!passage) {
        return;
      }
      if (e.button === ADD_TO_CHAT) {
        void vscode.commands.executeCommand(Commands.addChatContext, { kind: 'passage', ...passage });
        vscode.window.setStatusBarMessage(
          vscode.l10n.t('DocChat: passage of "{0}" added to the chat', passage.filename ?? passage.fileId),
          3000,
        );
      } else if (e.button === REVEAL) {
        picker.hide();
        void vscode.commands.executeCommand(Commands.revealInTree, { storeId: passage.storeId, fileId: passage.fileId });
      }
    });
    picker.onDidTriggerButton(async (button) => {
      if (button === UNRESTRICT) {
        restriction = [];
        updateChrome();
        controller.rerun();
        return;
      }
      if (button === RESTRICT) {
        choosingFiles = true;
        const chosen = await chooseFiles(services, store, catalog, restriction).catch((error: unknown) => {
          services.errors.report(error, vscode.l10n.t('DocChat: could not list the files of "{0}".', store.name));
          return undefined;
        });
        choosingFiles = false;
        if (chosen) {
          restriction = chosen;
        }
        updateChrome();
        picker.show();
        controller.rerun();
      }
    });
    picker.onDidHide(() => {
      if (choosingFiles) {
        return;
      }
      controller.dispose();
      rateListener.dispose();
      if (ticker) {
        clearInterval(ticker);
      }
      picker.dispose();
      resolve();
    });
    updateChrome();
    render();
    picker.show();
    if (options.initialQuery) {
      picker.value = options.initialQuery;
      controller.setQuery(options.initialQuery);
    }
  });
}

/** A multi-select list of the store's files; resolves undefined when cancelled. */
async function chooseFiles(
  services: Services,
  store: VectorStore,
  catalog: FileCatalog,
  current: FileChoice[],
): Promise<FileChoice[] | undefined> {
  const client = services.connection.documents;
  if (!client) {
    return undefined;
  }
  const page = await client.listVectorStoreFiles(store.id, { limit: 1000 });
  await catalog.ensure(page.data.map((f) => f.id));
  const selected = new Set(current.map((f) => f.id));
  const items = page.data.map((f) => ({
    label: catalog.get(f.id)?.filename || f.id,
    ...(f.status === 'completed' ? {} : { description: f.status.replace(/_/g, ' ') }),
    ...(catalog.get(f.id)?.filename ? { detail: f.id } : {}),
    picked: selected.has(f.id),
    id: f.id,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: vscode.l10n.t('Search "{0}" only in…', store.name),
    placeHolder: vscode.l10n.t('Choose files (none: search all files)'),
  });
  return picked?.map((p) => ({ id: p.id, name: p.label }));
}
