/**
 * One answer as a stream: grounding search, prompt, streamed generation (chat completions, or the
 * deprecated inference endpoint for legacy models). No `vscode` import: unit tests run it against
 * the embedded backend.
 */
import * as l10n from '@vscode/l10n';
import { LOCAL_CHAT_MODEL } from '../../api/gateway/schemas';
import { type AnswerStream, done, failed } from './answerStream';
import { emptyAnswerError, isAbort, toChatError } from './chatErrors';
import { type FileNameCache, type GroundingDocuments, type GroundingStore, numberSources, searchPassages } from '../../chatCore/grounding';
import { buildChatMessages, buildInferencePrompt, type PromptMessage } from '../../chatCore/promptBuilder';
import type { ChatErrorInfo, ChatMessage, ContextItem, NextStep, TokenUsage } from '../../chatCore/protocol';

interface StreamPart {
  content: string;
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
  store?: GroundingStore;
  maxResults: number;
}

export interface AnswerDependencies {
  /** Undefined when no gateway is configured; `notConnected` explains why. */
  gateway: AnswerGateway | undefined;
  notConnected?: ChatErrorInfo;
  documents: GroundingDocuments | undefined;
  fileNames: FileNameCache;
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
 * A grounded question whose search found nothing, or a question to the quoting model with nothing
 * to quote, is not sent to a model: the answer says why in one sentence and offers the ways
 * forward (choose a store, attach files, and in Local mode use a real language model).
 */
export function noSourcesAnswer(job: Pick<AnswerJob, 'model' | 'store'>): { text: string; nextSteps: NextStep[] } | undefined {
  const quoting = job.model === LOCAL_CHAT_MODEL;
  if (!quoting && !job.store) {
    return undefined;
  }
  const nextSteps: NextStep[] = quoting ? ['chooseStore', 'attachFiles', 'useLanguageModel'] : ['chooseStore', 'attachFiles'];
  const store = job.store ? (job.store.name ?? job.store.id) : undefined;
  const text =
    store === undefined
      ? l10n.t('This chat is not grounded in a vector store, and {0} answers only by quoting documents.', LOCAL_CHAT_MODEL)
      : quoting
        ? l10n.t('No passage in “{0}” matches this question, so {1} has nothing to quote.', store, LOCAL_CHAT_MODEL)
        : l10n.t('No passage in “{0}” matches this question, so there is nothing to answer from.', store);
  return { text, nextSteps };
}

/** A failure of the answer's generation, as the inline error (the gateway is the service it talks to). */
export function describeAnswerFailure(job: Pick<AnswerJob, 'model'>): (error: unknown) => ChatErrorInfo {
  return (error) => toChatError(error, 'gateway', job.model);
}

/**
 * One answer as a stream (see answerStream.ts): grounding search, prompt, streamed generation.
 * A failure of the gateway is thrown (`describeAnswerFailure` words it); one of the search is
 * returned, as it names the documents service.
 */
export async function* generateAnswer(job: AnswerJob, deps: AnswerDependencies, signal: AbortSignal): AnswerStream {
  let passages: Awaited<ReturnType<typeof searchPassages>> = [];
  if (job.store) {
    if (!deps.documents) {
      return failed({
        kind: 'not_connected',
        message: l10n.t('Not connected to the documents service, so the vector store cannot be searched.'),
        actions: ['retry', 'showOutput'],
      });
    }
    yield { type: 'status', phase: 'searching' };
    try {
      passages = await searchPassages(deps.documents, job.store, job.question, job.maxResults, deps.fileNames, signal);
    } catch (error) {
      if (signal.aborted || isAbort(error)) {
        return done({ stopped: true });
      }
      return failed(toChatError(error, 'documents'));
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
  const withoutSources = sources.length === 0 ? noSourcesAnswer(job) : undefined;
  if (withoutSources) {
    yield { type: 'start', sources: [] };
    yield { type: 'delta', text: withoutSources.text };
    return done({ stopped: false, nextSteps: withoutSources.nextSteps });
  }
  yield { type: 'start', sources };
  yield { type: 'status', phase: 'generating' };
  const prompt = { question: job.question, history: job.history, sources, ...(job.store?.name ? { searchedStore: job.store.name } : {}) };
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
  let received = '';
  try {
    for await (const part of stream) {
      if (signal.aborted) {
        break;
      }
      if (part.content) {
        received += part.content;
        yield { type: 'delta', text: part.content };
      }
      usage = toUsage(part.usage) ?? usage;
      finishReason = part.finishReason ?? finishReason;
    }
  } catch (error) {
    if (signal.aborted || isAbort(error)) {
      return done({ stopped: true, ...(usage ? { usage } : {}) });
    }
    throw error;
  }
  if (!signal.aborted && !finishReason && !received.trim()) {
    return failed(emptyAnswerError(job.model));
  }
  return done({ stopped: signal.aborted, ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) });
}
