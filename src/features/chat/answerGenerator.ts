/**
 * Runs one answer: grounding search, prompt, streamed generation (chat completions, or the
 * deprecated inference endpoint for legacy models), delta coalescing, and exactly one terminal
 * event. No `vscode` import: unit tests run it against the embedded backend.
 */
import * as l10n from '@vscode/l10n';
import { DeltaCoalescer, type FlushScheduler, FRAME_MS } from './deltaCoalescer';
import { isAbort, toChatError } from './chatErrors';
import { type FileNameCache, findPassages, type GroundingDocuments, type GroundingStore, numberSources } from '../../chatCore/grounding';
import { gatewayRewriteModel, QueryRewriter } from '../../chatCore/searchQuery';
import { buildChatMessages, buildInferencePrompt, type PromptMessage } from '../../chatCore/promptBuilder';
import type { ChatErrorInfo, ChatMessage, ChatSource, ContextItem, NextStep, StreamPhase, TokenUsage } from '../../chatCore/protocol';

/** The embedded backend's model, which can only quote sources. */
const QUOTING_MODEL = 'local-extractive';

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
  /** The stores the answer is grounded in (none: not grounded). */
  stores?: readonly GroundingStore[];
  /** Search for this instead of the question (the user edited "Searched for"). */
  searchQuery?: string;
  maxResults: number;
}

export interface AnswerDependencies {
  /** Undefined when no gateway is configured; `notConnected` explains why. */
  gateway: AnswerGateway | undefined;
  notConnected?: ChatErrorInfo;
  documents: GroundingDocuments | undefined;
  fileNames: FileNameCache;
  /** Makes each turn's search query; without one, the deterministic rule. */
  rewriter?: QueryRewriter;
  scheduler?: FlushScheduler;
  frameMs?: number;
}

export interface AnswerResult {
  stopped: boolean;
  usage?: TokenUsage;
  finishReason?: string;
  /** Set when the answer had no sources to go on (see `noSourcesAnswer`). */
  nextSteps?: NextStep[];
}

export interface AnswerEvents {
  status(phase: StreamPhase): void;
  /** Sent once, before the first delta, with the numbered sources of the prompt and what was searched for. */
  start(sources: ChatSource[], searchQuery?: string): void;
  delta(text: string): void;
  done(result: AnswerResult): void;
  error(error: ChatErrorInfo): void;
}

function toUsage(usage: StreamPart['usage']): TokenUsage | undefined {
  if (!usage) {
    return undefined;
  }
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: usage.total_tokens || promptTokens + completionTokens };
}

/** Passes events through until the first terminal one; everything after it is dropped. */
function terminalOnce(events: AnswerEvents): AnswerEvents & { readonly ended: boolean } {
  let ended = false;
  return {
    get ended() {
      return ended;
    },
    status: (phase) => !ended && events.status(phase),
    start: (sources, searchQuery) => !ended && events.start(sources, searchQuery),
    delta: (text) => !ended && events.delta(text),
    done: (result) => {
      if (!ended) {
        ended = true;
        events.done(result);
      }
    },
    error: (error) => {
      if (!ended) {
        ended = true;
        events.error(error);
      }
    },
  };
}

/**
 * A grounded question whose search found nothing relevant, or a question to the quoting model
 * with nothing to quote, is not sent to a model: the answer says so honestly in one sentence, cites
 * nothing, and offers the ways forward (choose a store, attach files, and in Local mode use a real
 * language model).
 */
export function noSourcesAnswer(job: Pick<AnswerJob, 'model' | 'stores'>): { text: string; nextSteps: NextStep[] } | undefined {
  const quoting = job.model === QUOTING_MODEL;
  const stores = job.stores ?? [];
  if (!quoting && stores.length === 0) {
    return undefined;
  }
  const nextSteps: NextStep[] = quoting ? ['chooseStore', 'attachFiles', 'useLanguageModel'] : ['chooseStore', 'attachFiles'];
  const names = stores.map((s) => `“${s.name ?? s.id}”`).join(', ');
  const text =
    stores.length === 0
      ? l10n.t('This chat is not grounded in a vector store, and {0} answers only by quoting documents.', QUOTING_MODEL)
      : quoting
        ? l10n.t('The documents in {0} do not cover this question, so {1} has nothing to quote.', names, QUOTING_MODEL)
        : l10n.t('The documents in {0} do not cover this question, so there is nothing to answer from.', names);
  return { text, nextSteps };
}

/** For answers run without a rewriter of their own (tests, one-off calls): the rule only. */
const RULE_ONLY = new QueryRewriter();

export async function generateAnswer(job: AnswerJob, deps: AnswerDependencies, sink: AnswerEvents, signal: AbortSignal): Promise<void> {
  const events = terminalOnce(sink);
  const coalescer = new DeltaCoalescer((text) => events.delta(text), deps.frameMs ?? FRAME_MS, deps.scheduler);
  let usage: TokenUsage | undefined;
  let finishReason: string | undefined;
  try {
    let passages: Awaited<ReturnType<typeof findPassages>> = [];
    let searchQuery: string | undefined;
    const stores = job.stores ?? [];
    if (stores.length > 0) {
      if (!deps.documents) {
        events.error({
          kind: 'not_connected',
          message: l10n.t('Not connected to the documents service, so the vector store cannot be searched.'),
          actions: ['retry', 'showOutput'],
        });
        return;
      }
      events.status('searching');
      try {
        // The quoting model and legacy models cannot rewrite: the deterministic rule does.
        const canRewrite = deps.gateway && job.model !== QUOTING_MODEL && !job.legacy;
        searchQuery =
          job.searchQuery ??
          (
            await (deps.rewriter ?? RULE_ONLY).queryFor(
              job.history,
              job.question,
              canRewrite ? gatewayRewriteModel(deps.gateway!, job.model) : undefined,
              signal,
            )
          ).text;
        passages = await findPassages(deps.documents, { query: searchQuery, stores, maxResults: job.maxResults }, deps.fileNames, signal);
      } catch (error) {
        if (signal.aborted || isAbort(error)) {
          events.done({ stopped: true });
        } else {
          events.error(toChatError(error, 'documents'));
        }
        return;
      }
    }
    if (signal.aborted) {
      events.done({ stopped: true });
      return;
    }
    const sources = numberSources(job.context, passages);
    if (!deps.gateway) {
      events.error(
        deps.notConnected ?? { kind: 'not_connected', message: l10n.t('Not connected to a language-model gateway.'), actions: ['retry'] },
      );
      return;
    }
    const withoutSources = sources.length === 0 ? noSourcesAnswer(job) : undefined;
    if (withoutSources) {
      events.start([], searchQuery);
      events.delta(withoutSources.text);
      events.done({ stopped: false, nextSteps: withoutSources.nextSteps });
      return;
    }
    events.start(sources, searchQuery);
    events.status('generating');
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
    for await (const part of stream) {
      if (signal.aborted) {
        break;
      }
      coalescer.push(part.content);
      usage = toUsage(part.usage) ?? usage;
      finishReason = part.finishReason ?? finishReason;
    }
    coalescer.flush();
    events.done({ stopped: signal.aborted, ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) });
  } catch (error) {
    // What arrived before the failure stays: flush it before the terminal message.
    coalescer.flush();
    if (signal.aborted || isAbort(error)) {
      events.done({ stopped: true, ...(usage ? { usage } : {}) });
    } else {
      events.error(toChatError(error, 'gateway', job.model));
    }
  } finally {
    coalescer.dispose();
    if (!events.ended) {
      events.done({ stopped: signal.aborted });
    }
  }
}
