/**
 * What the search quick pick and `@docchat /search` list of a search's results: one row per
 * passage and none far below the best. No `vscode` import.
 */
import { aboveFloor, RELATIVE_FLOOR } from './relevance';
import { makeSnippet, plainText } from './snippet';

export interface ShapedHit {
  /** The file the passage is from: only passages of one file are ever collapsed. */
  fileId: string;
  content: string;
  score?: number;
}

/**
 * The hits to list, in their order (best first, as the service ranked them):
 * - of passages of one file whose text is the same or one of which holds the other (overlapping
 *   chunks, a passage returned twice), only the first; so also of those whose rows would read
 *   the same (the excerpt around the match of `query` being the same);
 * - only those at or above RELATIVE_FLOOR of the best score of the search (the rule that grounds
 *   the chat, see relevance.ts; the service's scores have no stated scale), the best always.
 * `hidden` counts the hits left out for their score.
 */
export function shapeResults<T>(
  hits: readonly T[],
  hitOf: (hit: T) => ShapedHit,
  query?: string,
  floor = RELATIVE_FLOOR,
): { shown: T[]; hidden: number } {
  const kept: { hit: T; fileId: string; text: string; row: string; score?: number }[] = [];
  for (const hit of hits) {
    const { fileId, content, score } = hitOf(hit);
    const text = plainText(content).toLowerCase();
    const row = query === undefined ? text : makeSnippet(content, query).text.toLowerCase();
    const same = kept.some(
      (k) => k.fileId === fileId && (k.row === row || (!!text && !!k.text && (k.text.includes(text) || text.includes(k.text)))),
    );
    if (!same) kept.push({ hit, fileId, text, row, ...(score === undefined ? {} : { score }) });
  }
  const shown = aboveFloor(
    kept.map((k) => ({ ...k, content: k.text })),
    floor,
  ).map((k) => k.hit);
  return { shown, hidden: kept.length - shown.length };
}
