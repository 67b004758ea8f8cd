/**
 * Runs the conversation's one answer at a time: adds the answer message, keeps it up to date as
 * the stream arrives (so a snapshot or a reload shows what arrived), posts the stream to the
 * webview, and settles it with exactly one `streamDone` or `streamError`. No `vscode` import.
 */
import { randomUUID } from 'node:crypto';
import { parseToolCommand, type ToolCommand } from '../gatewayTools';
import { type AnswerDependencies, type AnswerResult, generateAnswer } from './answerGenerator';
import { isLegacyModel } from '../../chatCore/modelCatalog';
import { groundingStores } from '../../chatCore/conversationStores';
import type {
  AssistantMessage,
  ChatErrorInfo,
  ChatToolName,
  Conversation,
  HostMessage,
  UserMessage,
  WebPageSource,
} from '../../chatCore/protocol';
import { runToolAnswer, type ToolAnswerDependencies } from './toolAnswer';

/** During a stream the conversation is saved at most this often (a reload keeps what arrived). */
const STREAM_SAVE_INTERVAL_MS = 1000;

export interface AnswerHost {
  post(message: HostMessage): void;
  /** Persists the conversations (the conversation was just changed). */
  save(conversation: Conversation): void;
  /** Clients and what to say when there is no gateway; read when an answer starts. */
  dependencies(): AnswerDependencies;
  /** The same for gateway tools. */
  toolDependencies(): ToolAnswerDependencies;
  /** `/crawl` fetched pages: add them to the conversation's pending context. */
  addContext(conversation: Conversation, pages: WebPageSource[]): void;
  projectCode(): string;
  maxSearchResults(): number;
  warn(message: string): void;
  /** An answer could not reach its server: Local mode checks its backend and starts it again if it is gone. */
  unreachable?(): void;
}

interface RunEvents {
  readonly requestId: string;
  readonly answer: AssistantMessage;
  start(sources: NonNullable<AssistantMessage['sources']>, searchQuery?: string): void;
  delta(text: string): void;
  done(result: AnswerResult): void;
  error(error: ChatErrorInfo): void;
}

interface ActiveRequest {
  requestId: string;
  conversationId: string;
  abort: AbortController;
  finished: Promise<void>;
}

export class AnswerQueue {
  private active: ActiveRequest | undefined;
  private lastSave = 0;

  constructor(private readonly host: AnswerHost) {}

  get busy(): boolean {
    return this.active !== undefined;
  }

  get conversationId(): string | undefined {
    return this.active?.conversationId;
  }

  stop(requestId?: string): void {
    if (this.active && (requestId === undefined || requestId === this.active.requestId)) {
      this.active.abort.abort();
    }
  }

  /** Resolves when the running answer (if any) has ended. */
  whenIdle(): Promise<void> {
    return this.active?.finished ?? Promise.resolve();
  }

  /**
   * Answers `question` (already in the conversation): a `/web`, `/crawl` or `/research` command
   * with its gateway tool, anything else with `model`. Ignored while an answer runs. `announce`
   * runs once the answer message is in the conversation and before anything of its stream is
   * posted (the panel posts the turn there, so the webview knows the answer before its stream).
   */
  respond(conversation: Conversation, question: UserMessage, model: string, announce?: () => void): void {
    const tool = parseToolCommand(question.content);
    if (!tool) {
      this.start(conversation, question, model, announce);
    } else if (tool.ok) {
      this.startTool(conversation, tool.command, announce);
    } else {
      this.reject(conversation, tool.name, { kind: 'invalid_request', message: tool.error, actions: [] }, announce);
    }
  }

  /**
   * Answers `question` (already in the conversation) with `model`; ignored while one runs.
   * `searchQuery`: search for this rather than the turn's own query (an edited "Searched for").
   */
  start(conversation: Conversation, question: UserMessage, model: string, announce?: () => void, searchQuery?: string): void {
    const legacy = isLegacyModel(model);
    const history = conversation.messages.slice(0, conversation.messages.indexOf(question));
    const { options } = conversation;
    this.begin(conversation, { model, ...(legacy ? { legacy } : {}) }, announce, (events, signal) =>
      generateAnswer(
        {
          question: question.content,
          history,
          context: question.context ?? [],
          model,
          legacy,
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.maxCompletionTokens !== undefined ? { maxCompletionTokens: options.maxCompletionTokens } : {}),
          projectCode: this.host.projectCode(),
          stores: groundingStores(options),
          ...(searchQuery ? { searchQuery } : {}),
          maxResults: this.host.maxSearchResults(),
        },
        this.host.dependencies(),
        { ...events, status: (phase) => this.host.post({ type: 'streamStatus', requestId: events.requestId, phase }) },
        signal,
      ),
    );
  }

  /** Answers a `/web`, `/crawl` or `/research` command with the gateway tool; ignored while one runs. */
  startTool(conversation: Conversation, command: ToolCommand, announce?: () => void): void {
    this.begin(conversation, { tool: command.name }, announce, (events, signal) =>
      runToolAnswer(
        command,
        this.host.toolDependencies(),
        {
          ...events,
          progress: (progress) => {
            events.answer.progress = progress;
            this.host.post({ type: 'streamProgress', requestId: events.requestId, progress });
          },
          context: (pages) => this.host.addContext(conversation, pages),
        },
        signal,
      ),
    );
  }

  /** Answers a tool command that could not run (e.g. its usage) with the error. */
  reject(conversation: Conversation, tool: ChatToolName, error: ChatErrorInfo, announce?: () => void): void {
    this.begin(conversation, { tool }, announce, async (events) => events.error(error));
  }

  /**
   * Adds the answer message and runs `run` with events that keep it up to date, post the stream
   * and settle it with exactly one terminal message (whatever `run` does after its first one).
   */
  private begin(
    conversation: Conversation,
    fields: Partial<AssistantMessage>,
    announce: (() => void) | undefined,
    run: (events: RunEvents, signal: AbortSignal) => Promise<void>,
  ): void {
    if (this.active) {
      announce?.();
      return;
    }
    const requestId = randomUUID();
    const answer: AssistantMessage = {
      id: randomUUID(),
      role: 'assistant',
      content: '',
      createdAt: Date.now(),
      status: 'pending',
      requestId,
      ...fields,
    };
    conversation.messages.push(answer);
    this.host.save(conversation);
    announce?.();

    const abort = new AbortController();
    // Set before starting: an answer that fails at once settles (and clears this) synchronously.
    this.active = { requestId, conversationId: conversation.id, abort, finished: Promise.resolve() };
    let ended = false;
    const events: RunEvents = {
      requestId,
      answer,
      start: (sources, searchQuery) => {
        if (ended) return;
        answer.sources = sources;
        if (searchQuery) answer.searchQuery = searchQuery;
        answer.status = 'streaming';
        delete answer.progress;
        this.host.post({ type: 'streamStart', requestId, messageId: answer.id, sources, ...(searchQuery ? { searchQuery } : {}) });
      },
      delta: (text) => {
        if (ended) return;
        answer.content += text;
        this.host.post({ type: 'streamDelta', requestId, text });
        this.saveThrottled(conversation);
      },
      done: (result) => {
        if (ended) return;
        ended = true;
        this.finish(conversation, answer, requestId, result);
      },
      error: (error) => {
        if (ended) return;
        ended = true;
        this.fail(conversation, answer, requestId, error);
      },
    };
    const finished = run(events, abort.signal)
      .catch((error: unknown) =>
        this.host.warn(`Answer ${requestId} ended unexpectedly: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        // Whatever happened, the request id ends with a terminal message and the driver is free.
        if (!ended) events.done({ stopped: abort.signal.aborted });
      });
    if (this.active?.requestId === requestId) {
      this.active.finished = finished;
    }
  }

  private finish(conversation: Conversation, answer: AssistantMessage, requestId: string, result: AnswerResult): void {
    answer.status = result.stopped ? 'stopped' : 'done';
    if (result.usage) answer.usage = result.usage;
    if (result.finishReason) answer.finishReason = result.finishReason;
    if (result.nextSteps?.length) answer.nextSteps = result.nextSteps;
    this.settle(conversation, answer, requestId);
    this.host.post({
      type: 'streamDone',
      requestId,
      stopped: result.stopped,
      ...(result.usage ? { usage: result.usage } : {}),
      ...(result.finishReason ? { finishReason: result.finishReason } : {}),
      ...(result.nextSteps?.length ? { nextSteps: result.nextSteps } : {}),
    });
  }

  private fail(conversation: Conversation, answer: AssistantMessage, requestId: string, error: ChatErrorInfo): void {
    answer.status = 'error';
    answer.error = error;
    this.host.warn(`Answer ${requestId} failed (${error.kind}): ${error.message}`);
    if (error.kind === 'network') this.host.unreachable?.();
    this.settle(conversation, answer, requestId);
    this.host.post({ type: 'streamError', requestId, error });
  }

  private settle(conversation: Conversation, answer: AssistantMessage, requestId: string): void {
    delete answer.requestId;
    delete answer.progress;
    if (this.active?.requestId === requestId) {
      this.active = undefined;
    }
    this.host.save(conversation);
  }

  private saveThrottled(conversation: Conversation): void {
    const now = Date.now();
    if (now - this.lastSave >= STREAM_SAVE_INTERVAL_MS) {
      this.lastSave = now;
      this.host.save(conversation);
    }
  }
}
