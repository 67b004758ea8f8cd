/**
 * Conversations of this workspace, persisted in workspaceState so they survive reloading the
 * window. What comes back from storage is validated (an older or damaged entry is dropped, not
 * trusted). No `vscode` import: the memento is passed in.
 */
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { KeyValueStore } from '../../chatCore/modelCatalog';
import type { AssistantMessage, Conversation, ConversationOptions, ConversationSummary } from '../../chatCore/protocol';

const STATE_KEY = 'docchat.chat.conversations';
/**
 * Saves within this time become one: writing all conversations (serialised whole by the memento)
 * is kept off the path from Enter to the request and to the first answer text.
 */
export const SAVE_DELAY_MS = 250;
export const MAX_CONVERSATIONS = 50;

const range = z.object({ startLine: z.number(), startCharacter: z.number(), endLine: z.number(), endCharacter: z.number() });
const contextItem = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('passage'),
    storeId: z.string(),
    storeName: z.string().optional(),
    fileId: z.string(),
    filename: z.string().optional(),
    content: z.string(),
    score: z.number().optional(),
    chunkIndex: z.number().optional(),
    heading: z.string().optional(),
  }),
  z.object({
    kind: z.literal('selection'),
    uri: z.string(),
    label: z.string(),
    languageId: z.string().optional(),
    range,
    content: z.string(),
  }),
  z.object({ kind: z.literal('web'), url: z.string(), title: z.string(), content: z.string() }),
]);
const source = z.intersection(contextItem, z.object({ number: z.number().int() }));
const usage = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() });
const errorInfo = z.object({
  kind: z.string(),
  message: z.string(),
  retryAfterMs: z.number().optional(),
  actions: z.array(z.string()),
});
const message = z.discriminatedUnion('role', [
  z.object({
    id: z.string(),
    role: z.literal('user'),
    content: z.string(),
    createdAt: z.number(),
    context: z.array(contextItem).optional(),
  }),
  z.object({
    id: z.string(),
    role: z.literal('assistant'),
    content: z.string(),
    createdAt: z.number(),
    status: z.enum(['pending', 'streaming', 'done', 'stopped', 'error']),
    tool: z.enum(['web', 'crawl', 'research']).optional(),
    requestId: z.string().optional(),
    model: z.string().optional(),
    legacy: z.boolean().optional(),
    sources: z.array(source).optional(),
    usage: usage.optional(),
    finishReason: z.string().optional(),
    error: errorInfo.optional(),
    nextSteps: z.array(z.enum(['chooseStore', 'attachFiles', 'useLanguageModel'])).optional(),
    searchQuery: z.string().optional(),
  }),
]);
const conversation = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  options: z.object({
    model: z.string().optional(),
    temperature: z.number().optional(),
    maxCompletionTokens: z.number().optional(),
    vectorStoreId: z.string().optional(),
    vectorStoreName: z.string().optional(),
    vectorStores: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  }),
  messages: z.array(message),
  pendingContext: z.array(contextItem),
});
const stored = z.object({ activeId: z.string().optional(), conversations: z.array(z.unknown()) });

/** An answer cannot still be streaming after a reload: what arrived stays, marked as stopped. */
function settleInterrupted(c: Conversation): Conversation {
  for (const m of c.messages) {
    if (m.role === 'assistant' && (m.status === 'streaming' || m.status === 'pending')) {
      const answer = m as AssistantMessage;
      answer.status = 'stopped';
      answer.finishReason = 'interrupted';
      delete answer.requestId;
    }
  }
  return c;
}

export class ConversationStore {
  private conversations: Conversation[];
  private activeId: string | undefined;
  private pendingSave: { timer: ReturnType<typeof setTimeout>; done: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly storage: KeyValueStore,
    private readonly now: () => number = Date.now,
  ) {
    const parsed = stored.safeParse(storage.get(STATE_KEY));
    this.conversations = [];
    if (parsed.success) {
      for (const raw of parsed.data.conversations) {
        const c = conversation.safeParse(raw);
        if (c.success) {
          this.conversations.push(settleInterrupted(c.data as Conversation));
        }
      }
      this.activeId = parsed.data.activeId;
    }
  }

  /** The conversation the panel shows; created when there is none. */
  active(defaults: ConversationOptions = {}): Conversation {
    return this.get(this.activeId ?? '') ?? this.create(defaults);
  }

  get(id: string): Conversation | undefined {
    return this.conversations.find((c) => c.id === id);
  }

  /** Newest first. */
  summaries(): ConversationSummary[] {
    return [...this.conversations].sort((a, b) => b.updatedAt - a.updatedAt).map(({ id, title, updatedAt }) => ({ id, title, updatedAt }));
  }

  create(options: ConversationOptions = {}): Conversation {
    const time = this.now();
    const created: Conversation = {
      id: randomUUID(),
      title: l10n.t('New chat'),
      createdAt: time,
      updatedAt: time,
      options: { ...options },
      messages: [],
      pendingContext: [],
    };
    // An untouched empty conversation is replaced rather than piling up.
    this.conversations = this.conversations.filter((c) => c.messages.length > 0 || c.pendingContext.length > 0);
    this.conversations.push(created);
    this.activeId = created.id;
    this.trim();
    return created;
  }

  activate(id: string): Conversation | undefined {
    const found = this.get(id);
    if (found) {
      this.activeId = id;
    }
    return found;
  }

  delete(id: string): void {
    this.conversations = this.conversations.filter((c) => c.id !== id);
    if (this.activeId === id) {
      this.activeId = this.summaries()[0]?.id;
    }
  }

  touch(c: Conversation): void {
    c.updatedAt = this.now();
  }

  /** Saves soon (saves asked for within SAVE_DELAY_MS are one write); resolves once written. */
  save(): Promise<void> {
    if (!this.pendingSave) {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      this.pendingSave = { timer: setTimeout(() => void this.flush(), SAVE_DELAY_MS), done, resolve };
    }
    return this.pendingSave.done;
  }

  /** Writes a pending save now (when the extension stops). */
  async flush(): Promise<void> {
    const pending = this.pendingSave;
    if (!pending) {
      return;
    }
    this.pendingSave = undefined;
    clearTimeout(pending.timer);
    try {
      await this.storage.update(STATE_KEY, { activeId: this.activeId, conversations: this.conversations });
    } finally {
      pending.resolve();
    }
  }

  private trim(): void {
    if (this.conversations.length <= MAX_CONVERSATIONS) {
      return;
    }
    const keep = new Set(
      this.summaries()
        .slice(0, MAX_CONVERSATIONS)
        .map((s) => s.id),
    );
    keep.add(this.activeId ?? '');
    this.conversations = this.conversations.filter((c) => keep.has(c.id));
  }
}
