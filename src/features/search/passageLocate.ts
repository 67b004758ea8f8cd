/**
 * How a search passage found in a document (`locatePassage`) is highlighted: what an answer
 * quoted of it, or the passage's lines. No `vscode` import.
 */
import { bestSentenceFor, locateQuote, type TextSpan } from '../../chatCore/quoteLocate';
import type { QuoteFocus } from './highlights';

/**
 * Theme colours (VS Code's own) of the highlights: what an answer quoted, by its characters, in the
 * colour of the find widget's other matches (the "go to" colour is too faint on a few words in
 * Dark+); a whole passage, by its lines, in the "go to" colour. High-contrast themes have no such
 * backgrounds, only the borders.
 */
export const QUOTE_HIGHLIGHT = { background: 'editor.findMatchHighlightBackground', border: 'editor.findMatchHighlightBorder' } as const;
export const PASSAGE_HIGHLIGHT = { background: 'editor.rangeHighlightBackground', border: 'editor.rangeHighlightBorder' } as const;

/**
 * What to highlight of a passage found at `passage` in `text`: the quotes of `focus` that are found
 * in it, character for character (a quote may start or end mid-line; the one to scroll to is the
 * clicked citation's, else the first found), else the passage, as whole lines (a chunk's first and
 * last lines are cut anywhere), scrolled to the sentence that best meets `focus.query` if any.
 */
export function highlightedSpans(
  text: string,
  passage: TextSpan,
  focus?: QuoteFocus,
): { spans: TextSpan[]; focused: TextSpan; wholeLines: boolean } {
  const perQuote = (focus?.quotes ?? []).map((quote) => locateQuote(text, quote, passage));
  const spans = perQuote.flat();
  if (!spans.length) {
    // A search result: the passage, scrolled to where it meets the query (a long section's chunk
    // starts at its heading, far above the line that matched).
    const met = focus?.query ? bestSentenceFor(text, focus.query, passage) : undefined;
    return { spans: [passage], focused: met ?? passage, wholeLines: true };
  }
  const clicked = focus?.index !== undefined ? perQuote[focus.index]?.[0] : undefined;
  return { spans, focused: clicked ?? spans[0]!, wholeLines: false };
}
