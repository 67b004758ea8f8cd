import * as vscode from 'vscode';
import { Commands, ContextKeys } from '../../common/constants';
import type { Services } from '../../services';
import { describeError, isCancellation } from '../../services/errors';
import { configuredChatModel } from '../../services/settingsModel';
import { LOCAL_CHAT_MODEL } from '../../api/gateway/models';
import { citedSources, citedStatements, sourceListMarkdown } from '../../chatCore/citations';
import { quotedHeading } from '../../chatCore/quotedSection';
import { FileNameCache, groundTurn, numberSources } from '../../chatCore/grounding';
import { unheldSentence } from '../../chatCore/relevance';
import { gatewayRewriteModel, QueryRewriter, type QueryTurn } from '../../chatCore/searchQuery';
import { modelOptions, pickDefaultModel } from '../../chatCore/modelCatalog';
import { buildSystemPrompt, type PromptMessage } from '../../chatCore/promptBuilder';
import type { PassageSource } from '../../chatCore/protocol';
import { passageOf, type PassageDocuments, type QuoteFocus } from '../search';
import { completeWalkthroughStep } from '../walkthrough';
import { passageTitle } from '../../chatCore/answerText';
import { makeSnippet } from '../../chatCore/snippet';
import { shapeResults } from '../../chatCore/resultShaping';
import type { ChosenStore } from './chosenStore';
import { commandArgs, type PassageLinks } from './passageLinks';
import { LinkedAnswer, unlinkedAnswer } from './linkedAnswer';

/** Must match `contributes.chatParticipants[].id` in package.json. */
export const PARTICIPANT_ID = 'docchat.participant';

const HISTORY_TURNS = 10;
/** How much of each passage `/search` shows: a few lines around the match. */
const SEARCH_EXCERPT_CHARS = 320;

interface DocChatResult extends vscode.ChatResult {
  /** `searchQuery`: what the turn searched for, read back from the history by the next turn. */
  metadata?: {
    command?: string;
    storeId?: string;
    /** The stores the turn searched: a later turn in other stores starts a new subject. */
    storeIds?: string[];
    sources?: number;
    searchQuery?: string;
    /** The files the answer's passages come from: the next turn's follow-up searches them again. */
    files?: { storeId: string; fileId: string }[];
  };
}

/** `@docchat`: answers from the chosen store with the gateway's models; `/search`, `/store`. */
export class DocChatParticipant {
  private readonly fileNames = new FileNameCache();
  private readonly rewriter: QueryRewriter;

  constructor(
    private readonly services: Services,
    private readonly store: ChosenStore,
    private readonly passages: PassageDocuments,
    private readonly links: PassageLinks,
  ) {
    this.rewriter = new QueryRewriter({ log: (message) => services.log.warn(`@docchat: ${message}`) });
  }

  readonly handler: vscode.ChatRequestHandler = async (request, context, stream, token): Promise<DocChatResult> => {
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      await this.services.connection.use('@docchat');
      return await this.handle(request, context, stream, abort.signal);
    } catch (error) {
      if (isCancellation(error) || token.isCancellationRequested) {
        return {};
      }
      this.services.log.error(`@docchat: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return { errorDetails: { message: describeError(error) } };
    } finally {
      listener.dispose();
    }
  };

  private async handle(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    signal: AbortSignal,
  ): Promise<DocChatResult> {
    if (request.command === 'store') {
      const chosen = await this.store.choose();
      stream.markdown(
        chosen?.length
          ? vscode.l10n.t('@docchat and the DocChat chat now answer from {0}.', chosen.map((s) => `**${escape(s.name)}**`).join(', '))
          : vscode.l10n.t('No vector store chosen.'),
      );
      return { metadata: { command: 'store', storeId: chosen?.[0]?.id } };
    }
    const documents = this.services.connection.documents;
    if (!documents) {
      stream.markdown(vscode.l10n.t('DocChat is not connected to a documents service yet.'));
      stream.button({ command: Commands.setDocumentsToken, title: vscode.l10n.t('Set Documents Token') });
      stream.button({ command: Commands.showOutput, title: vscode.l10n.t('Show Output') });
      return {};
    }
    const stores = await this.store.resolveAll(undefined, signal);
    const store = stores[0];
    if (!store) {
      stream.markdown(vscode.l10n.t('Choose the vector store @docchat answers from first (`/store`).'));
      stream.button({ command: Commands.chooseChatStore, title: vscode.l10n.t('Choose Vector Store') });
      return {};
    }
    const storeNames = stores.map((s) => s.name).join(', ');
    const question = request.prompt.trim();
    if (!question) {
      stream.markdown(vscode.l10n.t('Ask a question about the documents in **{0}**, or use `/search <words>`.', escape(storeNames)));
      return {};
    }
    const gateway = this.services.connection.gateway;
    const model = request.command !== 'search' && gateway ? await this.pickModel(signal) : undefined;
    // The same query rule as the chat panel: a follow-up is searched with the conversation's
    // subject, rewritten by the model unless it is the quoting model, which cannot rewrite.
    const {
      passages: found,
      query,
      unheld,
    } = await groundTurn(
      documents,
      {
        question,
        history: queryTurnsOf(context),
        stores,
        maxResults: this.services.config.current.searchMaxResults,
        rewriter: this.rewriter,
        ...(gateway && model && model !== LOCAL_CHAT_MODEL ? { model: gatewayRewriteModel(gateway, model) } : {}),
      },
      this.fileNames,
      signal,
      () => stream.progress(vscode.l10n.t('Searching {0}…', storeNames)),
    );
    const files = found.map((p) => ({ storeId: p.storeId, fileId: p.fileId }));
    const metadata = { storeId: store.id, storeIds: stores.map((s) => s.id), sources: found.length, searchQuery: query, files };
    if (request.command === 'search') {
      this.showPassages(stream, storeNames, query, shapeResults(found, (p) => p, query).shown);
      return { metadata: { command: 'search', ...metadata } };
    }
    if (!gateway || !model) {
      stream.markdown(vscode.l10n.t('No language-model gateway is configured, so here are the matching passages instead.') + '\n\n');
      this.showPassages(stream, storeNames, query, found);
      stream.button({ command: Commands.setGatewayApiKey, title: vscode.l10n.t('Set Gateway API Key') });
      return { metadata: { command: 'search', ...metadata } };
    }
    if (query !== question) {
      stream.markdown(`*${escape(vscode.l10n.t('Searched for: {0}', query))}*\n\n`);
    }
    if (!found.length) {
      // Nothing relevant: say so honestly (in the chat panel's words), cite nothing, and offer the way forward.
      const names = escape(stores.map((s) => `“${s.name}”`).join(', '));
      const why = unheldSentence(unheld ?? []);
      stream.markdown(
        (model === LOCAL_CHAT_MODEL
          ? vscode.l10n.t('The documents in {0} do not cover this question, so {1} has nothing to quote.', names, LOCAL_CHAT_MODEL)
          : vscode.l10n.t('The documents in {0} do not cover this question, so there is nothing to answer from.', names)) +
          (why ? ` ${escape(why)}` : ''),
      );
      // The search of the same words: the passages the relevance check did not take, if the question used other words.
      const store = stores.length === 1 ? { store: { id: stores[0]!.id, name: stores[0]!.name } } : {};
      stream.button({ command: Commands.search, title: vscode.l10n.t('Search the Documents'), arguments: [{ query, ...store }] });
      stream.button({ command: Commands.chooseChatStore, title: vscode.l10n.t('Choose Vector Store') });
      return { metadata };
    }
    const sources = numberSources([], found);
    const messages: PromptMessage[] = [
      { role: 'system', content: buildSystemPrompt(sources, storeNames) },
      ...historyOf(context),
      { role: 'user', content: question },
    ];
    stream.progress(vscode.l10n.t('Answering with {0}…', model));
    // Each citation links to its source, opening it at the sentence it stands behind.
    const linked = new LinkedAnswer(found.length, (n, label, statement) =>
      this.openLink(found[n - 1]!, label, { quotes: statement ? [statement] : [] }),
    );
    try {
      let thinking = false;
      for await (const part of gateway.streamChatCompletion({ model, messages }, { signal })) {
        if (part.reasoning && !thinking && !linked.answer) {
          // A reasoning model reasons before it answers: its reasoning is not the answer.
          thinking = true;
          stream.progress(vscode.l10n.t('{0} is thinking…', model));
        }
        if (part.content) {
          const shown = linked.push(part.content);
          if (shown) stream.markdown(this.trusted(shown));
        }
      }
    } finally {
      // What was held back, and a code block left open closed, also when the answer broke off.
      const rest = linked.end();
      if (rest) stream.markdown(this.trusted(rest));
    }
    const answer = linked.answer;
    const cited = citedSources(answer, found.length);
    this.showSources(stream, answer, found, cited.length ? cited : found.map((_, i) => i + 1));
    // The model picked in VS Code's Chat only lets VS Code run the request: DocChat answers with
    // its own model (the gateway's, or Local mode's), and says which.
    stream.markdown(`\n\n*${escape(this.answeredBy(model))}*`);
    completeWalkthroughStep(ContextKeys.participantAnswered);
    return { metadata };
  }

  private answeredBy(model: string): string {
    const state = this.services.connection.state;
    return state.kind === 'local' && !this.services.config.current.gatewayUrl
      ? vscode.l10n.t("Answered by {0} through DocChat's Local mode.", model)
      : vscode.l10n.t("Answered by {0} through DocChat's language-model gateway.", model);
  }

  private async pickModel(signal: AbortSignal): Promise<string> {
    const configured = configuredChatModel(this.services.config.current, this.services.modelServer.choice?.model);
    const ids = (await this.services.connection.gateway!.listCompletionModels({ signal })).map((m) => m.id);
    const options = modelOptions(ids).filter((o) => o.kind === 'completion');
    const model = pickDefaultModel(options, options.some((o) => o.id === configured) ? configured : '');
    if (!model) {
      throw new Error('The gateway lists no chat models.');
    }
    return model;
  }

  /**
   * The passages as a list of search results, best score first: the score each row shows is the
   * documents service's (the search quick pick's), while the grounding order is the order the
   * answer's sources take (interleaved by rank across stores, fused across a follow-up's
   * searches, neighbouring chunks joined), which a reader of scores would take for disorder.
   * Equal scores keep the grounding order.
   */
  private showPassages(stream: vscode.ChatResponseStream, storeNames: string, query: string, grounded: readonly PassageSource[]): void {
    const found = [...grounded].sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
    if (!found.length) {
      stream.markdown(vscode.l10n.t('No passages in **{0}** match “{1}”.', escape(storeNames), escape(query)));
      return;
    }
    stream.markdown(
      found.length === 1
        ? vscode.l10n.t('1 passage in **{0}** matches “{1}”:', escape(storeNames), escape(query)) + '\n\n'
        : vscode.l10n.t('{0} passages in **{1}** match “{2}”:', found.length, escape(storeNames), escape(query)) + '\n\n',
    );
    found.forEach((p, i) => {
      // The excerpt around the match, as plain text (the search quick pick's row): a passage's
      // markdown cut anywhere would leave marks open ("**Plan, the…").
      const excerpt = makeSnippet(p.content, query, SEARCH_EXCERPT_CHARS).text;
      stream.markdown(
        this.trusted(
          `**${this.openLink(p, `${i + 1}. ${passageTitle(p)}`, { quotes: [], query })}** · ${escape(p.storeName ?? p.storeId)} · score ${(p.score ?? 0).toFixed(2)}\n\n> ${escape(excerpt)}\n\n`,
        ),
      );
      stream.reference(this.passages.uriFor(passageOf(p)));
    });
  }

  /** The Sources list under `answer`: each source with the section of what the answer quotes of it. */
  private showSources(
    stream: vscode.ChatResponseStream,
    answer: string,
    found: readonly PassageSource[],
    numbers: readonly number[],
  ): void {
    const listed = numbers.map((n) => ({ n, p: found[n - 1] })).filter((x): x is { n: number; p: PassageSource } => !!x.p);
    if (!listed.length) {
      return;
    }
    stream.markdown(
      this.trusted(
        `\n\n**${vscode.l10n.t('Sources')}**\n\n${sourceListMarkdown(
          listed.map(({ n, p }) => {
            const heading = quotedHeading(answer, n, found.length, p);
            return {
              n,
              markdown: this.openLink(p, passageTitle(p), { quotes: citedStatements(answer, n, found.length) }),
              ...(heading ? { heading } : {}),
              store: p.storeName ?? p.storeId,
            };
          }),
        )}`,
      ),
    );
    for (const { p } of listed) {
      stream.reference(this.passages.uriFor(passageOf(p)));
    }
  }

  /**
   * A link that opens the passage highlighted (the same way the search quick pick opens it) and
   * scrolled to `focus`: it carries a small reference, fully escaped (see passageLinks.ts).
   */
  private openLink(p: PassageSource, text: string, focus: QuoteFocus): string {
    return `[${escape(text)}](command:${Commands.openChatPassage}?${commandArgs([this.links.refer(p, focus)])} "${vscode.l10n.t('Open the passage')}")`;
  }

  private trusted(markdown: string): vscode.MarkdownString {
    const value = new vscode.MarkdownString(markdown);
    value.isTrusted = { enabledCommands: [Commands.openChatPassage] };
    return value;
  }
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#|!]/g, (c) => `\\${c}`);
}

/** The markdown an earlier response streamed, as plain text. */
function responseText(turn: vscode.ChatResponseTurn): string {
  return unlinkedAnswer(
    turn.response
      .map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : ''))
      .join('')
      .trim(),
  );
}

/** The conversation so far as the query rule reads it, with the query each answer searched for. */
function queryTurnsOf(context: vscode.ChatContext): QueryTurn[] {
  const turns: QueryTurn[] = [];
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      turns.push({ role: 'user', content: turn.prompt });
    } else if (turn instanceof vscode.ChatResponseTurn) {
      const metadata = turn.result.metadata as DocChatResult['metadata'];
      const searched = metadata?.searchQuery;
      const files = Array.isArray(metadata?.files) ? metadata.files : [];
      turns.push({
        role: 'assistant',
        content: responseText(turn),
        ...(typeof searched === 'string' && searched ? { searchQuery: searched } : {}),
        ...(Array.isArray(metadata?.storeIds) ? { storeIds: metadata.storeIds.filter((id) => typeof id === 'string') } : {}),
        ...(files.length ? { sources: files.map((file) => ({ kind: 'passage', storeId: file.storeId, fileId: file.fileId })) } : {}),
      });
    }
  }
  return turns;
}

/** The last turns of this participant's conversation, as plain messages. */
function historyOf(context: vscode.ChatContext): PromptMessage[] {
  const turns = queryTurnsOf(context)
    .filter((turn) => turn.role === 'user' || turn.content)
    .map(({ role, content }): PromptMessage => ({ role, content }));
  const kept = turns.slice(-HISTORY_TURNS);
  while (kept[0]?.role === 'assistant') {
    kept.shift();
  }
  return kept;
}
