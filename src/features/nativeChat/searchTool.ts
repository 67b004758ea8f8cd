import * as vscode from 'vscode';
import type { Services } from '../../services';
import { describeError } from '../../services/errors';
import { FileNameCache, searchPassages } from '../../chatCore/grounding';
import { toolResultText } from './answerText';
import type { ChosenStore } from './chosenStore';
import { requireDocuments } from '../../services/commands';

/** Must match `contributes.languageModelTools[].name` in package.json. */
export const SEARCH_TOOL_NAME = 'docchat_searchVectorStore';

export interface SearchToolInput {
  query: string;
  /** Name or id of the store; the store chosen with `@docchat /store` when omitted. */
  store?: string;
  maxResults?: number;
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
    try {
      const store = await this.store.resolve(options.input?.store, cancel.signal);
      storeLabel = store
        ? `“${store.name}” (${store.id})`
        : options.input?.store
          ? vscode.l10n.t('“{0}” (not found)', options.input.store)
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
      const store = await this.store.resolve(options.input?.store, cancel.signal);
      if (!store) {
        throw new Error(
          options.input?.store
            ? `No DocChat vector store is named "${options.input.store}" (or several are: use its id).`
            : 'No DocChat vector store is chosen: run "@docchat /store" in the Chat view, or pass "store".',
        );
      }
      const max = Math.min(50, Math.max(1, Math.trunc(options.input?.maxResults ?? this.services.config.current.searchMaxResults)));
      const passages = await searchPassages(documents, store, query, max, this.fileNames, cancel.signal);
      this.services.log.info(`Search tool: ${passages.length} passages from ${store.id}`);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(toolResultText(store, query, passages))]);
    } finally {
      cancel.dispose();
    }
  }
}
