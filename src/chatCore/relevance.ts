/**
 * Which passages of a search are relevant enough to ground an answer. The documents service's
 * scores have no stated scale (0..1, raw BM25, cosine similarity…), so nothing here compares a
 * score with a fixed number: a passage is kept when its score is close enough to the best score
 * of the same search, and the search counts as having found something only when a kept passage
 * shares enough of the query's distinctive words. No `vscode` import.
 */
import { termSet } from './queryTerms';

/** Kept: at least this fraction of the way from the search's lowest score to its best. */
export const RELATIVE_FLOOR = 0.35;
/** A passage supports a query when it shares at least this fraction of the query's words… */
export const MIN_TERM_COVERAGE = 0.5;
/** …or at least this many of them (long queries, carried subjects, a question spanning stores). */
const MIN_SHARED_TERMS = 2;

export interface Scored {
  score?: number;
  content: string;
  filename?: string;
  heading?: string;
}

/**
 * The passages at or above the floor, in their order: a score counts by where it sits between
 * zero (or the search's lowest score, when scores go below zero) and its best, so multiplying
 * every score by the same positive number changes nothing.
 * A search whose scores are all equal keeps everything (nothing tells them apart).
 */
export function aboveFloor<T extends Scored>(passages: readonly T[], floor = RELATIVE_FLOOR): T[] {
  const scores = passages.map((p) => p.score).filter((s): s is number => typeof s === 'number' && Number.isFinite(s));
  if (scores.length < 2) return [...passages];
  const best = Math.max(...scores);
  // Positive scores: a plain ratio to the best (a search of three good passages keeps all
  // three). Scores that go below zero (some similarity measures): the position between the
  // lowest and the best.
  const lowest = Math.min(0, ...scores);
  const span = best - lowest;
  if (span <= 0) return [...passages];
  return passages.filter((p) => typeof p.score !== 'number' || !Number.isFinite(p.score) || (p.score - lowest) / span >= floor);
}

/** The share of the query's distinctive words found in the passage (its text, file name and heading). */
export function termCoverage(query: string, passage: Scored): { shared: number; coverage: number } {
  const wanted = termSet(query);
  if (wanted.size === 0) return { shared: 0, coverage: 1 };
  // A file name's parts count as words ("invoice-retention.md").
  const have = termSet(`${(passage.filename ?? '').replace(/[._-]+/g, ' ')} ${passage.heading ?? ''} ${passage.content}`);
  let shared = 0;
  for (const term of wanted) if (have.has(term)) shared++;
  return { shared, coverage: shared / wanted.size };
}

/** True when the passage shares enough of the query's words to support an answer to it. */
export function supports(query: string, passage: Scored): boolean {
  const { shared, coverage } = termCoverage(query, passage);
  return coverage >= MIN_TERM_COVERAGE || shared >= MIN_SHARED_TERMS;
}

/**
 * The relevant passages of one search for `query`: those above the floor, or none at all when
 * none of them supports the query (the documents do not cover it).
 */
export function relevantPassages<T extends Scored>(query: string, passages: readonly T[]): T[] {
  const kept = aboveFloor(passages);
  return kept.some((p) => supports(query, p)) ? kept : [];
}
