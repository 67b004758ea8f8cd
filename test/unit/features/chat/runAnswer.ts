/**
 * Runs one model answer the way the chat session does — `generateAnswer` read by the one loop,
 * `consumeAnswer` — and hands what it yields to per-event handlers, so a test can record it.
 */
import {
  type AnswerDependencies,
  type AnswerJob,
  describeAnswerFailure,
  generateAnswer,
} from '../../../../src/features/chat/answerGenerator';
import { type AnswerEnd, type AnswerResult, consumeAnswer } from '../../../../src/features/chat/answerStream';
import type { FlushScheduler } from '../../../../src/features/chat/deltaCoalescer';
import type { ChatErrorInfo, ChatSource, StreamPhase } from '../../../../src/chatCore/protocol';

export interface AnswerHandlers {
  status(phase: StreamPhase): void;
  start(sources: ChatSource[], searchQuery?: string): void;
  delta(text: string): void;
  done(result: AnswerResult): void;
  error(error: ChatErrorInfo): void;
}

export type RunDependencies = AnswerDependencies & { frameMs?: number; scheduler?: FlushScheduler };

export function runAnswer(job: AnswerJob, deps: RunDependencies, handlers: AnswerHandlers, signal: AbortSignal): Promise<AnswerEnd> {
  const { frameMs, scheduler, ...dependencies } = deps;
  return consumeAnswer(
    generateAnswer(job, dependencies, signal),
    {
      event: (event) => {
        if (event.type === 'status') handlers.status(event.phase);
        else if (event.type === 'start') handlers.start(event.sources, event.searchQuery);
        else if (event.type === 'delta') handlers.delta(event.text);
      },
      end: (end) => (end.type === 'done' ? handlers.done(end.result) : handlers.error(end.error)),
    },
    {
      signal,
      describe: describeAnswerFailure(job, dependencies.local),
      ...(frameMs !== undefined ? { frameMs } : {}),
      ...(scheduler ? { scheduler } : {}),
    },
  );
}
