import type { KeyValueStore } from '../../../../src/chatCore/modelCatalog';
import type { ChatEnvironment } from '../../../../src/features/chat/chatSession';

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
