/** A quote of an answer with the place it is quoted from: a document and the heading path of its section there. */
export interface PlacedQuote {
  text: string;
  place: string;
}

/**
 * Whether an answer is clean: one of its quotes is the expected sentence and every quote comes from
 * the place (document and section) that one comes from, so a newcomer has no quote to skip as noise.
 */
export function isClean(quotes: readonly PlacedQuote[], isExpected: (text: string) => boolean): boolean {
  const expected = quotes.find((q) => isExpected(q.text));
  return expected !== undefined && quotes.every((q) => q.place === expected.place);
}
