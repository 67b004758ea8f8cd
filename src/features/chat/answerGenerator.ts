/**
 * One answer as a stream: grounding search, prompt, streamed generation (chat completions, or the
 * deprecated inference endpoint for legacy models). No `vscode` import: unit tests run it against
 * the embedded backend.
 */
import * as l10n from '@vscode/l10n';
import { LOCAL_CHAT_MODEL } from '../../api/gateway/models';
import { type AnswerStream, done, failed } from './answerStream';
import { emptyAnswerError, goneStoresOf, reasonedOnlyError, type LocalModelServer, storeGoneError, toChatError } from './chatErrors';
import { type FileNameCache, type GroundingDocuments, type GroundingStore, groundTurn, numberSources } from '../../chatCore/grounding';
import type { PassageSource } from '../../chatCore/conversation';
import { gatewayRewriteModel, QueryRewriter } from '../../chatCore/searchQuery';
import { buildChatMessages, buildInferencePrompt, type PromptMessage } from '../../chatCore/promptBuilder';
import { unheldSentence } from '../../chatCore/relevance';
import type { ChatErrorInfo, ChatMessage, ContextItem, NextStep, TokenUsage } from '../../chatCore/protocol';
import { isAbortError } from '../../api/http/errors';

interface StreamPart {
  content: string;
  /** A reasoning model's reasoning, streamed before its answer: shown as "Thinking…", never as text. */
  reasoning?: string;
  finishReason?: string | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

/** The part of GatewayClient answers use. */
export interface AnswerGateway {
  streamChatCompletion(
    request: { model: string; messages: PromptMessage[]; temperature?: number; max_completion_tokens?: number; stream?: boolean },
    options?: { signal?: AbortSignal },
  ): AsyncIterable<StreamPart>;
  streamInference(
    model: string,
    request: {
      prompt: string;
      project_code?: string;
      system_prompt?: string;
      temperature?: number;
      max_completion_tokens?: number;
      stream?: boolean;
    },
    options?: { signal?: AbortSignal },
  ): AsyncIterable<StreamPart>;
}

export interface AnswerJob {
  question: string;
  /** Messages before the question. */
  history: readonly ChatMessage[];
  context: readonly ContextItem[];
  model: string;
  /** Legacy models go to the deprecated inference endpoint. */
  legacy: boolean;
  temperature?: number;
  maxCompletionTokens?: number;
  projectCode: string;
  /** The stores the answer is grounded in (none: not grounded). */
  stores?: readonly GroundingStore[];
  /** Search for this instead of the question (the user edited "Searched for"). */
  searchQuery?: string;
  maxResults: number;
}

export interface AnswerDependencies {
  /** Undefined when no gateway is configured; `notConnected` explains why. */
  gateway: AnswerGateway | undefined;
  /** Why there is no gateway; when it offers `restartLocalBackend`, DocChat's whole connection failed: why there are no documents either. */
  notConnected?: ChatErrorInfo;
  documents: GroundingDocuments | undefined;
  fileNames: FileNameCache;
  /** Makes each turn's search query; without one, the deterministic rule. */
  rewriter?: QueryRewriter;
  /** True for a store known to be deleted (not in a list of every store). */
  isStoreGone?: (id: string) => boolean;
  /** The services Local mode's own backend provides (its failure is worded as the backend stopping). */
  local?: LocalServices;
}

/** Which services Local mode's own backend provides: the documents always, the gateway for its own models. */
export interface LocalServices {
  readonly documents: boolean;
  readonly gateway: boolean;
  /** The language-model server the backend forwards chat to, when one is chosen. */
  readonly modelServer?: LocalModelServer;
}

function toUsage(usage: StreamPart['usage']): TokenUsage | undefined {
  if (!usage) {
    return undefined;
  }
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: usage.total_tokens || promptTokens + completionTokens };
}

/**
 * A grounded question whose search found nothing relevant, or a question to the quoting model
 * with nothing to quote, is not sent to a model: the answer says so honestly in one sentence, cites
 * nothing, and offers the ways forward (search the documents for the same words, choose a store,
 * attach files, and in Local mode use a real language model). `empty`: the stores hold no files at all, so the answer says that instead
 * (and how to attach some) rather than that the documents do not cover the question.
 */
export function noSourcesAnswer(
  job: Pick<AnswerJob, 'model' | 'stores'>,
  empty = false,
  /** The question's words none of the passages found holds (`Grounding.unheld`). */
  unheld: readonly string[] = [],
): { text: string; nextSteps: NextStep[] } | undefined {
  const quoting = job.model === LOCAL_CHAT_MODEL;
  const stores = job.stores ?? [];
  if (!quoting && stores.length === 0) {
    return undefined;
  }
  const names = stores.map((s) => `“${s.name ?? s.id}”`).join(', ');
  if (empty && stores.length > 0) {
    return {
      text:
        stores.length === 1
          ? l10n.t('The vector store {0} holds no files yet: attach some with Attach Files, or choose another store.', names)
          : l10n.t('The vector stores {0} hold no files yet: attach some with Attach Files, or choose other stores.', names),
      nextSteps: ['attachFiles', 'chooseStore'],
    };
  }
  // The documents were searched: their best passages, which the relevance check did not take, are
  // offered as a search of the same words (a question in other words than the documents' own).
  const searched: NextStep[] = stores.length > 0 ? ['searchDocuments'] : [];
  const nextSteps: NextStep[] = [...searched, 'chooseStore', 'attachFiles', ...(quoting ? (['useLanguageModel'] as const) : [])];
  const text =
    stores.length === 0
      ? l10n.t('This chat is not grounded in a vector store, and {0} answers only by quoting documents.', LOCAL_CHAT_MODEL)
      : quoting
        ? l10n.t('The documents in {0} do not cover this question, so {1} has nothing to quote.', names, LOCAL_CHAT_MODEL)
        : l10n.t('The documents in {0} do not cover this question, so there is nothing to answer from.', names);
  const why = stores.length > 0 ? unheldSentence(unheld) : '';
  return { text: why ? `${text} ${why}` : text, nextSteps };
}

/**
 * True when every one of `stores` is known to hold no files (a search of it can find nothing):
 * one file asked of each. Unknown (no way to ask, or the request failed): false.
 */
async function holdNoFiles(
  documents: GroundingDocuments | undefined,
  stores: readonly GroundingStore[],
  signal: AbortSignal,
): Promise<boolean> {
  if (!documents?.listVectorStoreFiles || stores.length === 0) return false;
  try {
    const pages = await Promise.all(stores.map((s) => documents.listVectorStoreFiles!(s.id, { limit: 1 }, { signal })));
    return pages.every((page) => page.data.length === 0);
  } catch {
    return false;
  }
}

/** For answers run without a rewriter of their own (tests, one-off calls): the rule only. */
const RULE_ONLY = new QueryRewriter();

/** A failure of the answer's generation, as the inline error (the gateway is the service it talks to). */
export function describeAnswerFailure(job: Pick<AnswerJob, 'model'>, local?: LocalServices): (error: unknown) => ChatErrorInfo {
  return (error) => toChatError(error, 'gateway', job.model, local?.gateway === true, local?.modelServer);
}

/**
 * One answer as a stream (see answerStream.ts): grounding search, prompt, streamed generation.
 * A failure of the gateway is thrown (`describeAnswerFailure` words it); one of the search is
 * returned, as it names the documents service.
 */
export async function* generateAnswer(job: AnswerJob, deps: AnswerDependencies, signal: AbortSignal): AnswerStream {
  let passages: PassageSource[] = [];
  let searchQuery: string | undefined;
  let unheld: string[] = [];
  const stores = job.stores ?? [];
  if (stores.length > 0) {
    if (!deps.documents) {
      // DocChat's connection failed as a whole (Local mode's backend did not start, or stopped too
      // often): the same error as a question without a store, with its restart of the backend.
      return failed(
        deps.notConnected?.actions.includes('restartLocalBackend')
          ? deps.notConnected
          : {
              kind: 'not_connected',
              message: l10n.t('Not connected to the documents service, so the vector store cannot be searched.'),
              actions: ['retry', 'showOutput'],
            },
      );
    }
    const gone = deps.isStoreGone ? stores.filter((s) => deps.isStoreGone!(s.id)) : [];
    if (gone.length) {
      return failed(storeGoneError(gone));
    }
    yield { type: 'status', phase: 'searching' };
    try {
      // The quoting model and legacy models cannot rewrite: DocChat's own follow-up method does.
      const canRewrite = deps.gateway && job.model !== LOCAL_CHAT_MODEL && !job.legacy;
      const found = await groundTurn(
        deps.documents,
        {
          question: job.question,
          history: job.history,
          stores,
          maxResults: job.maxResults,
          ...(job.searchQuery !== undefined ? { searchQuery: job.searchQuery } : {}),
          rewriter: deps.rewriter ?? RULE_ONLY,
          ...(canRewrite ? { model: gatewayRewriteModel(deps.gateway!, job.model) } : {}),
        },
        deps.fileNames,
        signal,
      );
      passages = found.passages;
      searchQuery = found.query;
      unheld = found.unheld ?? [];
    } catch (error) {
      if (signal.aborted || isAbortError(error)) {
        return done({ stopped: true });
      }
      const missing = goneStoresOf(error, stores);
      return failed(missing ? storeGoneError(missing) : toChatError(error, 'documents', undefined, deps.local?.documents === true));
    }
  }
  if (signal.aborted) {
    return done({ stopped: true });
  }
  const sources = numberSources(job.context, passages);
  if (!deps.gateway) {
    return failed(
      deps.notConnected ?? { kind: 'not_connected', message: l10n.t('Not connected to a language-model gateway.'), actions: ['retry'] },
    );
  }
  const withoutSources = sources.length === 0 ? noSourcesAnswer(job, await holdNoFiles(deps.documents, stores, signal), unheld) : undefined;
  if (withoutSources) {
    yield { type: 'start', sources: [], ...(searchQuery ? { searchQuery } : {}) };
    yield { type: 'delta', text: withoutSources.text };
    return done({ stopped: false, nextSteps: withoutSources.nextSteps });
  }
  yield { type: 'start', sources, ...(searchQuery ? { searchQuery } : {}) };
  yield { type: 'status', phase: 'generating' };
  const searchedStore = stores.map((s) => s.name ?? s.id).join('", "');
  const prompt = { question: job.question, history: job.history, sources, ...(searchedStore ? { searchedStore } : {}) };
  const options = {
    ...(job.temperature !== undefined ? { temperature: job.temperature } : {}),
    ...(job.maxCompletionTokens !== undefined ? { max_completion_tokens: job.maxCompletionTokens } : {}),
    stream: true,
  };
  const stream = job.legacy
    ? deps.gateway.streamInference(job.model, { ...buildInferencePrompt(prompt), project_code: job.projectCode, ...options }, { signal })
    : deps.gateway.streamChatCompletion({ model: job.model, messages: buildChatMessages(prompt), ...options }, { signal });
  let usage: TokenUsage | undefined;
  let finishReason: string | undefined;
  /** Whether any text came: a stream that ends with none and no finish reason is an error. */
  let gotText = false;
  /** Whether the answer's header says "Thinking…": a reasoning model reasons before its text (and, at the end, wrote none). */
  let thinking = false;
  try {
    for await (const part of stream) {
      if (signal.aborted) {
        break;
      }
      if (part.reasoning && !gotText && !thinking) {
        thinking = true;
        yield { type: 'status', phase: 'thinking' };
      }
      if (part.content) {
        if (thinking && part.content.trim() !== '') {
          thinking = false;
          yield { type: 'status', phase: 'generating' };
        }
        gotText ||= part.content.trim() !== '';
        yield { type: 'delta', text: part.content };
      }
      usage = toUsage(part.usage) ?? usage;
      finishReason = part.finishReason ?? finishReason;
    }
  } catch (error) {
    if (signal.aborted || isAbortError(error)) {
      return done({ stopped: true, ...(usage ? { usage } : {}) });
    }
    throw error;
  }
  // Still "thinking" at the end: the model reasoned and wrote no answer.
  if (!signal.aborted && !gotText && thinking && (!finishReason || finishReason === 'length')) {
    return failed(reasonedOnlyError(job.model, finishReason === 'length'));
  }
  if (!signal.aborted && !finishReason && !gotText) {
    return failed(emptyAnswerError(job.model));
  }
  return done({ stopped: signal.aborted, ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) });
}
