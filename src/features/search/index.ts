import * as vscode from 'vscode';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { fileOfArgument, searchRequestOfArgument, selectionOfArguments, storeOfArgument } from '../stores';
import { PassageDocuments } from './passages';
import type * as SearchPicker from './searchPicker';
import { type FileChoice, type SearchPickerOptions, showSearchQuickPick, type StoreRef } from './searchQuickPick';
import { atFirstUse } from '../../common/atFirstUse';
import { registerCommand } from '../../services/commands';
import { markWalkthroughStepDone } from '../walkthrough';

export type { ExactFileResolver, Passage, PassageDocuments } from './passages';
export type { QuoteFocus } from './highlights';
export { passageOf } from './passages';
export { sourceColumnFor, sourceOpenedIn } from './sourceColumn';

// The quick pick and its search: loaded at the first search, not when DocChat activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const searchPicker = atFirstUse(() => require('./searchPicker') as typeof SearchPicker);

/**
 * Resolves once what the extension host asked of the window so far (here: show the quick pick) is
 * on its way. The extension host does not send a request when it is made: it sends what piled up
 * on its next timer, so loading the search module (dist/first-use.js, tens to hundreds of
 * milliseconds at the first search) in the same turn would hold the quick pick back, and the keys
 * typed meanwhile would reach the editor. A timer set after the request runs after that send.
 */
function shownInTheWindow(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/** The search commands show their quick pick at once; it waits for the connection itself. */
const SHOWS_AT_ONCE = { waitForConnection: false } as const;

/** Returns the passage opener, shared with the features that open passages too. */
export function register(context: vscode.ExtensionContext, services: Services): PassageDocuments {
  const passages = new PassageDocuments(services);
  context.subscriptions.push(passages);

  // The quick pick shows before anything is awaited (the connection, the store list) and before
  // the search itself loads (dist/first-use.js, at the first search): keys typed right after the
  // command go into it, not into the editor. So the command does not wait for the connection
  // first; the picker does, busy.
  const search = async (store: StoreRef | undefined, restrictTo?: FileChoice[], value?: string) => {
    const options: SearchPickerOptions = {
      ...(store ? { store } : {}),
      ...(restrictTo ? { restrictTo } : {}),
      ...(value ? { value } : {}),
    };
    const picker = showSearchQuickPick(options);
    try {
      await shownInTheWindow();
      return await searchPicker().showSearchPicker(services, passages, options, picker);
    } catch (error) {
      picker.dispose();
      throw error;
    }
  };

  context.subscriptions.push(
    registerCommand(
      services.errors,
      Commands.search,
      vscode.l10n.t('DocChat: could not search.'),
      (arg?: unknown) => {
        // A store's node (the tree), or what a chat answer's "Search the Documents" asks for.
        const request = searchRequestOfArgument(arg);
        const searched = request ? search(request.store, undefined, request.query) : search(storeOfArgument(arg));
        markWalkthroughStepDone('search');
        return searched;
      },
      SHOWS_AT_ONCE,
    ),
    registerCommand(
      services.errors,
      Commands.searchInFiles,
      vscode.l10n.t('DocChat: could not search.'),
      async (arg?: unknown, args?: unknown) => {
        const nodes = selectionOfArguments(arg, args);
        const store = storeOfArgument(nodes[0]);
        const files = nodes
          .filter((n) => store && storeOfArgument(n)?.id === store.id)
          .map(fileOfArgument)
          .filter((f) => f !== undefined)
          .map((f) => ({ id: f.fileId, name: f.filename ?? f.fileId }));
        await search(store, files);
      },
      SHOWS_AT_ONCE,
    ),
    registerCommand(
      services.errors,
      Commands.clearPassageHighlight,
      vscode.l10n.t('DocChat: could not clear the passage highlight.'),
      () => passages.clearHighlights(),
      { retry: false, waitForConnection: false },
    ),
  );
  return passages;
}
