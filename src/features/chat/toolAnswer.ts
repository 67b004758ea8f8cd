/**
 * Runs a gateway tool (`/web`, `/crawl`, `/research`) as a chat answer: progress while it runs,
 * then the result as the answer's text with its web pages as numbered sources, and exactly one
 * terminal event. No `vscode` import: unit tests run it against a test server and the embedded
 * backend.
 */
import * as l10n from '@vscode/l10n';
import { DocChatError } from '../../api/http/errors';
import { runToolCommand, type ToolCommand, type ToolGateway, type ToolOutcome, type WebSource } from '../gatewayTools';
import type { AnswerEvents } from './answerGenerator';
import { MAX_CONTEXT_CHARS } from './contextArgument';
import type { ChatErrorInfo, ChatSource, ToolProgress, WebPageSource } from '../../chatCore/protocol';

export interface ToolAnswerDependencies {
  /** Undefined when no gateway is configured; `notConnected` explains why. */
  gateway: ToolGateway | undefined;
  notConnected?: ChatErrorInfo;
  /** Research status polling (defaults: first poll after 1 s, then up to every 5 s). */
  pollInitialDelayMs?: number;
  pollMaxDelayMs?: number;
}

export interface ToolAnswerEvents extends Pick<AnswerEvents, 'start' | 'delta' | 'done' | 'error'> {
  progress(progress: ToolProgress): void;
  /** `/crawl`: the fetched pages, to add to the conversation as context. */
  context(pages: WebPageSource[]): void;
}

function webSources(sources: readonly WebSource[]): ChatSource[] {
  return sources.map((s) => ({ kind: 'web', url: s.url, title: s.title, content: '', number: s.number }));
}

/** The failed outcome as the inline error the webview shows (501: the tool is not offered). */
export function toolError(outcome: Extract<ToolOutcome, { status: 'failed' }>): ChatErrorInfo {
  const error = outcome.error;
  if (error instanceof DocChatError) {
    if (error.status === 501 || error.type === 'not_implemented') {
      return { kind: 'not_available', message: outcome.message, actions: ['showOutput'] };
    }
    if (error.kind === 'auth') {
      return { kind: 'auth', message: outcome.message, actions: ['setGatewayApiKey', 'retry'] };
    }
    if (error.kind === 'validation') {
      return { kind: 'invalid_request', message: outcome.message, actions: [] };
    }
    if (error.kind === 'rate_limit' || error.kind === 'network' || error.kind === 'timeout') {
      return { kind: error.kind, message: outcome.message, actions: ['retry', 'showOutput'] };
    }
  }
  return { kind: 'server', message: outcome.message, actions: ['retry', 'showOutput'] };
}

export async function runToolAnswer(
  command: ToolCommand,
  deps: ToolAnswerDependencies,
  events: ToolAnswerEvents,
  signal: AbortSignal,
): Promise<void> {
  if (!deps.gateway) {
    events.error(
      deps.notConnected ?? { kind: 'not_connected', message: l10n.t('Not connected to a language-model gateway.'), actions: ['retry'] },
    );
    return;
  }
  const outcome = await runToolCommand(deps.gateway, command, {
    signal,
    onProgress: (p) => events.progress({ text: p.text, ...(p.fraction !== undefined ? { fraction: p.fraction } : {}) }),
    ...(deps.pollInitialDelayMs !== undefined ? { pollInitialDelayMs: deps.pollInitialDelayMs } : {}),
    ...(deps.pollMaxDelayMs !== undefined ? { pollMaxDelayMs: deps.pollMaxDelayMs } : {}),
  });
  switch (outcome.status) {
    case 'done': {
      const { answer } = outcome;
      if (answer.pages?.length) {
        events.context(
          answer.pages.map((p) => ({ kind: 'web', url: p.url, title: p.title, content: p.content.slice(0, MAX_CONTEXT_CHARS) })),
        );
      }
      events.start(webSources(answer.sources));
      events.delta(answer.body);
      events.done({ stopped: false });
      return;
    }
    case 'cancelled':
      if (outcome.byService) {
        // The service ended the task: an answer saying so, not a stop by the user.
        events.start([]);
        events.delta(outcome.markdown);
        events.done({ stopped: false });
        return;
      }
      events.delta(
        command.name === 'research' && outcome.researchId
          ? l10n.t(
              'Stopped following research task {0} (the gateway offers no way to cancel it on the service).',
              `\`${outcome.researchId}\``,
            )
          : outcome.markdown,
      );
      events.done({ stopped: true });
      return;
    case 'failed':
      events.error(toolError(outcome));
      return;
  }
}
