import * as vscode from 'vscode';
import type { Services } from '../../services';
import { pickStores } from '../stores';
import { defaultGrounding, participantStores } from '../../services/defaultGrounding';
import { resolveStore, type StoreRef } from '../../chatCore/answerText';
import { StateKeys } from '../../common/constants';
import type { ChatStoreSelection } from '../chat';

const KEY = StateKeys.participantStore;
/** Every store chosen with `/store` (the first is also the default-grounding choice). */
const KEY_MANY = StateKeys.participantStores;

/**
 * The vector stores `@docchat` and the search tool use: the one selection the DocChat chat shows
 * (its current conversation's stores), else the default-grounding rule: the store chosen last in
 * this workspace (with `/store` or in the chat panel), else the only store. `/store` changes that
 * one selection, so the chat follows it too.
 */
export class ChosenStore {
  constructor(
    private readonly services: Services,
    private readonly state: vscode.Memento,
    private readonly chat?: ChatStoreSelection,
  ) {}

  /** The chat's current store, else the store chosen last: in this workspace (chat panel or `/store`), else with an older `/store`. */
  get chosen(): StoreRef | undefined {
    const current = this.chat?.current()?.[0];
    if (current) return current;
    return this.remembered();
  }

  private remembered(): StoreRef | undefined {
    const remembered = this.services.grounding.choice;
    if (remembered) {
      return remembered.kind === 'store' ? remembered.store : undefined;
    }
    const value = this.state.get<unknown>(KEY) as Partial<StoreRef> | undefined;
    return typeof value?.id === 'string'
      ? { id: value.id, name: typeof value.name === 'string' && value.name ? value.name : value.id }
      : undefined;
  }

  async set(stores: readonly StoreRef[]): Promise<void> {
    await this.services.grounding.remember(stores[0]);
    await this.state.update(
      KEY_MANY,
      stores.map((s) => ({ id: s.id, name: s.name })),
    );
    for (const store of stores) {
      await this.services.recentStores.touch(store.id);
    }
    if (stores.length) this.chat?.choose(stores);
  }

  /** Shows the multi-select store picker; undefined when cancelled. */
  async choose(): Promise<StoreRef[] | undefined> {
    const current = this.chat?.current();
    const stores = await pickStores(this.services, {
      title: vscode.l10n.t('DocChat: Choose the Stores the Chat and @docchat Answer From'),
      selected: (current?.length ? current : this.chosenMany()).map((s) => s.id),
    });
    if (!stores) {
      return undefined;
    }
    const refs = stores.map((store) => ({ id: store.id, name: store.name || store.id }));
    await this.set(refs);
    return refs;
  }

  private chosenMany(): StoreRef[] {
    const value = this.state.get<unknown>(KEY_MANY);
    return Array.isArray(value)
      ? value.flatMap((v: { id?: unknown; name?: unknown }) =>
          typeof v?.id === 'string' && v.id ? [{ id: v.id, name: typeof v.name === 'string' && v.name ? v.name : v.id }] : [],
        )
      : [];
  }

  /**
   * The stores to search: those `wanted` names (names or ids, from a tool call; unknown ones
   * are left out), else the DocChat chat's current stores, else the stores chosen with `/store`
   * when the default-grounding rule still starts with them, else the rule's one store.
   */
  async resolveAll(wanted?: readonly string[], signal?: AbortSignal): Promise<StoreRef[]> {
    const names = (wanted ?? []).map((w) => w.trim()).filter(Boolean);
    if (names.length > 0) {
      const client = this.services.connection.documents;
      if (!client) {
        return [];
      }
      const page = await client.listVectorStores({ limit: 1000 }, { signal });
      const stores = page.data.map((s) => ({ id: s.id, name: s.name || s.id }));
      const found = names.map((name) => resolveStore(stores, name)).filter((s): s is StoreRef => s !== undefined);
      return found.filter((s, i) => found.findIndex((t) => t.id === s.id) === i);
    }
    const { rule, stores } = await this.ruleStore(signal);
    return participantStores(this.chat?.current(), rule, this.chosenMany(), stores);
  }

  /** The default-grounding rule's store, and the store list it was applied to (undefined when not known). */
  private async ruleStore(signal?: AbortSignal): Promise<{ rule: StoreRef | undefined; stores: StoreRef[] | undefined }> {
    const client = this.services.connection.documents;
    const older = this.remembered();
    const remembered = this.services.grounding.choice ?? (older ? { kind: 'store' as const, store: older } : undefined);
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
    return { rule: defaultGrounding(remembered, stores, this.services.recentStores.list()), stores };
  }
}
