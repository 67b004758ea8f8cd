/**
 * Runs a gateway tool (`/web`, `/crawl`, `/research`) as a chat answer: progress while it runs,
 * then the result as the answer's text with its web pages as numbered sources. No `vscode` import: unit tests run it against a test server and the embedded
 * backend.
 */
import * as l10n from '@vscode/l10n';
import { DocChatError } from '../../api/http/errors';
import { type ParsedToolCommand, runToolCommand, type ToolGateway, type ToolOutcome, type WebSource } from '../gatewayTools';
import { type AnswerStream, done, failed } from './answerStream';
import { toChatError } from './chatErrors';
import type * as ContextArgument from './contextArgument';
import { atFirstUse } from '../../common/atFirstUse';
import type { ChatErrorInfo, ChatSource, ToolProgress } from '../../chatCore/protocol';

// Its module checks arguments with zod: it loads with the first tool answer, not when DocChat activates.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use on purpose
const contextArgument = atFirstUse(() => require('./contextArgument') as typeof ContextArgument);

export interface ToolAnswerDependencies {
  /** Undefined when no gateway is configured; `notConnected` explains why. */
  gateway: ToolGateway | undefined;
  notConnected?: ChatErrorInfo;
  /** Research status polling (defaults: first poll after 1 s, then up to every 5 s). */
  pollInitialDelayMs?: number;
  pollMaxDelayMs?: number;
}

function webSources(sources: readonly WebSource[]): ChatSource[] {
  return sources.map((s) => ({ kind: 'web', url: s.url, title: s.title, content: '', number: s.number }));
}

/** The failed outcome as the inline error the webview shows (501: the tool is not offered). */
export function toolError(outcome: Extract<ToolOutcome, { status: 'failed' }>): ChatErrorInfo {
  const error = outcome.error;
  if (error instanceof DocChatError) {
    if (error.status === 501 || error.type === 'not_implemented') {
      // The message says which gateway has the tool: Open Settings goes to "Gateway: Url".
      return { kind: 'not_available', message: outcome.message, actions: ['openGatewaySettings'] };
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

/** Why a tool failed, when the failure escaped `runToolCommand` (it reports its own as outcomes). */
export function describeToolFailure(error: unknown): ChatErrorInfo {
  return toChatError(error, 'gateway');
}

/**
 * A gateway tool's answer as a stream (see answerStream.ts). Progress reports arrive while the
 * tool runs, so they go through a small queue between `runToolCommand`'s callback and the stream.
 */
export async function* toolAnswer(parsed: ParsedToolCommand, deps: ToolAnswerDependencies, signal: AbortSignal): AnswerStream {
  if (!parsed.ok) {
    // Its usage: nothing is sent.
    return failed({ kind: 'invalid_request', message: parsed.error, actions: [] });
  }
  const { command } = parsed;
  if (!deps.gateway) {
    return failed(
      deps.notConnected ?? { kind: 'not_connected', message: l10n.t('Not connected to a language-model gateway.'), actions: ['retry'] },
    );
  }
  const reports = new ProgressReports();
  const running = runToolCommand(deps.gateway, command, {
    signal,
    onProgress: (p) => reports.push({ text: p.text, ...(p.fraction !== undefined ? { fraction: p.fraction } : {}) }),
    ...(deps.pollInitialDelayMs !== undefined ? { pollInitialDelayMs: deps.pollInitialDelayMs } : {}),
    ...(deps.pollMaxDelayMs !== undefined ? { pollMaxDelayMs: deps.pollMaxDelayMs } : {}),
  })
    // Settled here, so a failure is not unhandled while the reports are read; thrown below.
    .then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    )
    .finally(() => reports.close());
  for await (const progress of reports) {
    yield { type: 'progress', progress };
  }
  const settled = await running;
  if ('error' in settled) {
    throw settled.error;
  }
  const { outcome } = settled;
  switch (outcome.status) {
    case 'done': {
      const { answer } = outcome;
      if (answer.pages?.length) {
        yield {
          type: 'context',
          pages: answer.pages.map((p) => ({
            kind: 'web',
            url: p.url,
            title: p.title,
            content: p.content.slice(0, contextArgument().MAX_CONTEXT_CHARS),
          })),
        };
      }
      yield { type: 'start', sources: webSources(answer.sources) };
      yield { type: 'delta', text: answer.body };
      return done({ stopped: false });
    }
    case 'cancelled':
      if (outcome.byService) {
        // The service ended the task: an answer saying so, not a stop by the user.
        yield { type: 'start', sources: [] };
        yield { type: 'delta', text: outcome.markdown };
        return done({ stopped: false });
      }
      yield {
        type: 'delta',
        text:
          command.name === 'research' && outcome.researchId
            ? l10n.t(
                'Stopped following research task {0} (the gateway offers no way to cancel it on the service).',
                `\`${outcome.researchId}\``,
              )
            : outcome.markdown,
      };
      return done({ stopped: true });
    case 'failed':
      return failed(toolError(outcome));
  }
}

/** Progress reports pushed by a callback, read in order as an async iterable until closed. */
class ProgressReports implements AsyncIterable<ToolProgress> {
  private readonly pending: ToolProgress[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  push(progress: ToolProgress): void {
    this.pending.push(progress);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ToolProgress> {
    for (;;) {
      const next = this.pending.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
