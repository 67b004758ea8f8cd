/**
 * Runs a parsed tool command against the gateway and turns the outcome into markdown the chat
 * panel can show: an answer with sources, a cancellation note, or one clear error sentence.
 * No `vscode` import: the panel (or any caller) passes the client, an AbortSignal and callbacks.
 */
import * as l10n from '@vscode/l10n';
import type { GatewayClient, ResearchWaitOptions } from '../../api/gateway/client';
import { LOCAL_MODE_TOOL } from '../../api/gateway/models';
import type { ResearchTask } from '../../api/gateway/schemas';
import { DocChatError, isAbortError } from '../../api/http/errors';
import { escapeMarkdown, formatCrawl, formatResearch, formatWebSearch, type ToolAnswer } from './markdown';
import type { ToolCommand, ToolCommandName } from '../../chatCore/slashCommands';

/** The part of GatewayClient the tools use. */
export type ToolGateway = Pick<GatewayClient, 'webSearch' | 'webCrawl' | 'startResearch' | 'researchStatus' | 'waitForResearch'>;

/** What a `/research` task reports while it runs. */
export interface ResearchProgress {
  readonly id: string;
  /** `in_progress`, or whatever the service says. */
  readonly status: string;
  /** 0..1 when the service reports it. */
  readonly fraction?: number;
  readonly message?: string;
  /** One line for a progress indicator: "Researching… 40% — reading sources". */
  readonly text: string;
}

export interface RunToolOptions {
  signal?: AbortSignal;
  /** `/research`: called once when the task starts and on every status poll. */
  onProgress?(progress: ResearchProgress): void;
  /** `/web`: how many results (the service default otherwise). */
  maxResults?: number;
  /** `/research` polling: first delay and cap (defaults: 1 s, 5 s). */
  pollInitialDelayMs?: number;
  pollMaxDelayMs?: number;
  /** `/research`: give up after this long (default 30 minutes). */
  timeoutMs?: number;
}

export type ToolOutcome =
  | { readonly status: 'done'; readonly command: ToolCommandName; readonly answer: ToolAnswer; readonly researchId?: string }
  /**
   * Stopped by the signal (`byService` false), or a research task the service reports as
   * cancelled. `message` is the same sentence as `markdown`, as plain text.
   */
  | {
      readonly status: 'cancelled';
      readonly command: ToolCommandName;
      readonly markdown: string;
      readonly message: string;
      readonly byService: boolean;
      readonly researchId?: string;
    }
  | {
      readonly status: 'failed';
      readonly command: ToolCommandName;
      readonly markdown: string;
      readonly message: string;
      readonly error?: unknown;
      readonly researchId?: string;
    };

/**
 * The gateway endpoint of each command, relative to the gateway URL the user sets: what a gateway
 * that lacks the tool is missing.
 */
const TOOL_PATHS: Record<ToolCommandName, string> = {
  web: '/v1/tools/web/search',
  crawl: '/v1/tools/web/crawl',
  research: '/v1/tools/web/research',
};

/** Whole sentences per command, so each can be translated as one (no noun phrase slotted into a frame). */
type ToolSentence = 'cancelled' | 'local' | 'unavailable' | 'auth' | 'rateLimit' | 'invalid' | 'timeout' | 'failed';

function toolSentence(command: ToolCommandName, sentence: ToolSentence, detail = ''): string {
  switch (`${command}.${sentence}`) {
    case 'web.cancelled':
      return l10n.t('Web search was cancelled.');
    case 'web.local':
      return l10n.t("Web search needs your company's gateway; DocChat's Local mode has none.");
    case 'web.unavailable':
      return l10n.t('Web search is not available on this gateway: it does not provide {0}.', TOOL_PATHS.web);
    case 'web.auth':
      return l10n.t('Web search failed: the gateway did not accept the API key. {0}', detail);
    case 'web.rateLimit':
      return l10n.t('Web search failed: too many requests; try again in a moment.');
    case 'web.invalid':
      return l10n.t('Web search could not start: {0}', detail);
    case 'web.timeout':
      return l10n.t('Web search timed out. {0}', detail);
    case 'web.failed':
      return l10n.t('Web search failed: {0}', detail);
    case 'crawl.cancelled':
      return l10n.t('Crawling was cancelled.');
    case 'crawl.unavailable':
      return l10n.t('Crawling is not available on this gateway: it does not provide {0}.', TOOL_PATHS.crawl);
    case 'crawl.auth':
      return l10n.t('Crawling failed: the gateway did not accept the API key. {0}', detail);
    case 'crawl.rateLimit':
      return l10n.t('Crawling failed: too many requests; try again in a moment.');
    case 'crawl.invalid':
      return l10n.t('Crawling could not start: {0}', detail);
    case 'crawl.timeout':
      return l10n.t('Crawling timed out. {0}', detail);
    case 'crawl.failed':
      return l10n.t('Crawling failed: {0}', detail);
    case 'research.cancelled':
      return l10n.t('Web research was cancelled.');
    case 'research.local':
      return l10n.t("Web research needs your company's gateway; DocChat's Local mode has none.");
    case 'research.unavailable':
      return l10n.t('Web research is not available on this gateway: it does not provide {0}.', TOOL_PATHS.research);
    case 'research.auth':
      return l10n.t('Web research failed: the gateway did not accept the API key. {0}', detail);
    case 'research.rateLimit':
      return l10n.t('Web research failed: too many requests; try again in a moment.');
    case 'research.invalid':
      return l10n.t('Web research could not start: {0}', detail);
    case 'research.timeout':
      return l10n.t('Web research timed out. {0}', detail);
    case 'research.failed':
      return l10n.t('Web research failed: {0}', detail);
    default:
      return detail;
  }
}

/** Never throws: every failure becomes a `failed` outcome with a readable message. */
export async function runToolCommand(gateway: ToolGateway, command: ToolCommand, options: RunToolOptions = {}): Promise<ToolOutcome> {
  let researchId: string | undefined;
  try {
    switch (command.name) {
      case 'web': {
        const response = await gateway.webSearch(
          { query: command.query, ...(options.maxResults ? { max_results: options.maxResults } : {}) },
          { signal: options.signal },
        );
        return { status: 'done', command: 'web', answer: formatWebSearch(command.query, response) };
      }
      case 'crawl': {
        const response = await gateway.webCrawl([...command.urls], { signal: options.signal });
        return { status: 'done', command: 'crawl', answer: formatCrawl(response) };
      }
      case 'research': {
        const started = await gateway.startResearch(command.topic, { signal: options.signal });
        researchId = started.id;
        options.onProgress?.(researchProgress(started));
        const task = RESEARCH_FINISHED.has(started.status) ? started : await gateway.waitForResearch(started.id, waitOptions(options));
        return researchOutcome(command.topic, task);
      }
    }
  } catch (error) {
    if (isAbortError(error) || options.signal?.aborted) {
      const message = toolSentence(command.name, 'cancelled');
      return { status: 'cancelled', command: command.name, markdown: message, message, byService: false, researchId };
    }
    const message = describeToolError(command.name, error);
    return { status: 'failed', command: command.name, markdown: message, message, error, researchId };
  }
}

const RESEARCH_FINISHED = new Set(['completed', 'failed', 'cancelled']);

function waitOptions(options: RunToolOptions): ResearchWaitOptions {
  return {
    signal: options.signal,
    initialDelayMs: options.pollInitialDelayMs ?? 1_000,
    maxDelayMs: options.pollMaxDelayMs ?? 5_000,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    onProgress: (task) => options.onProgress?.(researchProgress(task)),
  };
}

function researchOutcome(topic: string, task: ResearchTask): ToolOutcome {
  const researchId = task.id;
  if (task.status === 'completed') {
    return { status: 'done', command: 'research', answer: formatResearch(topic, task), researchId };
  }
  if (task.status === 'cancelled') {
    const cancelled = (t: string, why: string | undefined) =>
      why ? l10n.t('The research on “{0}” was cancelled: {1}', t, why) : l10n.t('The research on “{0}” was cancelled.', t);
    const markdown = cancelled(escapeMarkdown(topic), task.message ? escapeMarkdown(task.message) : undefined);
    const message = cancelled(topic, task.message || undefined);
    return { status: 'cancelled', command: 'research', markdown, message, byService: true, researchId };
  }
  const reason = task.error || task.message || l10n.t('the service gave no reason');
  const markdown = l10n.t('The research on “{0}” failed: {1}', escapeMarkdown(topic), escapeMarkdown(reason));
  return {
    status: 'failed',
    command: 'research',
    markdown,
    message: l10n.t('The research on “{0}” failed: {1}', topic, reason),
    researchId,
  };
}

export function researchProgress(task: ResearchTask): ResearchProgress {
  const fraction =
    typeof task.progress === 'number' && Number.isFinite(task.progress) ? Math.min(1, Math.max(0, task.progress)) : undefined;
  const message = task.message?.trim() || undefined;
  const state = task.status === 'in_progress' ? 'Researching…' : `Research ${task.status}`;
  const text = [state, fraction !== undefined ? `${Math.round(fraction * 100)}%` : '', message ? `— ${message}` : '']
    .filter(Boolean)
    .join(' ');
  return { id: task.id, status: task.status, ...(fraction !== undefined ? { fraction } : {}), ...(message ? { message } : {}), text };
}

/**
 * One sentence for the user. A 501 (a gateway, or the embedded backend without an upstream, that
 * does not offer the tool) says so plainly instead of looking like a crash.
 */
export function describeToolError(command: ToolCommandName, error: unknown): string {
  if (error instanceof DocChatError) {
    if (error.status === 501 || error.type === 'not_implemented') {
      // The embedded backend (Local mode) has no web service at all; a gateway may lack one tool.
      return error.code === LOCAL_MODE_TOOL && command !== 'crawl'
        ? toolSentence(command, 'local')
        : // One sentence naming the missing endpoint; the service's own words (which may say
          // "not available" again, and name an upstream URL) stay in the error, for the log.
          toolSentence(command, 'unavailable');
    }
    switch (error.kind) {
      case 'auth':
        return toolSentence(command, 'auth', error.message);
      case 'rate_limit':
        return toolSentence(command, 'rateLimit');
      case 'validation':
        return toolSentence(command, 'invalid', error.message);
      case 'timeout':
        return toolSentence(command, 'timeout', error.message);
      default:
        return toolSentence(command, 'failed', error.describe());
    }
  }
  return toolSentence(command, 'failed', error instanceof Error ? error.message : String(error));
}
