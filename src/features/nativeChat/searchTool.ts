import * as vscode from 'vscode';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import { FileNameCache, findPassages } from '../../chatCore/grounding';
import { toolResultText } from '../../chatCore/answerText';
import type { ChosenStore } from './chosenStore';
import { requireDocuments } from '../../services/commands';

/** Must match `contributes.languageModelTools[].name` in package.json. */
export const SEARCH_TOOL_NAME = 'docchat_searchVectorStore';

export interface SearchToolInput {
  query: string;
  /** Name or id of the store (several separated by commas); when omitted, the stores the DocChat chat answers from (chosen there or with `@docchat /store`). */
  store?: string;
  /** Names or ids of several stores to search together. */
  stores?: string[];
  maxResults?: number;
}

/** The store names a tool call gives, from `store` (comma-separated) and `stores`. */
function wantedStores(input: SearchToolInput | undefined): string[] {
  const fromStore = typeof input?.store === 'string' ? input.store.split(',') : [];
  const fromStores = Array.isArray(input?.stores) ? input.stores.filter((s): s is string => typeof s === 'string') : [];
  return [...fromStore, ...fromStores].map((s) => s.trim()).filter(Boolean);
}

function abortOn(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  const listener = token.onCancellationRequested(() => abort.abort());
  if (token.isCancellationRequested) {
    abort.abort();
  }
  return { signal: abort.signal, dispose: () => listener.dispose() };
}

/**
 * Lets agent mode in any chat search the company's documents. The confirmation names the store,
 * because the passages found go to whichever model the chat uses.
 */
export class SearchStoreTool implements vscode.LanguageModelTool<SearchToolInput> {
  private readonly fileNames = new FileNameCache();

  constructor(
    private readonly services: Services,
    private readonly store: ChosenStore,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<SearchToolInput>, token: vscode.CancellationToken) {
    const query = String(options.input?.query ?? '').trim();
    const cancel = abortOn(token);
    let storeLabel: string;
    const wanted = wantedStores(options.input);
    try {
      const stores = await this.store.resolveAll(wanted, cancel.signal);
      storeLabel = stores.length
        ? stores.map((store) => `“${store.name}” (${store.id})`).join(', ')
        : wanted.length
          ? vscode.l10n.t('“{0}” (not found)', wanted.join(', '))
          : vscode.l10n.t('(none chosen)');
    } catch (error) {
      storeLabel = `“${options.input?.store ?? this.store.chosen?.name ?? 'unknown'}”`;
      this.services.log.debug(`Search tool: could not look up the store: ${describeError(error)}`);
    } finally {
      cancel.dispose();
    }
    return {
      invocationMessage: `Searching DocChat vector store ${storeLabel} for “${query}”`,
      confirmationMessages: {
        title: vscode.l10n.t('Search the DocChat vector store {0}?', storeLabel),
        message: new vscode.MarkdownString(
          `DocChat will search the vector store ${storeLabel} for “${query}” and pass the matching passages to the language model.`,
        ),
      },
    };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<SearchToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const query = String(options.input?.query ?? '').trim();
    if (!query) {
      throw new Error('The DocChat search tool needs a non-empty "query".');
    }
    await this.services.connection.use('the DocChat search tool');
    const documents = requireDocuments(this.services.connection);
    const cancel = abortOn(token);
    try {
      const wanted = wantedStores(options.input);
      const stores = await this.store.resolveAll(wanted, cancel.signal);
      if (!stores.length) {
        throw new Error(
          wanted.length
            ? `No DocChat vector store is named "${wanted.join('", "')}" (or several are: use its id).`
            : 'No DocChat vector store is chosen: run "@docchat /store" in the Chat view, or pass "store".',
        );
      }
      const max = Math.min(50, Math.max(1, Math.trunc(options.input?.maxResults ?? this.services.config.current.searchMaxResults)));
      // The calling model writes the query from its own conversation; the relevance floor, the
      // passage budget and the store merge are the chat panel's.
      const { passages: found } = await findPassages(documents, { query, stores, maxResults: max }, this.fileNames, cancel.signal);
      // A count the calling model asked for is kept to; the setting only sets the base of the budget.
      const passages = options.input?.maxResults !== undefined ? found.slice(0, max) : found;
      this.services.log.info(`Search tool: ${passages.length} passages from ${stores.map((s) => s.id).join(', ')}`);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(toolResultText(stores, query, passages))]);
    } finally {
      cancel.dispose();
    }
  }
}
