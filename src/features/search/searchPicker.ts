import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import { type FileCatalog, fileChoiceRows, groupedByRecency, listStoreItems, storesOfferingQuery, type StoreItem } from '../stores';
import type { PassageDocuments } from './passages';
import { requireDocuments } from '../../services/commands';
import { ADD_TO_CHAT, REVEAL, StoreSearch, statusItem, type PickItem } from './storeSearch';
import {
  type FileChoice,
  type SearchPickerOptions,
  type StoreRef,
  searchPlaceholder,
  searchTitle,
  showSearchQuickPick,
  storeName,
} from './searchQuickPick';

export type { FileChoice, SearchPickerOptions } from './searchQuickPick';

const RESTRICT: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('filter'),
  tooltip: vscode.l10n.t('Search only in chosen files…'),
};
const UNRESTRICT: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('clear-all'), tooltip: vscode.l10n.t('Search all files') };

/** The chat's "add context" command, when the chat feature is installed. */
async function chatAvailable(): Promise<boolean> {
  return (await vscode.commands.getCommands(true)).includes(Commands.addChatContext);
}

/** Where the picker is: opening (connecting, listing the stores), choosing a store, or searching one. */
type Phase =
  | { kind: 'opening' }
  /** `gone`: the store searched before no longer exists (said above the list). */
  | { kind: 'stores'; stores: StoreItem[]; gone?: StoreRef }
  | { kind: 'search'; store: StoreRef; storeStep: boolean };

const STORE_STEP = 1;

/**
 * One quick pick for the whole search, shown at once (before anything is awaited): whatever the
 * user types right after the command goes into it, never into the editor they came from. It
 * connects and lists the stores while it shows (busy); with one store (or one given) it is the
 * search box of that store, with several it first lists them (step 1 of 2) and Back returns there.
 * Text typed before the store is known is what is searched for. When connecting or listing the
 * stores fails, the error's Retry reopens it with the text typed so far. `picker` is the one the
 * command showed before this module loaded (`showSearchQuickPick`).
 */
export function showSearchPicker(
  services: Services,
  passages: PassageDocuments,
  options: SearchPickerOptions,
  picker: vscode.QuickPick<PickItem> = showSearchQuickPick(options),
): Promise<void> {
  return new SearchPicker(services, passages, picker, options).done;
}

class SearchPicker {
  readonly done: Promise<void>;
  private phase: Phase = { kind: 'opening' };
  private restriction: FileChoice[];
  private withChat = false;
  private choosingFiles = false;
  private ended = false;
  private readonly abort = new AbortController();
  private readonly listeners: vscode.Disposable[] = [];
  /** The search of the store chosen, while the picker searches one. */
  private search: StoreSearch | undefined;
  private resolve: () => void = () => undefined;

  constructor(
    private readonly services: Services,
    private readonly passages: PassageDocuments,
    private readonly picker: vscode.QuickPick<PickItem>,
    private readonly options: SearchPickerOptions,
  ) {
    this.restriction = options.restrictTo ?? [];
    this.done = new Promise<void>((resolve) => {
      this.resolve = resolve;
    });
    this.listeners.push(
      picker.onDidChangeValue((value) => this.valueChanged(value)),
      picker.onDidAccept(() => this.accepted()),
      picker.onDidTriggerButton((button) => void this.buttonTriggered(button)),
      picker.onDidTriggerItemButton((e) => this.itemButtonTriggered(e)),
      picker.onDidHide(() => this.hidden()),
    );
    void chatAvailable().then((available) => {
      this.withChat = available;
      this.search?.render();
    });
    this.open().then(undefined, (error: unknown) =>
      this.fail(error, vscode.l10n.t('DocChat: could not search.'), { ...this.options, value: this.picker.value }),
    );
  }

  /** Connects, then searches the store given or the only one, or lists the stores to choose from. */
  private async open(): Promise<void> {
    await this.services.connection.use(`the command ${Commands.search}`);
    if (this.ended) return;
    requireDocuments(this.services.connection);
    if (this.options.store) {
      this.searchStore(this.options.store, false);
      return;
    }
    const stores = await listStoreItems(this.services, this.abort.signal);
    if (this.ended) return;
    if (stores.length === 1 && stores[0]!.store) {
      this.searchStore(stores[0]!.store, false);
      return;
    }
    this.chooseStore(stores);
  }

  private chooseStore(stores: StoreItem[], gone?: StoreRef): void {
    this.search?.dispose();
    this.search = undefined;
    this.phase = { kind: 'stores', stores, ...(gone ? { gone } : {}) };
    const { picker } = this;
    picker.busy = false;
    picker.title = vscode.l10n.t('DocChat: Search a Vector Store');
    picker.placeholder = stores.length
      ? vscode.l10n.t('Pick the vector store to search, or type what to search for')
      : vscode.l10n.t('There is no vector store to search yet');
    picker.step = STORE_STEP;
    picker.totalSteps = 2;
    picker.buttons = [];
    picker.matchOnDescription = true;
    this.showStores(picker.value);
  }

  private showStores(value: string): void {
    if (this.phase.kind !== 'stores') return;
    const { stores, gone } = this.phase;
    const notice = gone
      ? [
          statusItem(
            'warning',
            vscode.l10n.t('The vector store "{0}" no longer exists', storeName(gone)),
            stores.length ? vscode.l10n.t('Pick another vector store to search.') : undefined,
          ),
        ]
      : [];
    this.picker.items = stores.length
      ? [...notice, ...groupedByRecency(storesOfferingQuery(stores, value).items)]
      : [
          ...notice,
          statusItem(
            'info',
            vscode.l10n.t('No vector store yet'),
            vscode.l10n.t('Create one in the Vector Stores view, then attach documents to it.'),
          ),
        ];
  }

  private searchStore(store: StoreRef, storeStep: boolean): void {
    const { picker, services } = this;
    this.phase = { kind: 'search', store, storeStep };
    services.recentStores
      .touch(store.id)
      .then(undefined, (error: unknown) => services.log.warn(`Recent stores not saved: ${describeError(error)}`));
    picker.matchOnDescription = false;
    picker.step = storeStep ? STORE_STEP + 1 : undefined;
    picker.totalSteps = storeStep ? 2 : undefined;
    picker.placeholder = searchPlaceholder(store);
    this.search = new StoreSearch(
      services,
      picker,
      store,
      () => this.restriction,
      () => this.withChat,
      () => void this.storeGone(store),
    );
    this.updateChrome();
    this.search.setQuery(picker.value);
  }

  private updateChrome(): void {
    if (this.phase.kind !== 'search') return;
    const { store, storeStep } = this.phase;
    this.picker.title = searchTitle(store, this.restriction);
    this.picker.buttons = [
      ...(storeStep ? [vscode.QuickInputButtons.Back] : []),
      RESTRICT,
      ...(this.restriction.length ? [UNRESTRICT] : []),
    ];
  }

  /**
   * The store searched is gone (deleted since it was chosen, or named by an answer from before):
   * the picker goes to the list of stores, saying so, with what was typed kept as the search.
   */
  private async storeGone(store: StoreRef): Promise<void> {
    this.search?.dispose();
    this.search = undefined;
    this.picker.busy = true;
    const stores = await listStoreItems(this.services, this.abort.signal).catch((error: unknown) => {
      const { store: _gone, ...atTheStores } = this.options;
      this.fail(error, vscode.l10n.t('DocChat: could not list the vector stores.'), { ...atTheStores, value: this.picker.value });
      return undefined;
    });
    if (!stores || this.ended) return;
    this.chooseStore(
      stores.filter((item) => item.store?.id !== store.id),
      store,
    );
  }

  private valueChanged(value: string): void {
    if (this.phase.kind === 'stores') this.showStores(value);
    else if (this.phase.kind === 'search') this.search?.setQuery(value);
  }

  private accepted(): void {
    const { picker } = this;
    const item = picker.selectedItems[0] ?? picker.activeItems[0];
    if (this.phase.kind === 'stores') {
      if (!item?.store) return;
      // Text that only filtered the store names is not what to search for.
      const { query } = storesOfferingQuery(this.phase.stores, picker.value);
      if (!query) picker.value = '';
      this.searchStore(item.store, true);
      return;
    }
    const passage = item?.passage;
    if (this.phase.kind !== 'search' || !passage) return;
    picker.hide();
    this.passages
      .open(passage, { quotes: [], query: picker.value })
      .then(undefined, (error: unknown) =>
        this.services.errors.report(error, vscode.l10n.t('DocChat: could not open the passage of "{0}".', passage.filename)),
      );
  }

  private itemButtonTriggered(e: vscode.QuickPickItemButtonEvent<PickItem>): void {
    const passage = e.item.passage;
    if (!passage) return;
    if (e.button === ADD_TO_CHAT) {
      void vscode.commands.executeCommand(Commands.addChatContext, { kind: 'passage', ...passage });
      vscode.window.setStatusBarMessage(
        vscode.l10n.t('DocChat: passage of "{0}" added to the chat', passage.filename ?? passage.fileId),
        3000,
      );
    } else if (e.button === REVEAL) {
      this.picker.hide();
      void vscode.commands.executeCommand(Commands.revealInTree, { storeId: passage.storeId, fileId: passage.fileId });
    }
  }

  private async buttonTriggered(button: vscode.QuickInputButton): Promise<void> {
    if (this.phase.kind !== 'search') return;
    const { store } = this.phase;
    if (button === vscode.QuickInputButtons.Back) {
      const typed = this.picker.value;
      this.restriction = this.options.restrictTo ?? [];
      this.picker.value = '';
      this.picker.busy = true;
      const stores = await listStoreItems(this.services, this.abort.signal).catch((error: unknown) => {
        // Retry reopens the list of stores (step 1), with what was typed.
        const { store: _searched, ...atTheStores } = this.options;
        this.fail(error, vscode.l10n.t('DocChat: could not list the vector stores.'), { ...atTheStores, value: typed });
        return undefined;
      });
      if (stores && !this.ended) this.chooseStore(stores);
      return;
    }
    if (button === UNRESTRICT) {
      this.restriction = [];
      this.updateChrome();
      this.search?.rerun();
      return;
    }
    if (button === RESTRICT && this.search) {
      this.choosingFiles = true;
      const chosen = await chooseFiles(this.services, store, this.search.catalog, this.restriction).catch((error: unknown) => {
        this.services.errors.report(error, vscode.l10n.t('DocChat: could not list the files of "{0}".', storeName(store)));
        return undefined;
      });
      this.choosingFiles = false;
      if (chosen) this.restriction = chosen;
      this.updateChrome();
      this.picker.show();
      this.search?.rerun();
    }
  }

  private hidden(): void {
    if (this.choosingFiles) return;
    this.end();
    this.resolve();
  }

  /**
   * Connecting or listing the stores failed: the picker closes and the error says why, with a
   * Retry that reopens it where it was (`reopen`: the store or the list of stores) with the text
   * typed so far, not an empty box. Nothing is reported once the user has closed it.
   */
  private fail(error: unknown, failure: string, reopen: SearchPickerOptions & { value: string }): void {
    if (this.ended) return;
    const { value, ...where } = reopen;
    this.end();
    this.services.errors.report(error, failure, {
      retry: () => showSearchPicker(this.services, this.passages, value ? { ...where, value } : where),
    });
    this.resolve();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.abort.abort();
    this.search?.dispose();
    for (const listener of this.listeners) listener.dispose();
    this.picker.hide();
    this.picker.dispose();
  }
}

/** A multi-select list of the store's files; resolves undefined when cancelled. */
async function chooseFiles(
  services: Services,
  store: StoreRef,
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
  const items = fileChoiceRows(page.data, (id) => catalog.get(id)?.filename).map((row) => ({ ...row, picked: selected.has(row.fileId) }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: vscode.l10n.t('Search "{0}" only in…', store.name),
    placeHolder: vscode.l10n.t('Choose files (none: search all files)'),
  });
  return picked?.map((p) => ({ id: p.fileId, name: p.label }));
}
