import type * as vscode from 'vscode';
import { StateKeys } from '../common/constants';

const KEY = StateKeys.recentStores;
const MAX = 20;

/** Store ids the user picked recently, newest first (pickers list them first). */
export class RecentStores {
  constructor(private readonly state: vscode.Memento) {}

  list(): string[] {
    const value = this.state.get<unknown>(KEY);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }

  async touch(storeId: string): Promise<void> {
    await this.state.update(KEY, [storeId, ...this.list().filter((id) => id !== storeId)].slice(0, MAX));
  }

  /** Sorts items so recently used stores come first, in recency order; the rest keep their order. */
  sort<T>(items: readonly T[], idOf: (item: T) => string): T[] {
    return orderByRecent(items, idOf, this.list());
  }
}

export function orderByRecent<T>(items: readonly T[], idOf: (item: T) => string, recent: readonly string[]): T[] {
  const rank = new Map(recent.map((id, i) => [id, i]));
  return items
    .map((item, index) => ({ item, index, rank: rank.get(idOf(item)) ?? Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((x) => x.item);
}
