/**
 * Conversations of this workspace, persisted in workspaceState so they survive reloading the
 * window. What comes back from storage is validated (an older or damaged entry is dropped, not
 * trusted). No `vscode` import: the memento is passed in.
 */
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { KeyValueStore } from '../../chatCore/modelCatalog';
import { type Conversation, type ConversationOptions, conversationSchema } from '../../chatCore/conversation';
import type { ConversationSummary } from '../../chatCore/protocol';
import { StateKeys } from '../../common/constants';

const STATE_KEY = StateKeys.conversations;
/**
 * Saves within this time become one: writing all conversations (serialised whole by the memento)
 * is kept off the path from Enter to the request and to the first answer text.
 */
export const SAVE_DELAY_MS = 250;
export const MAX_CONVERSATIONS = 50;

const stored = z.object({ activeId: z.string().optional(), conversations: z.array(z.unknown()) });

/** An answer cannot still be streaming after a reload: what arrived stays, marked as stopped. */
function settleInterrupted(c: Conversation): Conversation {
  for (const m of c.messages) {
    if (m.role === 'assistant' && (m.status === 'streaming' || m.status === 'pending')) {
      m.status = 'stopped';
      m.finishReason = 'interrupted';
      delete m.requestId;
      delete m.progress;
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
        const c = conversationSchema.safeParse(raw);
        if (c.success) {
          this.conversations.push(settleInterrupted(c.data));
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
