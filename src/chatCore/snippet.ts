/**
 * One-line excerpts of search passages, as the search quick pick's rows and `@docchat /search`
 * show them: plain text (the passage's markdown marks taken out, each sentence once) cut at word
 * boundaries, around the first match of the query. No `vscode` import.
 */

export interface Snippet {
  text: string;
  /** Offsets of the match inside `text`, when one was found. */
  match?: { start: number; end: number };
}

/** Words of a query worth looking for in a passage (longest first). */
export function queryTerms(query: string): string[] {
  const terms = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((t) => t.length >= 2);
  return [...new Set(terms)].sort((a, b) => b.length - a.length);
}

/** Scripts written without spaces between words: emphasis marks sit right against their letters. */
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
/** Emphasis marks (`**`, `__`, `*`, `_`, `~~`) that open or close a run of words, not those inside a word (snake_case). */
const EMPHASIS = new RegExp(
  `(^|[^\\p{L}\\p{N}\\\\*_~]|[${CJK}])(\\*{1,3}|_{1,3}|~~)(?=[^\\s*_~])|(?<=[^\\s*_~\\\\])(\\*{1,3}|_{1,3}|~~)(?=$|[^\\p{L}\\p{N}]|[${CJK}])`,
  'gu',
);

/** A link's or image's text: anything but brackets, or a bracketed run of it (one level). */
const BRACKETED = String.raw`(?:[^[\]]|\[[^[\]]*\])*`;
const IMAGE = new RegExp(String.raw`!\[(${BRACKETED})\]\([^)]*\)`, 'g');
const IMAGE_REFERENCE = new RegExp(String.raw`!\[(${BRACKETED})\]\[[^\]]*\]`, 'g');
const LINK = new RegExp(String.raw`\[(${BRACKETED})\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)`, 'g');

/** One line of markdown as plain text. */
function plainLine(line: string): string {
  const codes: string[] = [];
  let text = line
    // Heading marks, quote marks, list bullets and task boxes at the start of the line.
    .replace(/^\s{0,3}#{1,6}\s+/, '')
    .replace(/^\s*(?:>\s?)+/, '')
    .replace(/^\s*[-*+]\s+(?:\[[ xX]\]\s+)?/, '')
    // HTML comments and tags (`<br>`, `<img …>`), not autolinks.
    .replace(/<!--.*?-->/g, ' ')
    .replace(/<\/?[a-zA-Z][^>\s]*(?:\s[^>]*)?>/g, ' ')
    // Autolinks: the address itself.
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    // Images and links: their text (an image's alt text); reference links and footnote marks too.
    // The text may hold brackets of its own, balanced ("…with the citation [1]…").
    .replace(IMAGE, '$1')
    .replace(IMAGE_REFERENCE, '$1')
    .replace(LINK, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/\[\^[^\]]+\]/g, '')
    // An image or link cut off by the end of the passage: its text.
    .replace(/!?\[([^\]]*)$/, '$1')
    // Inline code: its text, kept apart from what follows (`__init__` is no emphasis).
    .replace(/(`+)([^`]*?)\1/g, (_m, _ticks: string, code: string) => `\uE000${codes.push(code) - 1}\uE000`);
  // Table rows: the cells, apart; the line under the header row: nothing.
  if (/^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(text)) return '';
  if (/^\s*\|.*\|\s*$/.test(text)) {
    text = text
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim())
      .filter(Boolean)
      .join(' · ');
  }
  return text
    .replace(EMPHASIS, (_m, before: string | undefined) => before ?? '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
    .replace(/\uE000(\d+)\uE000/g, (_m, i: string) => codes[Number(i)] ?? '');
}

/** A passage's markdown as plain text on one line: marks, fences and table pipes out, whitespace collapsed. */
export function plainText(markdown: string): string {
  return markdown
    .split(/\r?\n/)
    .filter((line) => !/^\s*(?:`{3,}|~{3,})/.test(line) && !/^\s*\[[^\]]+\]:\s+\S+/.test(line))
    .map(plainLine)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A sentence or line of fewer words may repeat on purpose ("Yes.", "Example"): it is always kept. */
const MIN_REPEAT_WORDS = 2;
/** The same, in characters, for writing without spaces between words. */
const MIN_UNSPACED_REPEAT = 4;
/** A line's list, heading or quote marks, kept when its first sentence is a repeat. */
const LINE_LEAD = /^\s*(?:(?:[-*+]|\d{1,3}[.)]|#{1,6}|>)\s+)*/;

/** The words of markdown text that tell two sentences apart (case, marks and spacing aside). */
function repeatKey(markdown: string): string | undefined {
  // Words as written ("e.g." is one): an abbreviation's dot ends no sentence worth comparing.
  const words = plainLine(markdown)
    .toLowerCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^\p{L}\p{N}]+/gu, ''))
    .filter(Boolean);
  const key = words.join(' ');
  // Writing without spaces is one "word" a sentence: its length tells a sentence from a word.
  return words.length >= MIN_REPEAT_WORDS || (UNSPACED.test(key) && key.length >= MIN_UNSPACED_REPEAT) ? key : undefined;
}

/**
 * A passage's markdown with each sentence and line once: a chunk's overlap may repeat the
 * sentence before it, a document the same line twice. Code blocks and table rows are kept whole
 * (their lines repeat on purpose); a line whose every sentence came before is left out.
 */
export function withoutRepeats(markdown: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      out.push(line);
      continue;
    }
    if (marker) fence = marker;
    if (marker || !line.trim() || /^\s*\|/.test(line)) {
      out.push(line);
      continue;
    }
    const lead = LINE_LEAD.exec(line)![0];
    // Sentences with the spaces after them, so that what is kept reads as it did.
    const parts = line.slice(lead.length).split(/(?<=[.!?])(\s+)/);
    let kept = '';
    for (let i = 0; i < parts.length; i += 2) {
      const key = repeatKey(parts[i]!);
      if (key !== undefined && seen.has(key)) continue;
      if (key !== undefined) seen.add(key);
      kept += parts[i]! + (parts[i + 1] ?? '');
    }
    if (kept.trim()) out.push(lead + kept.trimEnd());
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n');
}

/** Plain text with each sentence once (a repeat wrapped onto other lines than the first). */
function uniqueSentences(text: string): string {
  const seen = new Set<string>();
  return text
    .split(/(?<=[.!?])\s+/)
    .filter((sentence) => {
      const key = repeatKey(sentence);
      if (key === undefined) return true;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .join(' ');
}

/** Writing without spaces between words: any two of its characters are a word boundary. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u3000-\u303f\uff00-\uffef]/u;
/** The furthest a cut moves to reach a word boundary; a longer word (an address, a hash) is cut. */
const MAX_SHIFT = 24;

function isBoundary(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return true;
  const before = text[at - 1]!;
  const after = text[at]!;
  return /\s/.test(before) || /\s/.test(after) || UNSPACED.test(before) || UNSPACED.test(after);
}

/** `at`, moved forward (or back, `direction` -1) to the nearest word boundary within MAX_SHIFT. */
function toBoundary(text: string, at: number, direction: 1 | -1, limit: number): number {
  for (let i = at, moved = 0; moved <= MAX_SHIFT && (direction > 0 ? i <= limit : i >= limit); i += direction, moved++) {
    if (isBoundary(text, i)) return i;
  }
  return at;
}

/**
 * A one-line excerpt of the passage, at most about `width` characters, around the first match
 * of the query: plain text with each sentence and line once, starting and ending at word
 * boundaries, with "…" where it is cut.
 */
export function makeSnippet(content: string, query: string, width = 160): Snippet {
  const text = uniqueSentences(plainText(withoutRepeats(content)));
  const lower = text.toLowerCase();
  let at = -1;
  let length = 0;
  for (const term of queryTerms(query)) {
    const i = lower.indexOf(term);
    if (i >= 0) {
      at = i;
      length = term.length;
      break;
    }
  }
  if (text.length <= width) {
    return at < 0 ? { text } : { text, match: { start: at, end: at + length } };
  }
  const start = at < 0 ? 0 : Math.max(0, Math.min(at - Math.floor((width - length) / 3), text.length - width));
  return cut(text, start, at, length, width);
}

/**
 * A one-line excerpt of the passage from `span` of its markdown (what an answer quoted of it) on:
 * plain text, about `width` characters, cut at word boundaries with "…" where it is cut. It starts
 * there even near the passage's end: what comes before may be another section (neighbouring
 * chunks joined into one source), which the excerpt must not seem to quote. `match` is the span.
 */
export function excerptAt(content: string, span: { start: number; end: number }, width = 160): Snippet {
  const text = plainText(content);
  const quoted = plainText(content.slice(span.start, span.end));
  // Where the span is in the plain text: its words, nearest to where its markdown puts them.
  const near = plainText(content.slice(0, span.start)).length;
  let at = -1;
  for (let i = quoted ? text.indexOf(quoted) : -1; i >= 0; i = text.indexOf(quoted, i + 1)) {
    if (at < 0 || Math.abs(i - near) < Math.abs(at - near)) at = i;
  }
  if (at < 0) at = Math.min(near, text.length);
  const length = Math.min(quoted.length, text.length - at);
  if (text.length <= width && at === 0) return { text, match: { start: 0, end: length } };
  return cut(text, at, at, length, width);
}

/**
 * `text` from `start`, about `width` characters, moved inward to word boundaries (never past
 * the match at `at`, `length` long, when there is one) with "…" where it is cut.
 */
function cut(text: string, from: number, at: number, length: number, width: number): Snippet {
  let start = from;
  let end = Math.min(text.length, start + width);
  // Inward to word boundaries, never past the match (its start, when it runs on past the excerpt).
  const keep = at < 0 ? -1 : at + length <= end ? at + length : at;
  start = toBoundary(text, start, 1, at < 0 ? end : at);
  end = toBoundary(text, end, -1, at < 0 ? start : keep);
  // Not from or up to a table's cell separator: "…· false · offer" reads as "…false · offer".
  while (start < (at < 0 ? end : at) && /[\s·]/.test(text[start]!)) start++;
  while (end > (at < 0 ? start : keep) && /[\s·]/.test(text[end - 1]!)) end--;
  const body = text.slice(start, end).trim();
  const lead = text.slice(start, end).length - text.slice(start, end).trimStart().length;
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  const excerpt = `${prefix}${body}${suffix}`;
  if (at < 0) return { text: excerpt };
  const matchStart = prefix.length + at - start - lead;
  return { text: excerpt, match: { start: matchStart, end: matchStart + Math.min(length, end - at) } };
}
