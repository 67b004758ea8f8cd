/**
 * What `local-extractive` can quote from a source: its sentences (a list item's or a paragraph's),
 * the rows of its tables (each kept with the table's header, so a quote stays a table) and its
 * short code blocks. Headings are not quoted; they name the section of the units below them.
 */
import { tokenize } from '../search/tokenize';

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
  /** Words of the heading the unit is under. */
  heading: string[];
  /** A list item under a heading that names a section of a list of changes ("Added", "[1.2.0]"). */
  changeEntry: boolean;
}

/** Section names of a list of changes (Keep a Changelog's, and release notes'). */
const CHANGE_SECTION =
  /^(?:added|changed|fixed|removed|deprecated|security|features?|bug ?fixes|improvements?|breaking changes?|unreleased|\[?v?\d+\.\d+(?:\.\d+)?\]?.*)$/i;
/** Whether a heading names a section of a list of changes ("Added", "[1.2.0] - 2026-01-05"). */
export function isChangeSection(heading: string): boolean {
  return CHANGE_SECTION.test(heading.replace(/[*_`#]/g, '').trim());
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
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
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

export function unitsOf(source: { n: number; text: string }): Unit[] {
  const out: Unit[] = [];
  blocks(source.text).forEach((block, index) => {
    const heading = tokenize(block.heading);
    const changeEntry = block.listItem && isChangeSection(block.heading);
    const push = (unit: Omit<Unit, 'source' | 'position' | 'tokens' | 'heading' | 'changeEntry'>) => {
      const tokens = tokenize(unit.text);
      if (tokens.length) out.push({ ...unit, source: source.n, position: out.length, tokens, heading, changeEntry });
    };
    if (block.kind === 'code') {
      const text = block.lines.join('\n').trim();
      if (text.length <= MAX_CODE_CHARS) push({ kind: 'code', text, block: index, labelled: false, listItem: false });
      return;
    }
    if (block.kind === 'table') {
      const separatorAt = block.lines.findIndex((l) => TABLE_SEPARATOR.test(l));
      // Without a header (a chunk that starts inside a table) the rows are quoted as rows.
      const header = separatorAt === 1 ? { header: block.lines[0]!, separator: block.lines[1]! } : undefined;
      const rows = header ? block.lines.slice(2) : block.lines.filter((l) => !TABLE_SEPARATOR.test(l));
      for (const row of rows) {
        push({ kind: 'row', text: row, block: index, ...(header ? { table: header } : {}), labelled: false, listItem: false });
      }
      return;
    }
    sentences(block.lines.join('\n')).forEach((text, i) => {
      push({ kind: 'sentence', text, block: index, labelled: LABEL_START.test(text), listItem: block.listItem && i === 0 });
    });
  });
  return out;
}
