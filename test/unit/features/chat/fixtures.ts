import type { KeyValueStore } from '../../../../src/chatCore/modelCatalog';
import type { Conversation } from '../../../../src/chatCore/conversation';
import type { ChatEnvironment } from '../../../../src/features/chat/chatSession';
import type { ConversationStore } from '../../../../src/features/chat/conversationStore';

/** An in-memory Memento that round-trips through JSON, as VS Code's storage does. */
export class MemoryState implements KeyValueStore {
  readonly data = new Map<string, string>();
  writes = 0;
  get<T>(key: string): T | undefined {
    const raw = this.data.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }
  async update(key: string, value: unknown): Promise<void> {
    this.writes++;
    this.data.set(key, JSON.stringify(value));
  }
}

/** A chat session's environment for tests: no clients, Local mode's defaults; `overrides` replace parts. */
export function testEnvironment(overrides: Partial<ChatEnvironment> = {}): ChatEnvironment {
  return {
    clients: () => ({ gateway: undefined, documents: undefined }),
    settings: () => ({ projectCode: 'NA', maxSearchResults: 5, announce: 'asTheyStream' }),
    defaultModel: () => 'local-extractive',
    defaultStore: () => undefined,
    groundingKnown: async () => undefined,
    warn: () => undefined,
    unreachable: () => undefined,
    ...overrides,
  };
}

/** One turn: a question and its answer, `at` the question's time. */
export function ask(c: Conversation, id: string, question: string, at: number): void {
  c.messages.push({ id: `${id}-q`, role: 'user', content: question, createdAt: at });
  c.messages.push({ id: `${id}-a`, role: 'assistant', content: `Answer to ${question}`, createdAt: at + 1, status: 'done' });
}

/** Writes what the window has now (a save, then the pending write at once). */
export async function saveNow(store: ConversationStore): Promise<void> {
  void store.save();
  await store.flush();
}

/** A conversation's questions, in order. */
export const questions = (c: Conversation | undefined) => c?.messages.filter((m) => m.role === 'user').map((m) => m.content);
