/**
 * BEIR's ranking measures (pytrec_eval's `ndcg_cut` and `recall`): gains are the judged
 * relevance levels, discounted by log2(rank + 1); a judgement of 0 is not relevant.
 */

/** A query's judged documents and their relevance levels. */
export type Judgements = ReadonlyMap<string, number>;

export function ndcgAt(ranking: readonly string[], judged: Judgements, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((doc, i) => (dcg += (judged.get(doc) ?? 0) / Math.log2(i + 2)));
  const ideal = [...judged.values()]
    .filter((gain) => gain > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(ranking: readonly string[], judged: Judgements, k: number): number {
  const relevant = [...judged].filter(([, gain]) => gain > 0).map(([doc]) => doc);
  if (!relevant.length) return 0;
  const top = new Set(ranking.slice(0, k));
  return relevant.filter((doc) => top.has(doc)).length / relevant.length;
}
