import * as vscode from 'vscode';
import type { VectorStore } from '../../api/documents/schemas';
import type { PickItem } from './storeSearch';

export interface FileChoice {
  id: string;
  name: string;
}

/** A store as the search names it: the tree's stores, and the chat's (which knows only their ids and names). */
export type StoreRef = Pick<VectorStore, 'id' | 'name'>;

export interface SearchPickerOptions {
  /** The store to search; without one the picker lists the stores first (one store: taken at once). */
  store?: StoreRef;
  restrictTo?: FileChoice[];
  /** The text the picker opens with: what was typed before a failure, when Retry reopens it, or the chat's question. */
  value?: string;
}

export function storeName(store: StoreRef): string {
  return store.name || store.id;
}

export function searchTitle(store: StoreRef, restriction: readonly FileChoice[]): string {
  return restriction.length
    ? restriction.length === 1
      ? vscode.l10n.t('Search "{0}" in "{1}"', storeName(store), restriction[0]!.name)
      : vscode.l10n.t('Search "{0}" in {1} files', storeName(store), restriction.length)
    : vscode.l10n.t('Search "{0}"', storeName(store));
}

export function searchPlaceholder(store: StoreRef): string {
  return vscode.l10n.t('Search "{0}" (results as you type)', storeName(store));
}

/**
 * Creates the search quick pick and shows it, busy, listing the stores. Part of the extension
 * bundle: it shows before the search itself loads (dist/first-use.js at the first search), so keys
 * typed right after the command reach it sooner and not the editor.
 */
export function showSearchQuickPick(options: SearchPickerOptions): vscode.QuickPick<PickItem> {
  const picker = vscode.window.createQuickPick<PickItem>();
  picker.ignoreFocusOut = false;
  picker.matchOnDescription = false;
  picker.matchOnDetail = false;
  picker.busy = true;
  if (options.store) {
    picker.title = searchTitle(options.store, options.restrictTo ?? []);
    picker.placeholder = searchPlaceholder(options.store);
  } else {
    picker.title = vscode.l10n.t('DocChat: Search a Vector Store');
    picker.placeholder = vscode.l10n.t('Type what to search for');
  }
  picker.items = [{ label: vscode.l10n.t('Listing the vector stores…'), iconPath: new vscode.ThemeIcon('loading~spin'), alwaysShow: true }];
  if (options.value) picker.value = options.value;
  picker.show();
  return picker;
}
