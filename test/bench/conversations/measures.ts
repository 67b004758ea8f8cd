/**
 * MT-RAG's retrieval measures over distinct passages (Recall@k, nDCG@k as BEIR computes them)
 * and a paired bootstrap of the difference of two methods' means over the same tasks.
 */
import { ndcgAt, recallAt, type Judgements } from '../beir/metrics';
import { seededRandom } from '../../support/faults/seededRandom';

export interface TaskScores {
  recall5: number;
  recall10: number;
  ndcg10: number;
}

/** The distinct passages of a ranking, in order. */
export function distinct(ranking: readonly string[]): string[] {
  return [...new Set(ranking)];
}

export function score(ranking: readonly string[], judged: Judgements): TaskScores {
  const passages = distinct(ranking);
  return { recall5: recallAt(passages, judged, 5), recall10: recallAt(passages, judged, 10), ndcg10: ndcgAt(passages, judged, 10) };
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** The 95% interval of mean(a − b) over tasks resampled with replacement (paired: the same tasks for both). */
export function pairedBootstrap(a: readonly number[], b: readonly number[], resamples = 2000, seed = 35): [number, number] {
  if (a.length !== b.length) throw new Error('paired samples differ in length');
  const n = a.length;
  if (n === 0) return [Number.NaN, Number.NaN];
  const diffs = a.map((x, i) => x - b[i]!);
  const random = seededRandom(seed);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[Math.floor(random() * n)]!;
    means.push(sum / n);
  }
  means.sort((x, y) => x - y);
  return [means[Math.floor(0.025 * resamples)]!, means[Math.ceil(0.975 * resamples) - 1]!];
}
