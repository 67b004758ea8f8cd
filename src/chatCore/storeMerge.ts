/**
 * Merging the results of several stores' searches. Each store's scores have their own scale, so
 * they are merged by rank: first passages of every store, then second ones, and so on; within a
 * rank, the passage whose score is closer to its own search's best comes first. No `vscode` import.
 */

export interface RankedPassage {
  score?: number;
}

export function mergeByRank<T extends RankedPassage>(lists: readonly (readonly T[])[]): T[] {
  const entries: { item: T; rank: number; relative: number; list: number }[] = [];
  lists.forEach((list, listIndex) => {
    const best = Math.max(0, ...list.map((p) => (typeof p.score === 'number' && Number.isFinite(p.score) ? p.score : 0)));
    list.forEach((item, rank) => {
      const relative = best > 0 && typeof item.score === 'number' ? item.score / best : 0;
      entries.push({ item, rank, relative, list: listIndex });
    });
  });
  entries.sort((a, b) => a.rank - b.rank || b.relative - a.relative || a.list - b.list);
  return entries.map((e) => e.item);
}
