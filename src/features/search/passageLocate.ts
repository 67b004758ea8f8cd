/**
 * Finds a search passage (a chunk of converted markdown) in a document: the converted markdown
 * itself, or the original workspace file, where conversion may have added fences or headings.
 * No `vscode` import.
 */
import type { QuoteFocus } from './highlights';

export interface TextSpan {
  start: number;
  end: number;
}

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
      const at = text.indexOf(lines[i]!, cursor);
      // A line far beyond the passage is a coincidence, not the passage's end.
      if (at >= 0 && at - cursor <= MAX_GAP) {
        end = at + lines[i]!.length;
        cursor = end;
        matched++;
      }
    }
    if (!best || matched > best.matched) best = { span: { start, end }, matched };
  }
  return best?.span;
}

const TABLE_SEPARATOR = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Words of a statement compared with a source's sentences (markup and short words left out). */
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
/** A paraphrase is placed at the source sentence holding at least this share of its words. */
const MIN_OVERLAP = 0.5;

/** Where `line` is in `text` within `[from, to)`, its words matched across line breaks and indents. */
function findWords(text: string, line: string, from: number, to: number): TextSpan | undefined {
  const parts = line.trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return undefined;
  const pattern = new RegExp(parts.map(escapeRegExp).join('\\s+(?:>\\s*)?'), 'g');
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  return match && match.index < to ? { start: match.index, end: match.index + match[0].length } : undefined;
}

/** The sentences (and table rows, list items) of `text` within `[from, to)`, as spans. */
function sentenceSpans(text: string, from: number, to: number): TextSpan[] {
  const spans: TextSpan[] = [];
  const boundary = /[.!?](?=\s)|\n\s*\n|\n(?=\s*(?:[-*+]|\d{1,3}[.)]|\||#)\s)/g;
  let start = from;
  boundary.lastIndex = from;
  for (let match = boundary.exec(text); match && match.index < to; match = boundary.exec(text)) {
    const end = match.index + (match[0].startsWith('.') || /[!?]/.test(match[0]) ? 1 : 0);
    if (text.slice(start, end).trim()) spans.push({ start, end });
    start = match.index + match[0].length;
  }
  if (text.slice(start, to).trim()) spans.push({ start, end: to });
  return spans.map(({ start, end }) => {
    // A list item's sentence starts after its marker.
    const lead = /^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+)?/.exec(text.slice(start, end))![0].length;
    return { start: start + lead, end: start + text.slice(start, end).trimEnd().length };
  });
}

/**
 * Where an answer's quote of a passage is, within the passage's span (`within`) of `text`: the
 * quote's own words when it is quoted as written (its line breaks and list markers may differ), a
 * quoted table's rows (not its header), or, for a statement in the answer's own words, the
 * sentence of the passage that holds most of its words. Empty when none is found.
 */
export function locateQuote(text: string, quote: string, within: TextSpan = { start: 0, end: text.length }): TextSpan[] {
  const lines = quote
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const isTable = lines.length >= 2 && lines.every((line) => TABLE_ROW.test(line)) && TABLE_SEPARATOR.test(lines[1]!);
  const wanted = isTable ? lines.slice(2) : [lines.join(' ')];
  const found = wanted.map((line) => findWords(text, line, within.start, within.end)).filter((s): s is TextSpan => !!s);
  if (found.length || isTable) return found;
  const statement = new Set(words(quote));
  if (!statement.size) return [];
  let best: { span: TextSpan; overlap: number } | undefined;
  for (const span of sentenceSpans(text, within.start, within.end)) {
    const sentence = new Set(words(text.slice(span.start, span.end)));
    let shared = 0;
    for (const word of statement) if (sentence.has(word)) shared++;
    const overlap = shared / statement.size;
    if (!best || overlap > best.overlap) best = { span, overlap };
  }
  return best && best.overlap >= MIN_OVERLAP ? [best.span] : [];
}

/**
 * What to highlight of a passage found at `passage` in `text`: the quotes of `focus` that are found
 * in it (the one to scroll to is the clicked citation's, else the first found), else the passage.
 */
export function highlightedSpans(text: string, passage: TextSpan, focus?: QuoteFocus): { spans: TextSpan[]; focused: TextSpan } {
  const perQuote = (focus?.quotes ?? []).map((quote) => locateQuote(text, quote, passage));
  const spans = perQuote.flat();
  if (!spans.length) return { spans: [passage], focused: passage };
  const clicked = focus?.index !== undefined ? perQuote[focus.index]?.[0] : undefined;
  return { spans, focused: clicked ?? spans[0]! };
}
