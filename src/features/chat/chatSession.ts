/**
 * The owner of the chat's conversations: the panel and the commands call its intent methods (ask,
 * regenerate, stop, set options, set grounding, add/remove context, open, delete, new chat), and
 * every change goes through `change`, which edits, schedules one save and emits the host messages.
 * Answers are streams (answerStream.ts) read by `consumeAnswer`, one at a time. No `vscode` import:
 * unit tests drive it against a scripted gateway and the embedded backend.
 */
import { randomUUID } from 'node:crypto';
import { Emitter } from '../../common/emitter';
import { parseToolCommand, type ToolGateway } from '../gatewayTools';
import { type AnswerGateway, describeAnswerFailure, generateAnswer, type LocalServices } from './answerGenerator';
import { type AnswerEnd, type AnswerEvent, type AnswerStream, consumeAnswer, failedAnswer } from './answerStream';
import { refusedModelError } from './chatErrors';
import type { ConversationStore } from './conversationStore';
import type { FlushScheduler } from './deltaCoalescer';
import { describeToolFailure, toolAnswer } from './toolAnswer';
import { groundingStores, setGroundingStores } from '../../chatCore/conversationStores';
import { FileNameCache, type GroundingDocuments } from '../../chatCore/grounding';
import { isLegacyModel } from '../../chatCore/modelCatalog';
import { titleFor } from '../../chatCore/promptBuilder';
import type { QueryRewriter } from '../../chatCore/searchQuery';
import type {
  AnnounceMode,
  AssistantMessage,
  ChatErrorInfo,
  ContextItem,
  Conversation,
  ConversationOptions,
  HostMessage,
  StoreOption,
  UserMessage,
} from '../../chatCore/protocol';

/** During a stream the conversation is saved at most this often (a reload keeps what arrived). */
const STREAM_SAVE_INTERVAL_MS = 1000;

/** What the session reads from the extension when it needs it (clients change with the connection). */
export interface ChatEnvironment {
  /** Undefined clients when not connected; `notConnected` says why there is no gateway. */
  clients(): {
    gateway: (AnswerGateway & ToolGateway) | undefined;
    documents: GroundingDocuments | undefined;
    notConnected?: ChatErrorInfo;
    /**
     * Set while DocChat is making its connection: resolves once it is made (or failed). A
     * question asked meanwhile shows "Connecting…", waits for it, then is asked.
     */
    connecting?: Promise<void>;
    /** Local mode: the services its own backend provides. */
    local?: LocalServices;
  };
  /** `webTools`: false when the gateway has no web tools (Local mode's own backend). */
  settings(): { projectCode: string; maxSearchResults: number; announce: AnnounceMode; webTools?: boolean };
  /** The model of a conversation that has not picked one. */
  defaultModel(): string;
  /** The store a new conversation is grounded in, when the list of stores is known. */
  defaultStore(): StoreOption | undefined;
  /**
   * Makes each grounded turn's search query (the model's rewrite of a follow-up, with its budget
   * and cache, else the deterministic rule). Without one, the rule alone.
   */
  readonly rewriter?: QueryRewriter;
  /** True for a store known to be deleted (the conversation says so instead of searching it). */
  storeGone?(id: string): boolean;
  /** Resolves once `defaultStore` can answer (a first question may come before the store list). */
  groundingKnown(): Promise<void>;
  warn(message: string): void;
  /** An answer could not reach its server: Local mode checks its backend. */
  unreachable(): void;
  /** An answer found its model (or the model's whole server) unusable, for `reason`: the model lists mark it. */
  modelUnavailable?(model: string, unavailable: { reason: string; server?: boolean }): void;
  /** `model` answered (its server answers): a mark that its server does not answer is dropped. */
  modelAnswered?(model: string): void;
  /**
   * Why the server refused `model` for chat this session, or undefined: a question to it is
   * answered with the same note at once, without a request that would fail again.
   */
  refusal?(model: string): string | undefined;
}

export interface ChatSessionOptions {
  now?: () => number;
  frameMs?: number;
  scheduler?: FlushScheduler;
  /** Research status polling (tests poll fast). */
  toolPolling?: { pollInitialDelayMs?: number; pollMaxDelayMs?: number };
}

/** How an answer ended, for listeners outside the chat (the walkthrough). */
export interface AnswerEnded {
  conversationId: string;
  end: AnswerEnd;
}

interface ActiveAnswer {
  requestId: string;
  conversationId: string;
  abort: AbortController;
  finished: Promise<unknown>;
}

/** `null` removes the option. */
export interface SamplingOptions {
  temperature: number | null;
  maxCompletionTokens: number | null;
}

type Save = 'now' | 'throttled';

export class ChatSession {
  private readonly fileNames = new FileNameCache();
  private readonly now: () => number;
  /** The one running answer, or a question waiting for the store list (`requestId` empty). */
  private active: ActiveAnswer | undefined;
  private lastStreamSave = 0;

  private readonly _onMessage = new Emitter<HostMessage>();
  /** Messages for the webview (the panel posts them, or drops them while closed). */
  readonly onMessage = this._onMessage.event;
  private readonly _onDidAnswer = new Emitter<AnswerEnded>();
  readonly onDidAnswer = this._onDidAnswer.event;

  constructor(
    private readonly store: ConversationStore,
    private readonly env: ChatEnvironment,
    private readonly options: ChatSessionOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    // The conversation shown here was deleted in another window: the panel follows.
    store.onDidDropActive = () => this._onMessage.fire(this.state());
    // The stored conversations are read without blocking: the panel shows them once they are.
    void store.opened.then((changed) => {
      if (changed) this._onMessage.fire(this.state());
    });
  }

  /** The conversation the panel shows (created when there is none). */
  get current(): Readonly<Conversation> {
    return this.store.active({});
  }

  get busy(): boolean {
    return this.active !== undefined;
  }

  /** Resolves when the running answer (if any) has ended. */
  whenIdle(): Promise<void> {
    return (this.active?.finished ?? Promise.resolve()).then(() => undefined);
  }

  /** The whole state, as the webview gets it when it (re)starts. */
  state(): HostMessage {
    const settings = this.env.settings();
    return {
      type: 'state',
      conversation: this.current,
      conversations: this.store.summaries(),
      projectCode: settings.projectCode,
      announce: settings.announce,
      ...(settings.webTools === false ? { webTools: false } : {}),
    };
  }

  // ------------------------------------------------------------ intents

  /** Asks `text` in the shown conversation; resolves with the answer once it started (see `whenIdle`). */
  async ask(text: string): Promise<AssistantMessage | undefined> {
    if (this.active) {
      return undefined;
    }
    const first = this.current;
    const connecting = this.env.clients().connecting;
    if (connecting) {
      // Shown at once with "Connecting…"; grounded by the default rule once connected (see `answer`).
      const conversation = this.store.active({});
      const groundFirst = conversation.messages.length === 0 && groundingStores(conversation.options).length === 0;
      return this.answer(conversation, this.questionTurn(conversation, text), undefined, { connecting, groundFirst });
    }
    if (first.messages.length === 0 && groundingStores(first.options).length === 0) {
      // The first question may come before the store list: ground it by the default rule first.
      const waiting: ActiveAnswer = { requestId: '', conversationId: first.id, abort: new AbortController(), finished: Promise.resolve() };
      this.active = waiting;
      try {
        await this.env.groundingKnown();
      } finally {
        if (this.active === waiting) this.active = undefined;
      }
      if (this.active) {
        return undefined;
      }
    }
    const conversation = this.store.active({});
    return this.answer(conversation, this.questionTurn(conversation, text));
  }

  /** The turn that adds the question `text` (with the pending context) to `conversation`. */
  private questionTurn(conversation: Conversation, text: string): () => { question: UserMessage; from: number } {
    return () => {
      const question: UserMessage = { id: randomUUID(), role: 'user', content: text, createdAt: this.now() };
      if (conversation.pendingContext.length > 0) {
        question.context = conversation.pendingContext;
        conversation.pendingContext = [];
      }
      if (!conversation.messages.some((m) => m.role === 'user')) {
        conversation.title = titleFor(text);
      }
      conversation.messages.push(question);
      return { question, from: conversation.messages.length - 1 };
    };
  }

  /**
   * Regenerate (or Retry), or search again for `searchQuery` (the user's edit of "Searched for"):
   * only the conversation's last answer, replaced by a new one.
   */
  regenerate(messageId: string, searchQuery?: string): AssistantMessage | undefined {
    const conversation = this.store.active({});
    const last = conversation.messages[conversation.messages.length - 1];
    const question = conversation.messages[conversation.messages.length - 2];
    if (this.active || last?.id !== messageId || last.role !== 'assistant' || question?.role !== 'user') {
      return undefined;
    }
    // While DocChat (re)connects (Local mode's backend starting again), "Connecting…", then the answer.
    const connecting = this.env.clients().connecting;
    return this.answer(
      conversation,
      () => {
        conversation.messages.pop();
        return { question, from: conversation.messages.length };
      },
      searchQuery,
      connecting ? { connecting, groundFirst: false } : undefined,
    );
  }

  /** Stops the running answer (only the one named, when a request id is given). */
  stop(requestId?: string): void {
    const active = this.active;
    if (active?.requestId && (requestId === undefined || requestId === active.requestId)) {
      active.abort.abort();
    }
  }

  setModel(model: string): void {
    this.changeOptions((o) => (o.model = model));
  }

  /**
   * The model chosen outside the chat ("Use a Language Model…"): the shown conversation takes it,
   * once the stored conversations are read (the one shown then is the one that follows).
   */
  async follow(model: string): Promise<void> {
    await this.store.opened;
    if (this.store.active({}).options.model !== model) this.setModel(model);
  }

  setSampling(sampling: SamplingOptions): void {
    this.changeOptions((o) => {
      if (sampling.temperature === null) delete o.temperature;
      else o.temperature = sampling.temperature;
      if (sampling.maxCompletionTokens === null) delete o.maxCompletionTokens;
      else o.maxCompletionTokens = sampling.maxCompletionTokens;
    });
  }

  /** Grounds the shown conversation in `stores` (one, several, or none: no grounding). */
  setGrounding(stores: readonly StoreOption[]): void {
    this.changeOptions((o) => setGroundingStores(o, stores));
  }

  /**
   * A conversation that has not asked anything and has no store yet takes the default grounding
   * (see `ChatEnvironment.defaultStore`). Called when the store list arrives.
   */
  applyDefaultGrounding(): void {
    const conversation = this.store.active({});
    const store = this.groundingFor(conversation);
    if (store) {
      this.change(() => {
        setGroundingStores(conversation.options, [store]);
        return [this.state()];
      });
    }
  }

  addContext(items: ContextItem[]): void {
    const conversation = this.store.active({});
    this.change(() => {
      conversation.pendingContext.push(...items);
      conversation.updatedAt = this.now();
      return [this.state(), { type: 'focusComposer' }];
    });
  }

  removeContext(index: number): void {
    const conversation = this.store.active({});
    this.change(() => {
      conversation.pendingContext.splice(index, 1);
      return [this.state()];
    });
  }

  newChat(): void {
    this.stop();
    this.change(() => {
      const { vectorStoreId: _id, vectorStoreName: _name, vectorStores: _stores, ...previous } = this.current.options;
      const created = this.store.create({ ...previous });
      const store = this.groundingFor(created);
      if (store) setGroundingStores(created.options, [store]);
      return [this.state(), { type: 'focusComposer' }];
    });
  }

  open(conversationId: string): void {
    this.stop();
    this.change(() => {
      this.store.activate(conversationId);
      return [this.state()];
    });
  }

  delete(conversationId: string): void {
    if (this.active?.conversationId === conversationId) {
      this.stop();
    }
    this.change(() => {
      this.store.delete(conversationId);
      return [this.state()];
    });
  }

  /**
   * Takes in what another window on this workspace saved (its turns, its new or deleted
   * conversations) and shows it when something changed.
   */
  async refresh(): Promise<void> {
    if (await this.store.refresh()) {
      this._onMessage.fire(this.state());
    }
  }

  /** Writes the pending save now; resolves once the conversations are saved. */
  whenSaved(): Promise<void> {
    return this.store.flush();
  }

  dispose(): void {
    this.stop();
    void this.store.flush();
    this._onMessage.dispose();
    this._onDidAnswer.dispose();
  }

  // ------------------------------------------------------------ the one way to change

  /**
   * Every change: `edit` changes the conversations and returns what the webview needs to hear;
   * then one save is scheduled (throttled while an answer streams) and the messages go out.
   */
  private change(edit: () => HostMessage[] | void, save: Save = 'now'): void {
    const messages = edit() ?? [];
    const time = this.now();
    if (save === 'now' || time - this.lastStreamSave >= STREAM_SAVE_INTERVAL_MS) {
      if (save === 'throttled') this.lastStreamSave = time;
      void this.store.save();
    }
    for (const message of messages) this._onMessage.fire(message);
  }

  private changeOptions(edit: (options: ConversationOptions) => void): void {
    const conversation = this.store.active({});
    this.change(() => {
      edit(conversation.options);
      return [{ type: 'options', conversationId: conversation.id, options: conversation.options }];
    });
  }

  private groundingFor(conversation: Conversation): StoreOption | undefined {
    if (conversation.messages.length > 0 || groundingStores(conversation.options).length > 0) {
      return undefined;
    }
    return this.env.defaultStore();
  }

  // ------------------------------------------------------------ answers

  /**
   * One change: `turn` adds the question (or removes the answer it replaces), the answer is added
   * and the webview gets the turn (messages from `from` on); then the answer's stream is read
   * until it ends (`whenIdle`). `searchQuery`: search for this rather than the turn's own query.
   */
  private answer(
    conversation: Conversation,
    turn: () => { question: UserMessage; from: number },
    searchQuery?: string,
    waiting?: { connecting: Promise<void>; groundFirst: boolean },
  ): AssistantMessage {
    const requestId = randomUUID();
    const abort = new AbortController();
    let answer!: AssistantMessage;
    let chosen!: ReturnType<ChatSession['streamFor']>;
    this.change(() => {
      const { question, from } = turn();
      chosen = this.streamFor(conversation, question, abort.signal, searchQuery);
      if (waiting) {
        chosen = { ...chosen, stream: this.afterConnecting(conversation, question, abort.signal, waiting, searchQuery) };
      }
      answer = { id: randomUUID(), role: 'assistant', content: '', createdAt: this.now(), status: 'pending', requestId, ...chosen.fields };
      conversation.messages.push(answer);
      conversation.updatedAt = this.now();
      return [
        {
          type: 'turn',
          conversationId: conversation.id,
          title: conversation.title,
          from,
          messages: conversation.messages.slice(from),
          pendingContext: conversation.pendingContext,
        },
      ];
    });
    const { stream, describe } = chosen;
    const active: ActiveAnswer = { requestId, conversationId: conversation.id, abort, finished: Promise.resolve() };
    this.active = active;
    active.finished = consumeAnswer(
      stream,
      {
        event: (event) => this.apply(conversation, answer, requestId, event),
        end: (end) => this.settle(conversation, answer, requestId, end),
      },
      {
        signal: abort.signal,
        describe,
        ...(this.options.frameMs !== undefined ? { frameMs: this.options.frameMs } : {}),
        ...(this.options.scheduler ? { scheduler: this.options.scheduler } : {}),
      },
    );
    return answer;
  }

  /**
   * The answer to a question asked while DocChat connects: "Connecting…" until the connection is
   * made, then (a first question) the default grounding, then the answer with the clients now
   * there. Stop ends the wait.
   */
  private async *afterConnecting(
    conversation: Conversation,
    question: UserMessage,
    signal: AbortSignal,
    waiting: { connecting: Promise<void>; groundFirst: boolean },
    searchQuery?: string,
  ): AnswerStream {
    yield { type: 'status', phase: 'connecting' };
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([waiting.connecting.catch(() => undefined), stopped]);
    if (signal.aborted) return { type: 'done', result: { stopped: true } };
    if (waiting.groundFirst && groundingStores(conversation.options).length === 0) {
      await Promise.race([this.env.groundingKnown(), stopped]);
      if (signal.aborted) return { type: 'done', result: { stopped: true } };
      const store = groundingStores(conversation.options).length === 0 ? this.env.defaultStore() : undefined;
      if (store) {
        this.change(() => {
          setGroundingStores(conversation.options, [store]);
          return [{ type: 'options', conversationId: conversation.id, options: conversation.options }];
        });
      }
    }
    return yield* this.streamFor(conversation, question, signal, searchQuery).stream;
  }

  /** `/web`, `/crawl` and `/research` go to the gateway's tool, anything else (and a search again) to the model. */
  private streamFor(
    conversation: Conversation,
    question: UserMessage,
    signal: AbortSignal,
    searchQuery?: string,
  ): { stream: AnswerStream; describe: (error: unknown) => ChatErrorInfo; fields: Partial<AssistantMessage> } {
    const clients = this.env.clients();
    // Searching again is a grounded answer from the model, whatever the question looks like.
    const tool = searchQuery ? undefined : parseToolCommand(question.content);
    if (tool) {
      const deps = {
        gateway: clients.gateway,
        ...(clients.notConnected ? { notConnected: clients.notConnected } : {}),
        ...this.options.toolPolling,
      };
      const name = tool.ok ? tool.command.name : tool.name;
      return { stream: toolAnswer(tool, deps, signal), describe: describeToolFailure, fields: { tool: name } };
    }
    const model = conversation.options.model ?? this.env.defaultModel();
    const legacy = isLegacyModel(model);
    const { options } = conversation;
    const refused = this.env.refusal?.(model);
    if (refused !== undefined) {
      // Known this session: the same note as the refusal itself, and no request that fails again.
      const error = refusedModelError(model, refused, clients.local?.gateway === true);
      return { stream: failedAnswer(error), describe: () => error, fields: { model } };
    }
    const settings = this.env.settings();
    const job = {
      question: question.content,
      history: conversation.messages.slice(0, conversation.messages.indexOf(question)),
      context: question.context ?? [],
      model,
      legacy,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxCompletionTokens !== undefined ? { maxCompletionTokens: options.maxCompletionTokens } : {}),
      projectCode: settings.projectCode,
      stores: groundingStores(options),
      ...(searchQuery ? { searchQuery } : {}),
      maxResults: settings.maxSearchResults,
    };
    const deps = {
      gateway: clients.gateway,
      documents: clients.documents,
      fileNames: this.fileNames,
      ...(this.env.rewriter ? { rewriter: this.env.rewriter } : {}),
      ...(this.env.storeGone ? { isStoreGone: (id: string) => this.env.storeGone!(id) } : {}),
      ...(clients.notConnected ? { notConnected: clients.notConnected } : {}),
      ...(clients.local ? { local: clients.local } : {}),
    };
    return {
      stream: generateAnswer(job, deps, signal),
      describe: describeAnswerFailure(job, clients.local),
      fields: { model, ...(legacy ? { legacy } : {}), ...(job.stores.length ? { storeIds: job.stores.map((store) => store.id) } : {}) },
    };
  }

  private apply(conversation: Conversation, answer: AssistantMessage, requestId: string, event: AnswerEvent): void {
    switch (event.type) {
      case 'status':
        return this.change(() => {
          if (event.phase === 'thinking') answer.thinking = true;
          else delete answer.thinking;
          return [{ type: 'streamStatus', requestId, phase: event.phase }];
        }, 'throttled');
      case 'start':
        return this.change(() => {
          answer.sources = event.sources;
          if (event.searchQuery) answer.searchQuery = event.searchQuery;
          answer.status = 'streaming';
          delete answer.progress;
          const searched = event.searchQuery ? { searchQuery: event.searchQuery } : {};
          return [{ type: 'streamStart', requestId, messageId: answer.id, sources: event.sources, ...searched }];
        }, 'throttled');
      case 'delta':
        return this.change(() => {
          answer.content += event.text;
          conversation.updatedAt = this.now();
          return [{ type: 'streamDelta', requestId, text: event.text }];
        }, 'throttled');
      case 'progress':
        return this.change(() => {
          answer.progress = event.progress;
          return [{ type: 'streamProgress', requestId, progress: event.progress }];
        }, 'throttled');
      case 'context':
        return this.change(() => {
          const fresh = event.pages.filter((page) => !conversation.pendingContext.some((c) => c.kind === 'web' && c.url === page.url));
          conversation.pendingContext.push(...fresh);
          // The webview shows the new context chips with the state that follows the answer.
          return conversation.id === this.current.id ? [this.state()] : [];
        });
    }
  }

  /** The answer's one terminal message: the message records how it ended, is saved, and the webview hears it. */
  private settle(conversation: Conversation, answer: AssistantMessage, requestId: string, end: AnswerEnd): void {
    if (this.active?.requestId === requestId) {
      this.active = undefined;
    }
    this.change(() => {
      delete answer.requestId;
      delete answer.progress;
      delete answer.thinking;
      conversation.updatedAt = this.now();
      if (end.type === 'error') {
        answer.status = 'error';
        answer.error = end.error;
        return [{ type: 'streamError', requestId, error: end.error }];
      }
      const { result } = end;
      answer.status = result.stopped ? 'stopped' : 'done';
      if (result.usage) answer.usage = result.usage;
      if (result.finishReason) answer.finishReason = result.finishReason;
      if (result.nextSteps?.length) answer.nextSteps = result.nextSteps;
      return [
        {
          type: 'streamDone',
          requestId,
          stopped: result.stopped,
          ...(result.usage ? { usage: result.usage } : {}),
          ...(result.finishReason ? { finishReason: result.finishReason } : {}),
          ...(result.nextSteps?.length ? { nextSteps: result.nextSteps } : {}),
        },
      ];
    });
    if (end.type === 'error') {
      this.env.warn(`Answer ${requestId} failed (${end.error.kind}): ${end.error.message}`);
      if (end.error.kind === 'network') this.env.unreachable();
      if (end.error.unavailable && answer.model) this.env.modelUnavailable?.(answer.model, end.error.unavailable);
    } else if (!end.result.stopped && answer.model) {
      this.env.modelAnswered?.(answer.model);
    }
    this._onDidAnswer.fire({ conversationId: conversation.id, end });
  }
}
