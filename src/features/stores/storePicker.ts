import * as vscode from 'vscode';
import type { VectorStore } from '../../api/documents/schemas';
import type { Services } from '../../services';
import { describeExpiry, formatDate, typedQuery } from './presentation';
import { requireDocuments } from '../../services/commands';
import { shownItems } from './quickPickFilter';

/** How many stores a picker lists (recently used ones first). */
const PICKER_LIMIT = 1000;

export interface StoreItem extends vscode.QuickPickItem {
  store?: VectorStore;
  create?: true;
  /** Picked recently: listed first, under the one "recently used" separator (see `groupedByRecency`). */
  recent?: true;
}

export interface PickStoreOptions {
  title: string;
  placeholder?: string;
  /** Offer "Create Vector Store…"; the callback creates one and returns it. */
  create?: () => Promise<VectorStore | undefined>;
}

/** The picker's items: recently used stores first. */
function storeItems(services: Services, data: readonly VectorStore[]): StoreItem[] {
  const now = Date.now() / 1000;
  const recent = new Set(services.recentStores.list());
  const stores = services.recentStores.sort(data, (s) => s.id);
  // The name is what people know a store by; its id is shown only to tell apart stores that share
  // a name (a store without a name is labelled by its id).
  const named = new Map<string, number>();
  for (const store of stores) if (store.name) named.set(store.name, (named.get(store.name) ?? 0) + 1);
  return stores.map((store) => ({
    label: `$(database) ${store.name || store.id}`,
    description: [fileCount(store), formatDate(store.created_at)].filter(Boolean).join(' · '),
    detail: [describeExpiry(store.expires_at, now), store.name && named.get(store.name)! > 1 ? store.id : ''].filter(Boolean).join(' · '),
    store,
    ...(recent.has(store.id) ? { recent: true as const } : {}),
  }));
}

/**
 * The stores as VS Code's own pickers show what was used recently (the Command Palette): one
 * "recently used" separator above the recent stores, "other stores" above the rest, rather than a
 * label on every recent store. No separator when none was used recently.
 */
export function groupedByRecency(items: readonly StoreItem[]): StoreItem[] {
  const recent = items.filter((item) => item.recent);
  if (recent.length === 0) return [...items];
  const others = items.filter((item) => !item.recent);
  const separator = (label: string): StoreItem => ({ label, kind: vscode.QuickPickItemKind.Separator });
  return [
    separator(vscode.l10n.t('recently used')),
    ...recent,
    ...(others.length ? [separator(vscode.l10n.t('other stores')), ...others] : []),
  ];
}

/** "12 files", when the service counts them (stores alike by name and date differ by it). */
function fileCount(store: VectorStore): string {
  const total = store.file_counts?.total;
  if (typeof total !== 'number') return '';
  return total === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', total.toLocaleString());
}

/** Long filter text cut short in the hint, so that what to do next still shows in a narrow window. */
const HINT_TEXT_LIMIT = 24;
function shortened(text: string): string {
  const chars = [...text];
  return chars.length <= HINT_TEXT_LIMIT ? text : `${chars.slice(0, HINT_TEXT_LIMIT - 1).join('')}…`;
}

/**
 * Shows a store picker set up by `setup`, fills it with the stores once listed (`fill`), and
 * resolves the items accepted (undefined when it is hidden). A failed listing hides it and rejects.
 * In a multi-select picker, Enter with nothing ticked takes the highlighted store; with nothing
 * highlighted either, it takes none only when `noneAllowed` says so (the user unticked every
 * store), else the picker stays open and says how to tick one (in its title, which filter text
 * does not hide). Filter text that matches no store says so there too, naming the text, and how to
 * get the list back.
 */
async function showStorePicker(
  services: Services,
  setup: (picker: vscode.QuickPick<StoreItem>) => void,
  fill: (picker: vscode.QuickPick<StoreItem>, items: StoreItem[]) => readonly StoreItem[] | void,
  noneAllowed: () => boolean = () => true,
): Promise<readonly StoreItem[] | undefined> {
  const client = requireDocuments(services.connection);
  const picker = vscode.window.createQuickPick<StoreItem>();
  setup(picker);
  picker.matchOnDescription = true;
  picker.busy = true;
  picker.show();
  const abort = new AbortController();
  try {
    let accept: (items: readonly StoreItem[]) => void = () => undefined;
    let showFilterHint: () => void = () => undefined;
    const loaded = client.listVectorStores({ limit: PICKER_LIMIT }, { signal: abort.signal }).then((page) => {
      const chosen = fill(picker, storeItems(services, page.data));
      picker.busy = false;
      if (chosen) accept(chosen);
      // Text typed while the stores were being listed may match none of them.
      else showFilterHint();
    });
    const picked = await new Promise<readonly StoreItem[] | undefined>((resolve, reject) => {
      accept = resolve;
      loaded.catch((error: unknown) => {
        picker.hide();
        reject(error);
      });
      // The hints below take the title's place (and the placeholder's, while nothing is ticked):
      // in the title, not the placeholder, as VS Code hides the placeholder once filter text is
      // typed (the text stays). Screen readers read the title with the input; without the
      // placeholder they read a hint once. Each is short enough to show whole in a narrow window.
      const { title, placeholder } = picker;
      let nothingTicked = false;
      const showHint = () => {
        // VS Code does not say how many stores its filter leaves: the same rules tell (see shownItems).
        const filter = picker.value.trim();
        const noMatch = !picker.busy && filter !== '' && shownItems(picker.items, filter, picker).length === 0;
        const hint = noMatch
          ? vscode.l10n.t('No store matches “{0}”: clear the filter text to list every store', shortened(filter))
          : nothingTicked
            ? // Down moves the focus into the list, where Space ticks the highlighted store.
              vscode.l10n.t('Nothing is ticked: press Down, then Space to tick a store, then Enter')
            : undefined;
        // Set only on a change: each setting is a message to the window.
        if (picker.title !== (hint ?? title)) picker.title = hint ?? title;
        const shownPlaceholder = nothingTicked ? '' : placeholder;
        if (picker.placeholder !== shownPlaceholder) picker.placeholder = shownPlaceholder;
      };
      picker.onDidChangeValue(showHint);
      picker.onDidChangeSelection((items) => {
        if (items.length === 0 || !nothingTicked) return;
        nothingTicked = false;
        showHint();
      });
      picker.onDidAccept(() => {
        if (!picker.canSelectMany || picker.selectedItems.length > 0) return resolve(picker.selectedItems);
        // Enter on a highlighted store without ticking any takes that store, not "none".
        if (picker.activeItems.length > 0) return resolve(picker.activeItems);
        // Nothing ticked, nothing highlighted (a multi-select picker highlights nothing at first):
        // "none" only when the user unticked the stores; never silently.
        if (noneAllowed()) return resolve([]);
        nothingTicked = true;
        showHint();
      });
      showFilterHint = showHint;
      picker.onDidHide(() => resolve(undefined));
    });
    picker.hide();
    return picked;
  } finally {
    abort.abort();
    picker.dispose();
  }
}

/**
 * Lets the user pick any number of vector stores (those in `selected` ticked). Resolves the
 * picked stores (none only when the user unticked those ticked at first), or undefined when
 * cancelled.
 */
export async function pickStores(
  services: Services,
  options: { title: string; selected: readonly string[] },
): Promise<VectorStore[] | undefined> {
  let tickedAtFirst = false;
  const picked = await showStorePicker(
    services,
    (picker) => {
      picker.title = options.title;
      picker.placeholder = vscode.l10n.t('Press Down, then Space to tick each store to search, then Enter');
      picker.canSelectMany = true;
    },
    (picker, items) => {
      picker.items = groupedByRecency(items);
      picker.selectedItems = items.filter((item) => item.store && options.selected.includes(item.store.id));
      tickedAtFirst = picker.selectedItems.length > 0;
    },
    // No store at all: only after unticking those ticked at first, not on Enter with none ticked yet.
    () => tickedAtFirst,
  );
  return picked?.flatMap((item) => (item.store ? [item.store] : []));
}

/** Lets the user pick a vector store, recently used first. Resolves undefined when cancelled. */
export async function pickStore(services: Services, options: PickStoreOptions): Promise<VectorStore | undefined> {
  const [picked] =
    (await showStorePicker(
      services,
      (picker) => {
        picker.title = options.title;
        picker.placeholder = options.placeholder ?? vscode.l10n.t('Pick a vector store');
      },
      (picker, items) => {
        const grouped = groupedByRecency(items);
        if (options.create) {
          // Apart from the group of stores above it (when there are groups).
          if (grouped.length > items.length) grouped.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
          grouped.push({ label: vscode.l10n.t('$(add) Create Vector Store…'), create: true, alwaysShow: true });
        }
        picker.items = grouped;
      },
    )) ?? [];
  if (picked?.create) {
    return await options.create?.();
  }
  if (picked?.store) {
    await services.recentStores.touch(picked.store.id);
  }
  return picked?.store;
}

/** The stores a picker offers (recently used first), listed now. */
export async function listStoreItems(services: Services, signal?: AbortSignal): Promise<StoreItem[]> {
  const page = await requireDocuments(services.connection).listVectorStores({ limit: PICKER_LIMIT }, { signal });
  return storeItems(services, page.data);
}

/**
 * The store list while the user types in a picker that searches the store chosen. Text that names
 * no store does not filter the list to nothing: every store stays, each offering to search for the
 * text (`query`), which the search then starts with. Text that names a store filters as usual.
 */
export function storesOfferingQuery(stores: readonly StoreItem[], value: string): { items: StoreItem[]; query?: string } {
  const query = typedQuery(
    value,
    stores.map((item) => item.store?.name || item.store?.id || ''),
  );
  if (!query) return { items: [...stores] };
  return {
    items: stores.map((item) => ({
      ...item,
      alwaysShow: true,
      detail: vscode.l10n.t('Search “{0}” for “{1}”', item.store?.name || item.store?.id || '', query),
    })),
    query,
  };
}
