/**
 * Finds what an answer quoted of a passage in a text (the passage's document, or the passage
 * itself): the source opener highlights it there, and the Sources list names the section it is in.
 * No `vscode` import, no DOM: the host and the chat webview share it.
 */

export interface TextSpan {
  start: number;
  end: number;
}

/** No two `\s*` side by side (`\s*\|?\s*`): on a long run of spaces that is quadratic. */
const TABLE_SEPARATOR = /^\s*(?:\|\s*)?:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*(?:\|\s*)?$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Words of a statement compared with a source's sentences (markup and short words left out). */
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
/** A paraphrase is placed at the source sentence holding at least this share of its words. */
const MIN_OVERLAP = 0.5;

/**
 * Where `line` is in `text` within `[from, to)`, its words matched across line breaks and indents
 * (and the `>` of a quote's next line). A word that is only `>` marks is left to that gap: matched
 * as a word too, it makes the pattern backtrack exponentially over a run of them. `wholeWords`:
 * the match neither starts nor ends inside a word of `text` ("years" is not found in "often years").
 */
export function findWords(text: string, line: string, from: number, to: number, wholeWords = false): TextSpan | undefined {
  const parts = line
    .trim()
    .split(/\s+/)
    .filter((part) => part && !/^>+$/.test(part));
  if (!parts.length) return undefined;
  const body = parts.map(escapeRegExp).join('\\s+(?:>\\s*)?');
  const pattern = wholeWords ? new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'gu') : new RegExp(body, 'g');
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

/** Where the sentence (table row, list item) of `text` holding position `at` starts. */
export function sentenceStart(text: string, at: number): number {
  let start = at;
  for (const span of sentenceSpans(text, 0, text.length)) {
    if (span.start > at) break;
    start = span.start;
  }
  return Math.min(start, at);
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
 * Where a search's `query` is best met inside a passage (`within` of `text`): the sentence (table
 * row, list item) holding the most of the query's words, each weighed by how few of the passage's
 * sentences hold it, so a word every sentence holds ("settings" under ## Settings) decides nothing.
 * The first of equals; undefined when no sentence holds a word of the query.
 */
export function bestSentenceFor(text: string, query: string, within: TextSpan = { start: 0, end: text.length }): TextSpan | undefined {
  const wanted = new Set(words(query));
  if (!wanted.size) return undefined;
  const sentences = sentenceSpans(text, within.start, within.end).map((span) => ({
    span,
    words: new Set(words(text.slice(span.start, span.end))),
  }));
  const holding = new Map<string, number>();
  for (const word of wanted) holding.set(word, sentences.filter((s) => s.words.has(word)).length);
  let best: { span: TextSpan; weight: number } | undefined;
  for (const sentence of sentences) {
    let weight = 0;
    for (const word of wanted) if (sentence.words.has(word)) weight += Math.log(1 + sentences.length / holding.get(word)!);
    if (weight > 0 && (!best || weight > best.weight)) best = { span: sentence.span, weight };
  }
  return best?.span;
}
