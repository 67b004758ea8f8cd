import * as vscode from 'vscode';
import type { VectorStore } from '../../api/documents/schemas';
import { Commands } from '../../common/constants';
import type { Services } from '../../services';
import { pickStore } from '../stores/storePicker';
import { PassageDocuments } from './passages';
import { showSearchPicker, type FileChoice } from './searchPicker';

interface NodeLike {
  kind?: unknown;
  store?: VectorStore;
  parent?: { store?: VectorStore };
  fileId?: unknown;
  filename?: unknown;
}

function storeOf(arg: unknown): VectorStore | undefined {
  const node = arg as NodeLike | undefined;
  if (node?.kind === 'store') {
    return node.store;
  }
  return node?.kind === 'storeFile' ? node.parent?.store : undefined;
}

/** Returns the passage opener, shared with the features that open passages too. */
export function register(context: vscode.ExtensionContext, services: Services): PassageDocuments {
  const passages = new PassageDocuments(services);
  context.subscriptions.push(passages);

  const search = async (store: VectorStore | undefined, restrictTo?: FileChoice[]) => {
    const target = store ?? (await pickStore(services, { title: 'DocChat: Search a Vector Store' }));
    if (!target) {
      return;
    }
    await services.recentStores.touch(target.id);
    await showSearchPicker(services, passages, { store: target, restrictTo });
  };

  const guarded = (what: string, body: (...args: unknown[]) => Promise<void>) => async (...args: unknown[]) => {
    try {
      await body(...args);
    } catch (error) {
      services.errors.report(error, what);
    }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(
      Commands.search,
      guarded('search', (arg) => search(storeOf(arg))),
    ),
    vscode.commands.registerCommand(
      Commands.searchInFiles,
      guarded('search', async (arg, args) => {
        const nodes = (Array.isArray(args) && args.length ? args : [arg]) as NodeLike[];
        const store = storeOf(nodes[0]);
        const files = nodes
          .filter((n) => n?.kind === 'storeFile' && storeOf(n)?.id === store?.id && typeof n.fileId === 'string')
          .map((n) => ({ id: n.fileId as string, name: typeof n.filename === 'string' ? n.filename : (n.fileId as string) }));
        await search(store, files);
      }),
    ),
  );
  return passages;
}
