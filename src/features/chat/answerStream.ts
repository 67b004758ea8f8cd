/**
 * An answer is a stream: an async generator that yields what the webview shows while it runs and
 * ends by returning how it ended (or by throwing). `consumeAnswer` is the one loop that reads
 * every answer — model or gateway tool — coalesces its text into about one message per frame, and
 * whose `finally` hands the sink exactly one end. No `vscode` import.
 */
import { DeltaCoalescer, type FlushScheduler, FRAME_MS } from './deltaCoalescer';
import type { ChatErrorInfo, ChatSource, NextStep, StreamPhase, TokenUsage, ToolProgress, WebPageSource } from '../../chatCore/protocol';
import { isAbortError } from '../../api/http/errors';

export type AnswerEvent =
  | { type: 'status'; phase: StreamPhase }
  /** Once, before the first delta, with the numbered sources of the prompt and what was searched for. */
  | { type: 'start'; sources: ChatSource[]; searchQuery?: string }
  | { type: 'delta'; text: string }
  /** A running tool's progress (research polls). */
  | { type: 'progress'; progress: ToolProgress }
  /** `/crawl`: fetched pages to add to the conversation as context. */
  | { type: 'context'; pages: WebPageSource[] };

export interface AnswerResult {
  stopped: boolean;
  usage?: TokenUsage;
  finishReason?: string;
  /** Set when the answer had no sources to go on (see `noSourcesAnswer`). */
  nextSteps?: NextStep[];
}

export type AnswerEnd = { type: 'done'; result: AnswerResult } | { type: 'error'; error: ChatErrorInfo };

/** An answer: yields events, returns its end (undefined: done, stopped if the signal fired). */
export type AnswerStream = AsyncGenerator<AnswerEvent, AnswerEnd | undefined, undefined>;

export const done = (result: AnswerResult): AnswerEnd => ({ type: 'done', result });
export const failed = (error: ChatErrorInfo): AnswerEnd => ({ type: 'error', error });

/** An answer that ends with `error` before asking anyone (its failure is already known). */
// eslint-disable-next-line require-yield -- an answer is an async generator, this one ends at once
export async function* failedAnswer(error: ChatErrorInfo): AnswerStream {
  return failed(error);
}

export interface AnswerSink {
  event(event: AnswerEvent): void;
  /** Called exactly once, last. */
  end(end: AnswerEnd): void;
}

export interface ConsumeOptions {
  signal: AbortSignal;
  /** The inline error for a failure the stream threw (it knows which service it was talking to). */
  describe(error: unknown): ChatErrorInfo;
  frameMs?: number;
  scheduler?: FlushScheduler;
}

export async function consumeAnswer(stream: AnswerStream, sink: AnswerSink, options: ConsumeOptions): Promise<AnswerEnd> {
  const { signal } = options;
  const coalescer = new DeltaCoalescer((text) => sink.event({ type: 'delta', text }), options.frameMs ?? FRAME_MS, options.scheduler);
  let end: AnswerEnd | undefined;
  try {
    for (;;) {
      const next = await stream.next();
      if (next.done) {
        end = next.value;
        break;
      }
      if (next.value.type === 'delta') {
        coalescer.push(next.value.text);
      } else {
        coalescer.flush();
        sink.event(next.value);
      }
    }
  } catch (error) {
    // A sink that threw leaves the stream suspended: let it release what it holds.
    void stream.return(undefined).catch(() => undefined);
    end = signal.aborted || isAbortError(error) ? done({ stopped: true }) : failed(options.describe(error));
  } finally {
    // What arrived stays: it goes out before the one terminal message, and nothing after it.
    coalescer.dispose();
    end ??= done({ stopped: signal.aborted });
    sink.end(end);
  }
  return end;
}
