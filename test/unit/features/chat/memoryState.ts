import type { KeyValueStore } from '../../../../src/chatCore/modelCatalog';

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
