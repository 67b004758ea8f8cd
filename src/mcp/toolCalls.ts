/**
 * How every tool call runs: a bound on DocChat's per-minute waits, and one way of turning a
 * failure into a tool error (`isError`) worded as the UI words it. No `vscode` import.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as l10n from '@vscode/l10n';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { AbortedError, DocChatError, errorSentence } from '../api/http/errors';
import { tooManyRequests } from '../api/http/responseErrors';
import { McpEnv } from './environment';

interface ToolCall {
  readonly maxWaitMs: number;
  readonly stop: AbortController;
  /** Set when a per-minute limit would have kept the call waiting past the bound. */
  overLimitMs?: number;
}

/** Gives up a call that would wait longer than its bound for a per-minute limit. */
export class BoundedWaits {
  private readonly calls = new AsyncLocalStorage<ToolCall>();

  constructor(private readonly maxWaitMs: number) {}

  /**
   * The clients' `onRateLimitWait`: called inside the waiting call's own async context, so only
   * that call gives up (the others queued behind the same limit decide for themselves).
   */
  readonly onRateLimitWait = (e: { operation: string; waitMs: number }): void => {
    const call = this.calls.getStore();
    if (call && e.waitMs > call.maxWaitMs) {
      call.overLimitMs = e.waitMs;
      call.stop.abort();
    }
  };

  /** Runs `body` with a signal that ends when the client cancels or a limit would wait too long. */
  async run<T>(signal: AbortSignal | undefined, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const call: ToolCall = { maxWaitMs: this.maxWaitMs, stop: new AbortController() };
    const combined = signal ? AbortSignal.any([signal, call.stop.signal]) : call.stop.signal;
    try {
      return await this.calls.run(call, () => body(combined));
    } catch (error) {
      if (call.overLimitMs !== undefined) throw tooManyRequests('documents service', call.overLimitMs);
      throw error;
    }
  }
}

/** A tool error the model reads: the UI's sentence, and for a rejected token what to do about it. */
export function toolError(error: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: failureSentence(error) }] };
}

/** The sentence for a failed call: the UI's wording, and for a rejected token what to do about it. */
export function failureSentence(error: unknown): string {
  let text = errorSentence(error);
  if (error instanceof DocChatError && error.kind === 'auth') {
    text = `${text} ${l10n.t(
      'In VS Code, run "DocChat: Set Documents Token"; for another agent, set {0} in the MCP server\'s environment.',
      McpEnv.documentsToken,
    )}`;
  }
  if (error instanceof AbortedError) text = l10n.t('The tool call was cancelled.');
  return text;
}

/** A failure that is the caller's to fix (a store or file that is not there, a page past the end). */
export class ToolInputError extends Error {}
