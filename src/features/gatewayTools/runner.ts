/**
 * Runs a parsed tool command against the gateway and turns the outcome into markdown the chat
 * panel can show: an answer with sources, a cancellation note, or one clear error sentence.
 * No `vscode` import: the panel (or any caller) passes the client, an AbortSignal and callbacks.
 */
import * as l10n from '@vscode/l10n';
import type { GatewayClient, ResearchWaitOptions } from '../../api/gateway/client';
import type { ResearchTask } from '../../api/gateway/schemas';
import { AbortedError, DocChatError } from '../../api/http/errors';
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

const WHAT: Record<ToolCommandName, string> = { web: 'Web search', crawl: 'Crawling', research: 'Web research' };

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
    if (isAbort(error) || options.signal?.aborted) {
      const message = `${WHAT[command.name]} was cancelled.`;
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
    const markdown = `The research on “${escapeMarkdown(topic)}” was cancelled${task.message ? `: ${escapeMarkdown(task.message)}` : '.'}`;
    const message = `The research on “${topic}” was cancelled${task.message ? `: ${task.message}` : '.'}`;
    return { status: 'cancelled', command: 'research', markdown, message, byService: true, researchId };
  }
  const reason = task.error || task.message || 'the service gave no reason';
  const markdown = `The research on “${escapeMarkdown(topic)}” failed: ${escapeMarkdown(reason)}`;
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

function isAbort(error: unknown): boolean {
  return (
    error instanceof AbortedError ||
    (error instanceof DocChatError && error.kind === 'aborted') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

/**
 * One sentence for the user. A 501 (a gateway, or the embedded backend without an upstream, that
 * does not offer the tool) says so plainly instead of looking like a crash.
 */
export function describeToolError(command: ToolCommandName, error: unknown): string {
  const what = WHAT[command];
  if (error instanceof DocChatError) {
    if (error.status === 501 || error.type === 'not_implemented') {
      return `${what} is not available on this gateway. ${error.message}`;
    }
    switch (error.kind) {
      case 'auth':
        return `${what} failed: the gateway did not accept the API key. ${error.message}`;
      case 'rate_limit':
        return `${what} failed: too many requests; try again in a moment.`;
      case 'validation':
        return `${what} could not start: ${error.message}`;
      case 'timeout':
        return `${what} timed out. ${error.message}`;
      default:
        return `${what} failed: ${error.describe()}`;
    }
  }
  return `${what} failed: ${error instanceof Error ? error.message : String(error)}`;
}
