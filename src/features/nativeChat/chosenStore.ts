import * as vscode from 'vscode';
import type { Services } from '../../services';
import { pickStore } from '../stores';
import { defaultGrounding } from '../../services/defaultGrounding';
import { resolveStore, type StoreRef } from './answerText';

const KEY = 'docchat.participant.store';

/**
 * The vector store `@docchat` and the search tool use, by the default-grounding rule: the store
 * chosen last in this workspace (with `/store` or in the chat panel), else the only store.
 */
export class ChosenStore {
  constructor(
    private readonly services: Services,
    private readonly state: vscode.Memento,
  ) {}

  /** The store chosen last: in this workspace (chat panel or `/store`), else with an older `/store`. */
  get chosen(): StoreRef | undefined {
    const remembered = this.services.grounding.choice;
    if (remembered) {
      return remembered.kind === 'store' ? remembered.store : undefined;
    }
    const value = this.state.get<unknown>(KEY) as Partial<StoreRef> | undefined;
    return typeof value?.id === 'string'
      ? { id: value.id, name: typeof value.name === 'string' && value.name ? value.name : value.id }
      : undefined;
  }

  async set(store: StoreRef): Promise<void> {
    await this.services.grounding.remember(store);
    await this.services.recentStores.touch(store.id);
  }

  /** Shows the store picker; undefined when cancelled. */
  async choose(): Promise<StoreRef | undefined> {
    const store = await pickStore(this.services, { title: vscode.l10n.t('DocChat: Choose the Vector Store @docchat Answers From') });
    if (!store) {
      return undefined;
    }
    const ref = { id: store.id, name: store.name || store.id };
    await this.set(ref);
    return ref;
  }

  /**
   * The store to search: `wanted` (a name or id, from a tool call) when given, else the
   * default-grounding rule's store.
   */
  async resolve(wanted?: string, signal?: AbortSignal): Promise<StoreRef | undefined> {
    const client = this.services.connection.documents;
    if (wanted?.trim()) {
      if (!client) {
        return undefined;
      }
      const page = await client.listVectorStores({ limit: 1000 }, { signal });
      return resolveStore(
        page.data.map((s) => ({ id: s.id, name: s.name || s.id })),
        wanted,
      );
    }
    const remembered = this.services.grounding.choice ?? (this.chosen ? { kind: 'store' as const, store: this.chosen } : undefined);
    let stores: StoreRef[] | undefined;
    if (client) {
      try {
        const page = await client.listVectorStores({ limit: 100 }, { signal });
        // A partial list cannot tell that the remembered store is gone.
        stores = page.hasMore ? undefined : page.data.map((s) => ({ id: s.id, name: s.name || s.id }));
      } catch {
        // Unknown list: the rule keeps the remembered store.
      }
    }
    return defaultGrounding(remembered, stores);
  }
}
