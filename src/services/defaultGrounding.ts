/**
 * Which vector store a new chat (and `@docchat`) grounds in: the choice last made in this
 * workspace, else (nothing chosen, or that store deleted since) the most recently used store that
 * still exists, else the only store there is. "No grounding" is a choice too, and is remembered.
 * No `vscode` import: the rule is unit-tested from here.
 */
import { StateKeys } from '../common/constants';

export interface StoreRef {
  id: string;
  name: string;
}

/** What the user chose last in this workspace. */
export type GroundingChoice = { kind: 'store'; store: StoreRef } | { kind: 'none' };

/**
 * The default-grounding rule.
 * - "No grounding" chosen last: none.
 * - A store chosen last: that store, unless the list is known and no longer has it.
 * - Otherwise the most recently used store (`recent`: store ids, newest first) the list still has.
 * - Otherwise the only store, when there is exactly one; else none (the user picks).
 * `stores` is undefined while the list is not known (not loaded, or it failed).
 */
export function defaultGrounding(
  remembered: GroundingChoice | undefined,
  stores: readonly StoreRef[] | undefined,
  recent: readonly string[] = [],
): StoreRef | undefined {
  if (remembered?.kind === 'none') {
    return undefined;
  }
  if (remembered?.kind === 'store') {
    if (!stores) {
      return remembered.store;
    }
    const listed = stores.find((s) => s.id === remembered.store.id);
    if (listed) {
      return { id: listed.id, name: listed.name || listed.id };
    }
  }
  const used = recent.map((id) => stores?.find((s) => s.id === id)).find((s) => s !== undefined);
  const chosen = used ?? (stores?.length === 1 ? stores[0] : undefined);
  return chosen ? { id: chosen.id, name: chosen.name || chosen.id } : undefined;
}

/** The part of a Memento the memory needs (workspaceState in the extension). */
export interface GroundingState {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

const KEY = StateKeys.groundingChoice;

/** The grounding choice last made in this workspace, shared by the chat panel and `@docchat`. */
export class GroundingMemory {
  constructor(private readonly state: GroundingState) {}

  get choice(): GroundingChoice | undefined {
    const value = this.state.get<unknown>(KEY) as { kind?: unknown; store?: { id?: unknown; name?: unknown } } | undefined;
    if (value?.kind === 'none') {
      return { kind: 'none' };
    }
    const id = value?.kind === 'store' ? value.store?.id : undefined;
    if (typeof id === 'string' && id) {
      const name = value?.store?.name;
      return { kind: 'store', store: { id, name: typeof name === 'string' && name ? name : id } };
    }
    return undefined;
  }

  async remember(store: StoreRef | undefined): Promise<void> {
    await this.state.update(KEY, store ? { kind: 'store', store: { id: store.id, name: store.name } } : { kind: 'none' });
  }

  /** The rule applied to this workspace's memory (`recent`: the recently used store ids, newest first). */
  resolve(stores: readonly StoreRef[] | undefined, recent: readonly string[] = []): StoreRef | undefined {
    return defaultGrounding(this.choice, stores, recent);
  }
}

/**
 * The stores `@docchat` and the search tool answer from: those the DocChat chat's current
 * conversation is grounded in (`chat`: the selection the user sees in the chat), unless a known
 * store list no longer has them; else the default-grounding rule's store (`rule`), with the other
 * stores chosen with it (`chosenWithRule`, whose first entry must be that store).
 * `stores` is undefined while the list is not known.
 */
export function participantStores(
  chat: readonly StoreRef[] | undefined,
  rule: StoreRef | undefined,
  chosenWithRule: readonly StoreRef[],
  stores: readonly StoreRef[] | undefined,
): StoreRef[] {
  const listed = (chat ?? []).flatMap((store) => {
    if (!stores) return [store];
    const found = stores.find((s) => s.id === store.id);
    return found ? [{ id: found.id, name: found.name || found.id }] : [];
  });
  if (listed.length) return listed;
  if (!rule) return [];
  return chosenWithRule[0]?.id === rule.id ? [...chosenWithRule] : [rule];
}
