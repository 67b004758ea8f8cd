/**
 * What `local-extractive` can quote from a source: its sentences (a list item's or a paragraph's),
 * the rows of its tables (each kept with the table's header, so a quote stays a table) and its
 * short code blocks. Headings are not quoted; they name the section of the units below them.
 */
import { isChangeSection } from '../../../../src/common/changeLists';
import { isProseLayout, proseOfColumns } from '../../../../src/common/proseLayout';
import { tokenize } from '../../../../src/backend/search/tokenize';

export interface TableQuote {
  /** The header line and the separator line, as written. */
  header: string;
  separator: string;
}

export interface Unit {
  source: number;
  /** Order in the source. */
  position: number;
  kind: 'sentence' | 'row' | 'code';
  /** Sentence text with its line breaks joined, a table row or a code block as written. */
  text: string;
  tokens: string[];
  /** The block (paragraph, list item, table) the unit belongs to, numbered within the source. */
  block: number;
  /** Rows: their table's header. */
  table?: TableQuote;
  /** The text starts with an emphasised label (`**Sync Now**`, `` `npm start` ``). */
  labelled: boolean;
  /** The unit is a list item, or starts one. */
  listItem: boolean;
  /** Words of the heading the unit is under, and of its source's title. */
  heading: string[];
  /** A list item under a heading that names a section of a list of changes ("Added", "[1.2.0]"). */
  changeEntry: boolean;
  /**
   * How much the text reads as language, 0 to 1: 1 for prose, table rows and code; less for a
   * sentence that is mostly not words (OCR noise of a scanned page) or a run of words far longer
   * than a sentence without sentence punctuation (`textQuality`).
   */
  quality: number;
}

const LIST_MARKER = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;
const HEADING = /^\s{0,3}#{1,6}\s/;
const TABLE_LINE = /^\s*\|.*\|\s*$/;
/** No two `\s*` side by side (`\s*\|?\s*`): on a long run of spaces that is quadratic. */
const TABLE_SEPARATOR = /^\s*(?:\|\s*)?:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*(?:\|\s*)?$/;
const FENCE = /^\s*(`{3,}|~{3,})/;
/** After `.`, `!` or `?` (not an abbreviation such as "e.g."), before a capital, digit, quote or markup. */
const SENTENCE_BOUNDARY = /(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx)\.)(?<=[.!?]["')\]*_`]?)\s+(?=["'([*_`]*[\p{Lu}\p{N}])/u;
/** A sentence this short ("Plan, then act.") is a label: it is quoted with the sentence after it. */
const MIN_SENTENCE_WORDS = 4;
const MAX_CODE_CHARS = 600;
const LABEL_START = /^(?:\*\*|__|`)[^*_`]/;
/** A sentence that is only pictures (`![alt](path)`): their alt text describes a picture, it says nothing to quote. */
const ONLY_IMAGES = /^(?:!\[[^\]\n]*\]\([^)\n]*\)\s*)+$/;
/**
 * Line breaks written as HTML (`<br>`, `<br/>`, `<br />`): converters keep the lines of a table
 * cell apart with them. The chat renders no HTML, so quoted (and weighed) they are a space; in a
 * code span one is code, kept as written.
 */
const HTML_BREAK_OR_CODE = /`+[^`\n]*`+|<br\s*\/?>/gi;
/** The text with its HTML line breaks (outside code spans) as spaces. */
export function withoutBreaks(text: string): string {
  return text.replace(HTML_BREAK_OR_CODE, (match) => (match.startsWith('`') ? match : ' '));
}

interface Block {
  kind: 'text' | 'table' | 'code';
  lines: string[];
  listItem: boolean;
  heading: string;
}

/** Paragraphs, list items (with their continuation lines), tables and fenced code, in order. */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  let current: Block | undefined;
  let fence: string | undefined;
  let heading = '';
  const close = () => {
    if (current && current.lines.some((l) => l.trim())) out.push(current);
    current = undefined;
  };
  for (const written of text.replace(/\r\n?/g, '\n').split('\n')) {
    // Code is quoted as written; elsewhere an HTML line break is a space.
    const line = fence !== undefined || FENCE.test(written) ? written : withoutBreaks(written);
    if (fence !== undefined) {
      current!.lines.push(line);
      if (line.trim().startsWith(fence)) {
        fence = undefined;
        close();
      }
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening) {
      close();
      fence = opening[1]!;
      current = { kind: 'code', lines: [line], listItem: false, heading };
      continue;
    }
    if (!line.trim() || HEADING.test(line)) {
      close();
      if (line.trim()) heading = line.replace(HEADING, '');
      continue;
    }
    if (TABLE_LINE.test(line)) {
      if (current?.kind !== 'table') {
        close();
        current = { kind: 'table', lines: [], listItem: false, heading };
      }
      current.lines.push(line.trim());
      continue;
    }
    if (current?.kind === 'table' || current?.kind === 'code') close();
    if (LIST_MARKER.test(line)) {
      close();
      current = { kind: 'text', lines: [line.replace(LIST_MARKER, '')], listItem: true, heading };
      continue;
    }
    current ??= { kind: 'text', lines: [], listItem: false, heading };
    current.lines.push(line);
  }
  close();
  return out;
}

/**
 * A table row as text: its cells apart, joined as search excerpts join them ("a · b · c"), for a
 * row quoted without its table's header.
 */
export function rowCells(row: string): string {
  return cellsOfRow(row).filter(Boolean).join(' · ');
}

/** A table row's cells in order, empty ones too, trimmed. */
function cellsOfRow(row: string): string[] {
  return row
    .trim()
    .replace(/^\||(?<!\\)\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** A sentence longer than this without sentence punctuation is no sentence (a scanned page's header run together). */
export const RUN_ON_CHARS = 300;
/** Below this share of words that read as words, a text is mostly noise (OCR of a scan, a page header). */
export const WORDLIKE_SHARE = 0.8;

/** Code spans are words whatever their characters. */
const CODE_SPAN = /`[^`\n]*`/g;
/** A Markdown link reads as its text. */
const LINK = /\[([^\]\n]*)\]\([^)\s]*\)/g;
/** Punctuation and markup around a word, not part of it. */
const AROUND = /^[\s"'“”‘’([{<*_~]+|[\s"'“”‘’)\]}>*_~.,;:!?…]+$/gu;
/** A word: letters (a capital first, or all capitals as in an acronym), with inner apostrophes or hyphens. */
const WORD = /^(?:\p{Lu}?\p{Ll}+|\p{Lu}{2,6})(?:['’-]\p{L}+)*$/u;
/** A figure: "42", "0.687", "+0.068", "12/03/2026", "15:04", "3%", "1.9×", "$1,200". */
const FIGURE = /^[+−-]?[$€£]?\p{N}+(?:[.,:/-]\p{N}+)*(?:%|×|x|st|nd|rd|th|s)?$/u;
/** A name made of parts: "docchat.search.maxResults", "src/chatCore", "Recall@5", "user@example.com". */
const COMPOUND = /^\p{L}[\p{L}\p{N}_]*(?:[./:@#-]+[\p{L}\p{N}_]+)+\/?$/u;
/** Single letters that are words. */
const ONE_LETTER = /^[aAI]$/;
/** Punctuation standing alone between words: neither a word nor noise. */
const STANDALONE = /^[,.;:()[\]%&+=≥≤×→–—-]{1,3}$/;

/** Whether a token (whitespace-separated, punctuation around it removed) reads as a word, a figure or a name. */
function wordlike(bare: string): boolean {
  return WORD.test(bare) || FIGURE.test(bare) || COMPOUND.test(bare) || ONE_LETTER.test(bare);
}

/** The share of a text's tokens that read as words, figures or names (code spans and link texts count as words). */
export function wordlikeShare(text: string): number {
  const tokens = text
    .replace(CODE_SPAN, ' code ')
    .replace(LINK, ' $1 ')
    .split(/\s+/)
    .filter((token) => token && !STANDALONE.test(token));
  if (!tokens.length) return 1;
  return tokens.filter((token) => wordlike(token.replace(AROUND, ''))).length / tokens.length;
}

/** A text far longer than a sentence with no sentence punctuation in it. */
/** The most an answer quotes (its budget, `DEFAULT_SELECTION.maxChars`): a longer sentence is quoted in pieces. */
export const MAX_UNIT_CHARS = 1500;

/**
 * A sentence longer than an answer may quote (a page of text with no sentence break, a hostile
 * source) as pieces of whole words of at most MAX_UNIT_CHARS each, so the answer quotes the piece
 * that answers instead of the whole run. Linear in the text's length.
 */
export function piecesOf(text: string): string[] {
  if (text.length <= MAX_UNIT_CHARS) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + MAX_UNIT_CHARS, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space;
    }
    const piece = text.slice(start, end).trim();
    if (piece) pieces.push(piece);
    start = end;
  }
  return pieces;
}

/**
 * A block of lines this short at the median is a list of lines (an address, a receipt, a form's
 * fields, a scan's header), not a paragraph wrapped to a width: wrapped prose runs to 60–100
 * characters a line.
 */
const SHORT_LINE = 40;
/** A line or sentence that opens in lower case: it carries on the text before it. */
export const OPENS_LOWER = /^\p{Ll}/u;

/**
 * Whether a block's lines stand each on its own: at least three, at the median no longer than
 * SHORT_LINE, and at most a third of them (after the first) carrying on the sentence of the line
 * before by opening in lower case, as a narrow column of prose does. Joined into one paragraph, a
 * receipt's "Cashier: Emily Rodriguez", "Store #0342" and "TOTAL $821.14" would be one sentence of
 * a thousand characters.
 */
export function linesStandAlone(lines: readonly string[]): boolean {
  const trimmed = lines.map((line) => line.trim()).filter(Boolean);
  if (trimmed.length < 3) return false;
  const lengths = trimmed.map((line) => line.length).sort((a, b) => a - b);
  if (lengths[Math.floor((lengths.length - 1) / 2)]! > SHORT_LINE) return false;
  const carried = trimmed.slice(1).filter((line) => OPENS_LOWER.test(line)).length;
  return carried * 3 <= trimmed.length - 1;
}

/** Lines as they stand, a line that opens in lower case joined to the one before (a wrapped sentence). */
export function lineGroups(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines.map((l) => l.trim()).filter(Boolean)) {
    if (out.length && OPENS_LOWER.test(line)) out[out.length - 1] += ` ${line}`;
    else out.push(line);
  }
  return out;
}

export function isRunOn(text: string): boolean {
  // Sentence punctuation ends a word ("report."), not a stray mark of a scan (" ; ").
  return text.length > RUN_ON_CHARS && !/[\p{L}\p{N})"'”’`][.!?;:](?=\s|$)/u.test(text);
}

/**
 * How much a sentence reads as language, 0 to 1 (`Unit.quality`): the share of its words that
 * read as words, figures or names, against `WORDLIKE_SHARE` (cubed: noise falls fast), and, for
 * a run-on, the length of a long sentence against its own.
 */
export function textQuality(text: string): number {
  const share = wordlikeShare(text);
  const words = share >= WORDLIKE_SHARE ? 1 : (share / WORDLIKE_SHARE) ** 3;
  const length = isRunOn(text) ? RUN_ON_CHARS / text.length : 1;
  return words * length;
}

/** A paragraph's sentences, a label too short to stand alone joined to the sentence after it. */
export function sentences(paragraph: string): string[] {
  const parts = paragraph.replace(/\s+/g, ' ').trim().split(SENTENCE_BOUNDARY);
  const out: string[] = [];
  let pending = '';
  for (const part of parts) {
    const text = pending ? `${pending} ${part}` : part;
    if (text.split(' ').length < MIN_SENTENCE_WORDS && part !== parts[parts.length - 1]) {
      pending = text;
      continue;
    }
    pending = '';
    out.push(text);
  }
  if (pending) out.push(pending);
  return out.filter((s) => s.length >= 3);
}

/** A file name's words, without its extension: "RECEIPT-2024_retail_purchase.md" → receipt, 2024, retail, purchase. */
const titleWords = (title: string | undefined) => tokenize((title ?? '').replace(/\.[A-Za-z0-9]{1,5}$/, ''));

/**
 * The units of a source. Its title (the file name) heads every unit, as the heading it is under
 * does: "What was the total on the receipt?" names the file by "receipt", and asks for the total.
 */
export function unitsOf(source: { n: number; text: string; title?: string }): Unit[] {
  const out: Unit[] = [];
  const title = titleWords(source.title);
  blocks(source.text).forEach((block, index) => {
    const heading = [...tokenize(block.heading), ...title];
    const changeEntry = block.listItem && isChangeSection(block.heading);
    const push = (unit: Omit<Unit, 'source' | 'position' | 'tokens' | 'heading' | 'changeEntry' | 'quality'>) => {
      const tokens = tokenize(unit.text);
      const quality = unit.kind === 'sentence' ? textQuality(unit.text) : 1;
      if (tokens.length) out.push({ ...unit, source: source.n, position: out.length, tokens, heading, changeEntry, quality });
    };
    const pushSentences = (lines: readonly string[], listItem: boolean) => {
      // A run-on of several lines (OCR of a scanned page, lines without punctuation) is split at its
      // line breaks: a line is closer to a sentence than the run of them.
      // A block of short lines (`linesStandAlone`) is quoted line by line.
      const joined = linesStandAlone(lines) ? undefined : sentences(lines.join('\n'));
      const split = !joined
        ? lineGroups(lines).flatMap((line) => sentences(line))
        : joined.some(isRunOn) && lines.length > 1
          ? lines.flatMap((line) => sentences(line))
          : joined;
      split
        .flatMap((text) => piecesOf(text))
        .forEach((text, i) => {
          if (ONLY_IMAGES.test(text)) return;
          push({ kind: 'sentence', text, block: index, labelled: LABEL_START.test(text), listItem: listItem && i === 0 });
        });
    };
    if (block.kind === 'code') {
      const text = block.lines.join('\n').trim();
      if (text.length <= MAX_CODE_CHARS) push({ kind: 'code', text, block: index, labelled: false, listItem: false });
      return;
    }
    if (block.kind === 'table') {
      const separatorAt = block.lines.findIndex((l) => TABLE_SEPARATOR.test(l));
      const lines = block.lines.filter((l) => !TABLE_SEPARATOR.test(l));
      // Prose laid out in columns is quoted as its sentences, column by column. Only a table with
      // its header tells: a chunk that starts inside a table starts at any row.
      const cells = lines.map(cellsOfRow);
      if (separatorAt === 1 && isProseLayout(cells)) {
        for (const paragraph of proseOfColumns(cells)) pushSentences([paragraph], false);
        return;
      }
      // Without a header (a chunk that starts inside a table) the rows are quoted as rows.
      const header = separatorAt === 1 ? { header: block.lines[0]!, separator: block.lines[1]! } : undefined;
      const rows = header ? block.lines.slice(2) : lines;
      for (const row of rows) {
        push({ kind: 'row', text: row, block: index, ...(header ? { table: header } : {}), labelled: false, listItem: false });
      }
      return;
    }
    pushSentences(block.lines, block.listItem);
  });
  return out;
}
