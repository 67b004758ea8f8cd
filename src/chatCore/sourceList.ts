/**
 * What the chat panel's Sources list shows of each source besides its name: the score, when the
 * list reads as a ranking by it, and an excerpt at what the answer quoted. No `vscode` import, no
 * DOM.
 */
import type { ChatSource } from './protocol';
import { quotedSpan } from './quotedSection';
import { sentenceStart, type TextSpan } from './quoteLocate';
import { excerptAt, makeSnippet } from './snippet';

/**
 * The score to show beside each source (undefined: none), in the list's order. A score is the
 * documents service's score of the passage in the search that found it, as the search quick pick
 * shows it. The list is in the order the answer's sources were numbered, which is a ranking by
 * score only when one search of one store found them all: a follow-up fuses several searches by
 * rank, several stores are interleaved by rank, and neighbouring chunks joined into one source
 * take the place of the best-ranked of them. A reader takes the scores of a list for its ranking,
 * so they are shown only when they read in the list's order (none lower than one below it);
 * otherwise the place in the list is the ranking, and no score is shown.
 */
export function shownScores(sources: readonly ChatSource[]): Array<number | undefined> {
  const scores = sources.map((source) =>
    source.kind === 'passage' && typeof source.score === 'number' && Number.isFinite(source.score) ? source.score : undefined,
  );
  const given = scores.filter((score): score is number => score !== undefined);
  const inOrder = given.every((score, i) => i === 0 || score <= given[i - 1]!);
  return inOrder ? scores : scores.map(() => undefined);
}

/**
 * The excerpt of source `source.number` of an answer: the text around the sentence the answer
 * quotes from it (the quote its section name and the source opener's highlight follow), or,
 * when the answer quotes nothing of it that can be found, its part that best matches the query
 * the answer searched for (as search results show it). Plain text cut at whole words.
 */
export function sourceExcerpt(answer: string, source: ChatSource, sourceCount: number, query: string, width: number): string {
  return excerptFor(source.content, quotedSpan(answer, source.number, sourceCount, source.content), query, width);
}

/** `sourceExcerpt` of a source's `content` whose quote (`quotedSpan`) is already found. */
export function excerptFor(content: string, quote: TextSpan | undefined, query: string, width: number): string {
  if (!quote) return makeSnippet(content, query, width).text;
  // A quote of a sentence's middle or end reads from the sentence's start, when that is near.
  const start = sentenceStart(content, quote.start);
  const from = quote.start - start <= width / 3 ? start : quote.start;
  return excerptAt(content, { start: from, end: Math.max(from, quote.end) }, width).text;
}
