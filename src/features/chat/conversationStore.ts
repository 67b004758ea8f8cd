/**
 * Conversations of this workspace, persisted so they survive reloading the window (in a file in
 * the workspace's storage folder, see `conversationFile.ts`; tests pass a memento). What comes back
 * from storage is validated (an older or damaged entry is dropped, not trusted). No `vscode`
 * import: the storage is passed in.
 *
 * Two windows on the same workspace write the same conversations: every save re-reads what is
 * stored and merges it with this window's copy (`mergeConversations`), so a turn asked in another
 * window is kept, and a conversation deleted there stays deleted.
 */
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { KeyValueStore } from '../../chatCore/modelCatalog';
import { type Conversation, type ConversationOptions, conversationSchema } from '../../chatCore/conversation';
import type { ConversationSummary } from '../../chatCore/protocol';
import { type MergeBase, mergeBaseOf, mergeConversations } from '../../chatCore/conversationMerge';
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
      delete m.thinking;
    }
  }
  return c;
}

/** Where the conversations are kept. */
export interface ConversationStorage extends KeyValueStore {
  /**
   * Reads again what another window may have written since; false when nothing changed since this
   * window last read or wrote (absent: `get` is always current).
   */
  reload?(): Promise<boolean>;
}

/**
 * The valid conversations of a stored value (an older or damaged entry is dropped); an answer
 * stored while it streamed reads as stopped (here it cannot be streaming).
 */
function readConversations(value: unknown): { activeId?: string; conversations: Conversation[] } {
  const parsed = stored.safeParse(value);
  if (!parsed.success) {
    return { conversations: [] };
  }
  const conversations: Conversation[] = [];
  for (const raw of parsed.data.conversations) {
    const c = conversationSchema.safeParse(raw);
    if (c.success) {
      conversations.push(settleInterrupted(c.data));
    }
  }
  return { ...(parsed.data.activeId !== undefined ? { activeId: parsed.data.activeId } : {}), conversations };
}

export class ConversationStore {
  private conversations: Conversation[];
  private activeId: string | undefined;
  private pendingSave: { timer: ReturnType<typeof setTimeout>; done: Promise<void>; resolve: () => void } | undefined;
  /** Called when the conversation shown here was deleted in another window (another one is shown now). */
  onDidDropActive: (() => void) | undefined;
  /** What this window last read or wrote: the merge tells another window's additions from deletions here. */
  private base: MergeBase;

  constructor(
    private readonly storage: ConversationStorage,
    private readonly now: () => number = Date.now,
  ) {
    // What the storage has at hand now (a file is read after, without blocking: `opened`).
    const read = readConversations(storage.get(STATE_KEY));
    this.base = mergeBaseOf(read.conversations);
    this.conversations = read.conversations;
    this.activeId = read.activeId;
    this.opened = storage.reload ? this.inTurn(() => this.open()) : Promise.resolve(false);
  }

  /** Resolves once the stored conversations are read; true when that changed what the panel shows. */
  readonly opened: Promise<boolean>;

  /** The first read: takes in the stored conversations and shows the one shown last. */
  private async open(): Promise<boolean> {
    const before = this.fingerprint();
    const read = await this.mergeStored();
    if (read) {
      this.base = mergeBaseOf(read.conversations);
      const shown = this.get(this.activeId ?? '');
      const untouched = shown && shown.messages.length === 0 && shown.pendingContext.length === 0 && !this.base.has(shown.id);
      if (read.activeId && this.get(read.activeId) && (!shown || untouched)) {
        // The empty chat made while the file was read gives way to the conversation shown before.
        this.conversations = this.conversations.filter((c) => c !== shown);
        this.activeId = read.activeId;
      }
    }
    return this.fingerprint() !== before;
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
    return [...this.conversations]
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map(({ id, title, createdAt, updatedAt, messages }) => ({
        id,
        title,
        createdAt,
        updatedAt,
        questions: messages.filter((m) => m.role === 'user').length,
      }));
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

  /** Writes a pending save now (when the extension stops); resolves once every save asked for is written. */
  async flush(): Promise<void> {
    const pending = this.pendingSave;
    if (!pending) {
      await this.turn;
      return;
    }
    this.pendingSave = undefined;
    clearTimeout(pending.timer);
    try {
      await this.inTurn(async () => {
        await this.mergeStored();
        // The base is what is written now: an answer still streaming changes after this point.
        this.base = mergeBaseOf(this.conversations);
        await this.storage.update(STATE_KEY, { activeId: this.activeId, conversations: this.conversations });
      });
    } finally {
      pending.resolve();
    }
  }

  /**
   * Takes in what another window saved since this one last read or wrote (without writing).
   * Resolves true when the conversations or their list changed, so the panel shows them again.
   */
  async refresh(): Promise<boolean> {
    return this.inTurn(async () => {
      const before = this.fingerprint();
      const read = await this.mergeStored();
      if (read) this.base = mergeBaseOf(read.conversations);
      return this.fingerprint() !== before;
    });
  }

  /** One read-merge(-write) at a time: a save never races a refresh or another save of this window. */
  private inTurn<T>(run: () => Promise<T>): Promise<T> {
    const result = this.turn.then(run);
    this.turn = result.catch(() => undefined);
    return result;
  }

  private turn: Promise<unknown> = Promise.resolve();

  /** Merges the stored conversations into this window's; returns what was stored (undefined: unchanged). */
  private async mergeStored(): Promise<{ activeId?: string; conversations: Conversation[] } | undefined> {
    if ((await this.storage.reload?.()) === false) {
      return undefined; // what is stored is what this window last read or wrote: nothing to take in
    }
    const read = readConversations(this.storage.get(STATE_KEY));
    this.conversations = mergeConversations(this.conversations, read.conversations, this.base);
    if (!this.get(this.activeId ?? '')) {
      const shown = this.activeId !== undefined;
      this.activeId = this.summaries()[0]?.id;
      if (shown) this.onDidDropActive?.();
    }
    this.trim();
    return read;
  }

  /** Each conversation's id, title and messages (ids and signatures): what the panel shows of them. */
  private fingerprint(): string {
    const messages = mergeBaseOf(this.conversations);
    return JSON.stringify([this.activeId, this.conversations.map((c) => [c.id, c.title, [...messages.get(c.id)!]])]);
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
