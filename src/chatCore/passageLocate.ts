/**
 * Finds a search passage (a chunk of converted markdown) in a document: the converted markdown
 * itself, or the original workspace file, where conversion may have added fences or headings. The
 * source opener highlights it there; the MCP server reads the page that holds it. No `vscode`
 * import, no DOM.
 */
import type { TextSpan } from './quoteLocate';

const FENCE = /^(`{3,}|~{3,})/;
/** Lines shorter than this are too common ("}", "- a") to anchor a passage. */
const MIN_ANCHOR = 8;
const MAX_GAP = 2_000;

function anchorLines(chunk: string): string[] {
  return chunk
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_ANCHOR && !FENCE.test(line));
}

/**
 * Where the passage is in `text`, or undefined. Tries the exact chunk, then, of the spans that
 * run from one of its lines through the lines that follow it in the document (in order, each near
 * the last), the one that holds the most of its lines. A chunk deep in a long section starts with
 * that section's heading, thousands of characters before its own text: the span that starts at
 * the heading holds one line, the one that starts at the text holds the rest.
 */
export function locatePassage(text: string, chunk: string): TextSpan | undefined {
  const trimmed = chunk.trim();
  if (!trimmed) {
    return undefined;
  }
  const exact = text.indexOf(trimmed);
  if (exact >= 0) {
    return { start: exact, end: exact + trimmed.length };
  }
  const lines = anchorLines(trimmed);
  let best: { span: TextSpan; matched: number } | undefined;
  for (let first = 0; first < lines.length; first++) {
    // No later start can hold more lines than are left after it.
    if (best && lines.length - first <= best.matched) break;
    const start = text.indexOf(lines[first]!);
    if (start < 0) {
      continue;
    }
    let end = start + lines[first]!.length;
    let cursor = end;
    let matched = 1;
    for (let i = first + 1; i < lines.length; i++) {
      // Looked for only near the last line found: a line far beyond the passage is a coincidence,
      // not the passage's end (and searching the rest of a long document for each line of a long
      // passage, lines out of order, takes seconds).
      const near = text.slice(cursor, cursor + MAX_GAP + lines[i]!.length).indexOf(lines[i]!);
      if (near >= 0) {
        end = cursor + near + lines[i]!.length;
        cursor = end;
        matched++;
      }
    }
    if (!best || matched > best.matched) best = { span: { start, end }, matched };
  }
  return best?.span;
}
