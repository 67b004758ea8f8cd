import type * as vscode from 'vscode';
import type { Services } from '../../services';
import { pickStore } from '../stores/storePicker';
import { resolveStore, type StoreRef } from './answerText';

const KEY = 'docchat.participant.store';

/**
 * The vector store `@docchat` and the search tool use: the one chosen with `/store` (kept across
 * sessions), else the most recently used store.
 */
export class ChosenStore {
  constructor(
    private readonly services: Services,
    private readonly state: vscode.Memento,
  ) {}

  get chosen(): StoreRef | undefined {
    const value = this.state.get<unknown>(KEY) as Partial<StoreRef> | undefined;
    return typeof value?.id === 'string' ? { id: value.id, name: typeof value.name === 'string' && value.name ? value.name : value.id } : undefined;
  }

  async set(store: StoreRef): Promise<void> {
    await this.state.update(KEY, { id: store.id, name: store.name });
    await this.services.recentStores.touch(store.id);
  }

  /** Shows the store picker; undefined when cancelled. */
  async choose(): Promise<StoreRef | undefined> {
    const store = await pickStore(this.services, { title: 'DocChat: Choose the Vector Store @docchat Answers From' });
    if (!store) {
      return undefined;
    }
    const ref = { id: store.id, name: store.name || store.id };
    await this.set(ref);
    return ref;
  }

  /**
   * The store to search: `wanted` (a name or id, from a tool call) when given, else the chosen
   * store, else the most recently used one.
   */
  async resolve(wanted?: string, signal?: AbortSignal): Promise<StoreRef | undefined> {
    const client = this.services.connection.documents;
    if (wanted?.trim()) {
      if (!client) {
        return undefined;
      }
      const page = await client.listVectorStores({ limit: 1000 }, { signal });
      return resolveStore(page.data.map((s) => ({ id: s.id, name: s.name || s.id })), wanted);
    }
    if (this.chosen) {
      return this.chosen;
    }
    const recent = this.services.recentStores.list()[0];
    if (recent && client) {
      try {
        const store = await client.retrieveVectorStore(recent, { signal });
        return { id: store.id, name: store.name || store.id };
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}
