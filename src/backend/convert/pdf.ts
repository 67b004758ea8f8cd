/**
 * PDF text extraction with unpdf (PDF.js, serverless build). Pages become `## Page N` sections.
 * Pictures on a page (a scanned page is one picture) are decoded by PDF.js and read by OCR;
 * with skip_ocr they are not, and the notes name the pages left out.
 */
import { note, progress, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { isProseLayout } from '../../common/proseLayout';
import { markdownTable } from './markdown';
import { checkImageSize, cropPgm, encodePgm, enlargeSmallScan, missingLines, ocrSkippedMessage, readImage } from './ocr';

/** Pages beyond this are "too large" for the local backend. */
export const MAX_PDF_PAGES = 2000;

/**
 * PDF.js 5 calls ArrayBuffer#transferToFixedLength (ES2024), which Node 20 lacks; without it
 * font loading fails and the operator lists used to find images come back incomplete.
 */
function polyfillNode20(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: unknown };
  if (typeof proto.transferToFixedLength === 'function') return;
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number) {
      const size = length ?? this.byteLength;
      const copy = new ArrayBuffer(size);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
      return copy;
    },
  });
}

interface TextItemLike {
  str: string;
  hasEOL?: boolean;
  transform?: number[];
  height?: number;
  /** PDF.js's name for the item's font (its object in the page's common objects). */
  fontName?: string;
}

const squashSpaces = (text: string) => text.trim().replace(/\s+/g, ' ');

/** Text lines shorter than this (characters) can be headings; a longer line is body text set large. */
const MAX_HEADING_CHARS = 150;

/**
 * The markdown heading level of a line set in `size` on a page whose body text is `body`: a line
 * clearly larger than the body is a heading, the larger the higher; 0 for body text.
 */
export function headingLevel(size: number, body: number): number {
  if (!(body > 0)) return 0;
  const ratio = size / body;
  return ratio >= 1.9 ? 1 : ratio >= 1.45 ? 2 : ratio >= 1.18 ? 3 : 0;
}

/** A bold line at body size is a heading at this level, below the levels of headings set larger. */
export const BOLD_HEADING_LEVEL = 4;
/** A bold line longer than this (characters) is a bold sentence, not a heading. */
const MAX_BOLD_HEADING_CHARS = 80;
/** A line ending like a sentence or a lead-in ("Note:") is not a heading. */
const SENTENCE_END = /[.,;:!?…]$/u;
/** A dot leader (a table of contents' line) is not in a heading. */
const DOT_LEADER = /(\.\s?){4,}|…{2,}/u;

interface HeadingLine {
  text: string;
  size: number;
  blankBefore: boolean;
  /** Every run of the line is set in a bold font. */
  bold?: boolean;
  /** Every run of the line is set in an italic font. */
  italic?: boolean;
  /** A table follows the line. */
  beforeTable?: boolean;
}

/**
 * A caption ("Figure 3", "Table 2.1: …", "Table IV") names a picture or table; it is not a heading.
 * A roman numeral is a word of its own: "Table views" and "Chart index" are headings.
 */
const CAPTION = /^(fig(ure)?|table|tab|chart|exhibit)\.?\s*(\d|[IVX]+\b)/iu;
/** A section number at the start of a line ("2", "2.3", "2.3.1.", "A.1", "B.") followed by its title. */
const SECTION_NUMBER = /^(\d{1,2}(\.\d{1,2}){0,4}\.?|[A-Z](\.\d{1,2}){1,4}\.?|[A-Z]\.)\s+(?=\p{L})/u;

/** The body text size of lines (with their tables' rows): the font height most of their characters are set in, rounded to half a point. */
function bodySize(lines: Iterable<{ text: string; size: number }>): number {
  return bodyOf(lines).size;
}

/** The body text size of lines, and how many characters are set in it. */
function bodyOf(lines: Iterable<{ text: string; size: number }>): { size: number; chars: number } {
  const weight = new Map<number, number>();
  for (const line of lines) {
    if (!Number.isFinite(line.size)) continue;
    const size = Math.round(line.size * 2) / 2;
    weight.set(size, (weight.get(size) ?? 0) + line.text.trim().length);
  }
  const [size, chars] = [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] ?? [0, 0];
  return { size, chars };
}

/**
 * The body size each page's headings are measured against: the page's own when it holds as much
 * body text as a typical page of the document (half the median page's), the document's otherwise
 * (a cover, a page of figures or a few large lines has too little text to tell its body by).
 */
function pageBodies(pages: readonly (readonly { text: string; size: number }[])[]): number[] {
  const own = pages.map((lines) => bodyOf(lines));
  const document = bodyOf(pages.flat()).size;
  const typical = median(own.filter((b) => b.chars > 0).map((b) => b.chars));
  return own.map((b) => (b.chars > 0 && b.chars >= 0.5 * typical ? b.size : document));
}

/** Two lines are set in one size (a heading's wrapped lines are): within a quarter point. */
const sameSize = (a: number, b: number) => Math.abs(a - b) <= 0.25;

/**
 * The heading level of each line of a page (0: body text), against `documentBody` (see
 * {@link pageBodies}; the page's own body size when not given). A heading wraps over two lines of
 * one size at most, with at most a label line in another size, so a longer run of large lines is
 * text set large (a form, a banner). A short line standing alone (space above it or first on the
 * page, no sentence punctuation at its end, not a caption) and followed by body text in another
 * style is a heading below the larger ones when it is set at body size entirely in bold or in
 * italic, or begins with a section number ("2.3 Results") and is set a little larger than the body.
 */
function headingLevels(lines: HeadingLine[], tableLines: readonly { text: string; size: number }[] = [], documentBody?: number): number[] {
  const body = documentBody || bodySize([...lines, ...tableLines]);
  const levels = lines.map((line) => {
    const plain = line.text.trim();
    return plain.length >= 2 && plain.length <= MAX_HEADING_CHARS && /\p{L}/u.test(plain) && Number.isFinite(line.size)
      ? headingLevel(line.size, body)
      : 0;
  });
  // A heading wraps over two lines at most: a longer run of large lines in one size is text set large (a form, a banner).
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (
      levels[i] &&
      j < lines.length &&
      levels[j] === levels[i] &&
      sameSize(lines[j]!.size, lines[j - 1]!.size) &&
      !lines[j]!.blankBefore
    ) {
      j++;
    }
    const joined = lines.slice(i, j).reduce((n, l) => n + l.text.trim().length + 1, 0);
    if (j - i > 2 || joined > MAX_HEADING_CHARS) for (let k = i; k < j; k++) levels[k] = 0;
    i = j;
  }
  // A heading of two lines may carry a line in another size (a label such as "Chapter 3" above it); more
  // large lines in a row, whatever their sizes, are a banner.
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (levels[i] && j < lines.length && levels[j] && !lines[j]!.blankBefore) j++;
    if (j - i > 3) for (let k = i; k < j; k++) levels[k] = 0;
    i = j;
  }
  // Not smaller than the body (a footnote) nor large enough to be a heading by its size alone.
  const atBodySize = (size: number) => Number.isFinite(size) && body > 0 && size >= 0.88 * body && !headingLevel(size, body);
  // Set a little larger than the body (at least half a point and 5 %), yet not a heading by size alone.
  const aboveBody = (size: number) => atBodySize(size) && size >= body * 1.05 && size >= body + 0.5;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1];
    const plain = squashSpaces(line.text);
    const numbered = SECTION_NUMBER.exec(plain);
    // Set apart from the body by weight or slant, or numbered as a section and set a little larger.
    const style = line.bold ? 'bold' : line.italic ? 'italic' : numbered && aboveBody(line.size) ? 'numbered' : undefined;
    if (levels[i] || !style || !atBodySize(line.size) || line.beforeTable || !next) continue;
    if (
      plain.length < 2 ||
      plain.length > MAX_BOLD_HEADING_CHARS ||
      !/\p{L}/u.test(plain) ||
      SENTENCE_END.test(plain) ||
      DOT_LEADER.test(plain) ||
      CAPTION.test(plain)
    ) {
      continue;
    }
    if (!(line.blankBefore || i === 0)) continue;
    // Followed by body text: a line not in the same style, not set larger, and not a heading itself.
    const sameStyle = style === 'bold' ? next.bold : style === 'italic' ? next.italic || next.bold : next.size >= line.size - 0.25;
    if (sameStyle || levels[i + 1] || !(next.size <= line.size * 1.05) || squashSpaces(next.text).length < 2) continue;
    // A numbered heading's level follows its number's depth ("2" above "2.3"), below the headings set larger.
    const depth = numbered ? (numbered[0].match(/\.\d/g)?.length ?? 0) : 0;
    levels[i] = style === 'numbered' ? Math.min(BOLD_HEADING_LEVEL, 3 + depth) : BOLD_HEADING_LEVEL;
  }
  return levels;
}

/**
 * Lines from the order and positions of PDF.js text items; a large vertical gap is a paragraph
 * break, and a short line set clearly larger than the page's body text (the size most of its
 * characters have) is a markdown heading, its level by how much larger.
 */
export function textFromItems(items: readonly unknown[]): string {
  interface Line {
    text: string;
    /** The smallest font height of the line's non-blank items. */
    min: number;
    blankBefore: boolean;
  }
  const lines: Line[] = [];
  let current: Line | undefined;
  let blankNext = false;
  const end = (blank = false) => {
    if (current) lines.push(current);
    current = undefined;
    blankNext ||= blank;
  };
  let lastY: number | undefined;
  let lastHeight = 0;
  for (const raw of items) {
    const item = raw as TextItemLike;
    if (typeof item?.str !== 'string') continue;
    const y = item.transform?.[5] ?? lastY ?? 0;
    const height = Math.abs(item.transform?.[3] ?? 0) || item.height || 10;
    if (lastY !== undefined && item.str) {
      const gap = lastY - y;
      if (gap > Math.max(height, lastHeight) * 1.8) end(true);
      else if (Math.abs(gap) > height * 0.5) end();
    }
    if (item.str) {
      current ??= { text: '', min: Infinity, blankBefore: blankNext };
      blankNext = false;
      current.text += item.str;
      if (item.str.trim()) current.min = Math.min(current.min, height);
    }
    if (item.hasEOL) end();
    if (item.str) {
      lastY = y;
      lastHeight = height;
    }
  }
  end();
  return renderBlocks(lines.map((l) => ({ kind: 'line', text: l.text, size: l.min, blankBefore: l.blankBefore })));
}

/** The lines of blocks, and their tables' rows, with their sizes (what the body size is measured on). */
function sizedLines(blocks: readonly Block[]): { text: string; size: number }[] {
  return blocks.flatMap((b) =>
    b.kind === 'table' ? (b.rows ?? []).map((row) => ({ text: row.runs.map((run) => run.text).join(' '), size: row.size })) : [b],
  );
}

/**
 * Lines and tables as markdown: a short line set clearly larger than the body text (the
 * document's `body` size, or the page's) is a heading (two lines of one heading are joined).
 */
function renderBlocks(blocks: readonly Block[], body?: number): string {
  const lines: HeadingLine[] = [];
  for (const [i, b] of blocks.entries()) {
    if (b.kind === 'line') {
      lines.push({
        text: b.text,
        size: b.size,
        blankBefore: b.blankBefore,
        bold: b.bold,
        italic: b.italic,
        beforeTable: blocks[i + 1]?.kind === 'table',
      });
    }
  }
  const levels = headingLevels(lines, body ? [] : sizedLines(blocks.filter((b) => b.kind === 'table')), body);
  const out: string[] = [];
  let k = 0;
  let lastLevel = 0;
  let lastSize = NaN;
  for (const block of blocks) {
    if (block.kind === 'table') {
      out.push('', block.markdown, '');
      lastLevel = 0;
      continue;
    }
    const text = block.text.replace(/\s+$/, '');
    const plain = squashSpaces(text);
    const level = levels[k++]!;
    if (level && lastLevel === level && sameSize(block.size, lastSize) && !block.blankBefore) {
      // The second line of a wrapped heading.
      out[out.length - 2] += ` ${plain}`;
    } else if (level) out.push('', `${'#'.repeat(level)} ${plain}`, '');
    else {
      if (block.blankBefore) out.push('');
      out.push(text);
    }
    lastLevel = level;
    lastSize = block.size;
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A run of text on one baseline: the items of a phrase, closer together than an em. */
interface Run {
  x: number;
  end: number;
  y: number;
  /** The font height most of its characters are set in. */
  size: number;
  /** How many of its characters are set in each size (absent: all in `size`). */
  weights?: Map<number, number>;
  text: string;
  /** Every item of the run is set in a bold font. */
  bold?: boolean;
  /** Every item of the run is set in an italic font. */
  italic?: boolean;
}

/**
 * Run `into` with the characters of `from` added (call before joining their text): its size stays
 * the one most of its characters are set in (a footnote mark or an inline symbol does not change it).
 */
function addSize(into: Run, from: Pick<Run, 'size' | 'text' | 'weights'>): void {
  into.weights ??= new Map([[into.size, into.text.length]]);
  for (const [size, chars] of from.weights ?? [[from.size, from.text.length]]) {
    const weight = (into.weights.get(size) ?? 0) + chars;
    into.weights.set(size, weight);
    // Only this size's count grew: it becomes the run's size when it now holds more characters.
    if (weight > into.weights.get(into.size)!) into.size = size;
  }
}

/** A visual line: the runs that share a baseline, left to right. */
interface Row {
  y: number;
  size: number;
  runs: Run[];
  /** Most of its letters are of a right-to-left script: its runs are read right to left. */
  rtl?: boolean;
}

const RTL_LETTERS = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const isRightToLeft = (text: string) => (text.match(RTL_LETTERS)?.length ?? 0) * 2 > (text.match(/\p{L}/gu)?.length ?? 0);

/** Items further apart than this many font heights on one baseline are apart (table cells, columns). */
const RUN_GAP = 1;
/** Items whose baselines differ by at most this many font heights share a baseline (sub- and superscripts differ by more). */
const BASELINE_TOLERANCE = 0.3;
/** An average glyph's advance in font heights, for an item PDF.js gives no width (Latin text sets about 0.5). */
const GLYPH_ADVANCE = 0.5;
/** A generous glyph advance in font heights: where sideways text may reach, so a header's top is not underestimated. */
const WIDE_GLYPH_ADVANCE = 0.6;
/** A line of its own at most this many font heights below the line above continues that line's cell (single to one-and-a-half spacing). */
const WRAPPED_CELL_GAP = 1.5;

const LIST_MARKER = /^([•◦▪▫●○■□►▶‣⁃∙·*–-]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxIVX]{1,4}[.)])$/u;

/**
 * Runs from PDF.js text items in the order they are drawn: items on one baseline less than an em
 * apart are one run. Undefined when items have no positions or much of the text is rotated (the
 * page is then read in drawing order).
 */
/** Text set sideways: its first item's baseline start, size, and whether it reads upwards (turned a quarter left). */
interface Turned {
  text: string;
  x: number;
  y: number;
  size: number;
  up: boolean;
}

function runsFromItems(items: readonly unknown[], fonts: FontStyles = {}): { runs: Run[]; turned: Turned[] } | undefined {
  const runs: Run[] = [];
  const turned: Turned[] = [];
  let current: Run | undefined;
  let space = false;
  let chars = 0;
  let rotated = 0;
  let turnedEnd = false;
  // Whether the current run holds right-to-left letters (only its first item can: such a run is never extended).
  let currentRtl = false;
  for (const raw of items) {
    const item = raw as TextItemLike & { width?: number };
    if (typeof item?.str !== 'string') continue;
    const t = item.transform;
    if (!t || t.length < 6 || !t.every(Number.isFinite)) return undefined;
    if (!item.str.trim()) {
      if (item.str) space = true;
      continue;
    }
    const [a, b, c, d, x, y] = t as [number, number, number, number, number, number];
    chars += item.str.length;
    if (Math.abs(b) > 0.1 * Math.abs(a) || a <= 0) {
      rotated += item.str.length;
      // Text set sideways (a margin label, a narrow column's header): kept, after the page's text unless it heads a table's column.
      const size = Math.hypot(a, b) || item.height || 10;
      const up = Math.abs(a) < 0.1 * Math.abs(b) && b > 0 && c < 0;
      const last = turned[turned.length - 1];
      // An item continues the sideways line before it unless that line ended or stands on another baseline.
      if (last && !turnedEnd && last.up === up && (!up || Math.abs(last.x - x) <= BASELINE_TOLERANCE * size)) last.text += item.str;
      else turned.push({ text: item.str, x, y, size, up });
      turnedEnd = !!item.hasEOL;
      continue;
    }
    const size = Math.abs(d) || item.height || 10;
    const width = item.width && item.width > 0 ? item.width : item.str.length * size * GLYPH_ADVANCE;
    const bold = !!item.fontName && !!fonts.boldFonts?.has(item.fontName);
    const italic = !!item.fontName && !!fonts.italicFonts?.has(item.fontName);
    // Right-to-left text is joined by rowsFromRuns, from its right end.
    const rtl = RTL_LETTER.test(item.str);
    const near =
      current &&
      !rtl &&
      !currentRtl &&
      Math.abs(y - current.y) <= BASELINE_TOLERANCE * Math.max(size, current.size) &&
      x >= current.end - 0.5 * size &&
      x - current.end <= RUN_GAP * Math.max(size, current.size);
    if (current && near) {
      addSize(current, { size, text: item.str });
      current.text += (space || x - current.end > 0.15 * size ? ' ' : '') + item.str;
      current.end = Math.max(current.end, x + width);
      current.bold &&= bold;
      current.italic &&= italic;
    } else {
      runs.push((current = { x, end: x + width, y, size, text: item.str, bold, italic }));
      currentRtl = rtl;
    }
    space = !!item.hasEOL;
  }
  return rotated > chars * 0.2 ? undefined : { runs, turned };
}

/** Runs grouped by baseline, top to bottom; runs of a row less than an em apart are joined, a run drawn twice (bold by overprinting) once. */
function rowsFromRuns(runs: Run[]): Row[] {
  const rows: Row[] = [];
  for (const run of [...runs].sort((p, q) => q.y - p.y || p.x - q.x)) {
    const row = rows[rows.length - 1];
    // A superscript or subscript (a footnote mark) is set up to 0.45 em off its line's baseline.
    if (row && Math.abs(row.y - run.y) <= 0.45 * Math.max(row.size, run.size)) {
      row.runs.push({ ...run, weights: run.weights && new Map(run.weights) });
      if (run.size > row.size * 1.2) row.y = run.y;
      row.size = Math.min(row.size, run.size);
    } else rows.push({ y: run.y, size: run.size, runs: [{ ...run, weights: run.weights && new Map(run.weights) }] });
  }
  for (const row of rows) {
    // A right-to-left line is joined from its right end.
    const rtl = isRightToLeft(row.runs.map((run) => run.text).join(''));
    row.rtl = rtl;
    row.runs.sort((p, q) => (rtl ? q.end - p.end : p.x - q.x));
    const merged: Run[] = [];
    for (const run of row.runs) {
      const last = merged[merged.length - 1];
      const gap = last ? (rtl ? last.x - run.end : run.x - last.end) : Infinity;
      if (last && gap < 0 && run.text === last.text) continue;
      if (last && gap <= RUN_GAP * Math.max(run.size, last.size)) {
        addSize(last, run);
        last.text += (gap > 0.15 * run.size ? ' ' : '') + run.text;
        last.x = Math.min(last.x, run.x);
        last.end = Math.max(last.end, run.end);
        last.bold &&= run.bold;
        last.italic &&= run.italic;
      } else merged.push(run);
    }
    merged.sort((p, q) => p.x - q.x);
    // A list marker set apart from its text (a bullet, "1.", "a)") belongs to the text, not to a column of its own.
    for (let i = 0; i + 1 < merged.length; i++) {
      if (LIST_MARKER.test(merged[i]!.text.trim()) && merged[i + 1]!.x - merged[i]!.end <= 4 * merged[i]!.size) {
        merged[i] = { ...merged[i + 1]!, x: merged[i]!.x, text: `${merged[i]!.text.trim()} ${merged[i + 1]!.text}` };
        merged.splice(i + 1, 1);
      }
    }
    row.runs = merged;
    // The row's size is its main text's, not a footnote mark's.
    const sizes = new Map<number, number>();
    for (const run of merged) sizes.set(run.size, (sizes.get(run.size) ?? 0) + run.text.length);
    row.size = [...sizes].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  }
  return rows;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
};

/**
 * The gutter of a page set in two columns: an x range near the middle of the text that few rows
 * cross, with at least five rows of text on each side whose runs fill most of their column (prose,
 * not the short cells of a table). Undefined on a page in one column.
 */
function findGutter(rows: Row[]): { start: number; end: number } | undefined {
  if (rows.length < 10) return undefined;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const row of rows) {
    for (const run of row.runs) {
      minX = Math.min(minX, run.x);
      maxX = Math.max(maxX, run.end);
    }
  }
  const width = Math.ceil(maxX - minX);
  if (!(width > 0) || width > 20_000) return undefined;
  // How many runs cover each point across the text (runs of a row do not overlap), by differences.
  const cover = new Int32Array(width + 2);
  for (const row of rows) {
    for (const run of row.runs) {
      cover[Math.max(0, Math.floor(run.x - minX))]!++;
      cover[Math.min(width, Math.ceil(run.end - minX)) + 1]!--;
    }
  }
  for (let b = 1; b <= width; b++) cover[b]! += cover[b - 1]!;
  cover[width + 1] = 0;
  let best = Infinity;
  for (let b = Math.floor(width * 0.25); b <= Math.ceil(width * 0.75); b++) best = Math.min(best, cover[b]!);
  if (best > rows.length * 0.5) return undefined;
  // The widest stretch of bins crossed by that fewest number of rows.
  let start = -1;
  let gap: { start: number; end: number } | undefined;
  for (let b = Math.floor(width * 0.25); b <= Math.ceil(width * 0.75) + 1; b++) {
    if (b <= Math.ceil(width * 0.75) && cover[b] === best) {
      if (start < 0) start = b;
    } else if (start >= 0) {
      if (!gap || b - start > gap.end - gap.start) gap = { start, end: b };
      start = -1;
    }
  }
  if (!gap) return undefined;
  // Extend it to where text starts on either side.
  while (gap.start > 0 && cover[gap.start - 1] === best) gap.start--;
  while (gap.end <= width && cover[gap.end] === best) gap.end++;
  const body = median(rows.map((r) => r.size));
  if (gap.end - gap.start < 0.5 * body) return undefined;
  const g = { start: minX + gap.start, end: minX + gap.end };
  // Each side reads as prose: at least five of its rows, and 40 % of them, are one run filling most of the column.
  const apart = rows.filter((r) => !r.runs.some((run) => run.x < g.end && run.end > g.start));
  const prose = (side: Run[][], width: number) => {
    const lines = side.filter((runs) => runs.length);
    const filled = lines.filter((runs) => runs.length === 1 && runs[0]!.end - runs[0]!.x >= 0.7 * width).length;
    return filled >= 5 && filled >= 0.4 * lines.length;
  };
  const left = apart.map((r) => r.runs.filter((run) => run.end <= g.start));
  const right = apart.map((r) => r.runs.filter((run) => run.x >= g.end));
  return prose(left, g.start - minX) && prose(right, maxX - g.end) ? g : undefined;
}

/** The rows of a page in reading order, grouped into regions: a two-column band is read left column first, then right. */
function regions(rows: Row[]): Row[][] {
  const gutter = findGutter(rows);
  if (!gutter) return [rows];
  const out: Row[][] = [];
  let band: Row[] = [];
  let spanning: Row[] = [];
  const flushBand = () => {
    if (!band.length) return;
    const side = (keep: (run: Run) => boolean) =>
      band.map((row) => ({ ...row, runs: row.runs.filter(keep) })).filter((row) => row.runs.length);
    out.push(
      side((run) => run.end <= gutter.start),
      side((run) => run.x >= gutter.end),
    );
    band = [];
  };
  for (const row of rows) {
    const crosses = row.runs.some((run) => run.x < gutter.end && run.end > gutter.start);
    if (crosses) {
      flushBand();
      spanning.push(row);
    } else {
      if (spanning.length) out.push(spanning);
      spanning = [];
      band.push(row);
    }
  }
  flushBand();
  if (spanning.length) out.push(spanning);
  return out.filter((region) => region.length);
}

/** A table's rows need at least this many lines of two or more cells that line up. */
const MIN_TABLE_ROWS = 3;
/** Cells of a table are short; lines of prose longer than this on average are not cells. */
const MAX_MEAN_CELL_CHARS = 40;

export type Block =
  | { kind: 'line'; text: string; size: number; blankBefore: boolean; bold?: boolean; italic?: boolean }
  | { kind: 'table'; markdown: string; rows?: Row[] };

/** The fonts of a page's text items that are bold, and those that are italic (by PDF.js's font names). */
export interface FontStyles {
  boldFonts?: ReadonlySet<string>;
  italicFonts?: ReadonlySet<string>;
}

/**
 * A table starting at `rows[i]`: rows of two or more runs whose x ranges fall in the same columns
 * (a run overlapping two columns ends the table); a line of one run after a row, close below it
 * and not in the first column, continues that row's cells (a cell of several lines). Undefined
 * when fewer than three rows line up.
 */
/** A table found at a row: the row after it, its cells, and its columns' x ranges in the cells' order. */
interface FoundTable {
  end: number;
  cells: string[][];
  columns: { x: number; end: number }[];
}

function tableAt(rows: Row[], i: number, rules: readonly Rule[] = []): FoundTable | undefined {
  const first = rows[i]!;
  if (first.runs.length < 2) return undefined;
  const columns = first.runs.map((run) => ({ x: run.x, end: run.end }));
  const table: { row: Row; at: number[] }[] = [{ row: first, at: first.runs.map((_, c) => c) }];
  let j = i + 1;
  for (; j < rows.length; j++) {
    const row = rows[j]!;
    const gap = rows[j - 1]!.y - row.y;
    if (gap > 3 * Math.max(row.size, rows[j - 1]!.size)) break;
    const tolerance = 0.2 * row.size;
    const at: number[] = [];
    let fits = true;
    for (const run of row.runs) {
      const hits = columns.flatMap((col, c) => (run.x < col.end + tolerance && run.end > col.x - tolerance ? [c] : []));
      if (hits.length > 1) fits = false;
      else if (hits.length === 1) at.push(hits[0]!);
      else at.push(-1);
    }
    if (!fits || new Set(at.filter((c) => c >= 0)).size !== at.filter((c) => c >= 0).length) break;
    if (row.runs.length === 1 && at[0]! < 0) break;
    if (row.runs.length === 1 && at[0] === 0 && row.runs[0]!.end > columns[0]!.end + row.size * 2) break;
    // A run between or beside the columns is a column of its own (the first row left that cell empty).
    row.runs.forEach((run, k) => {
      if (at[k]! < 0) {
        columns.push({ x: run.x, end: run.end });
        at[k] = columns.length - 1;
      } else {
        const col = columns[at[k]!]!;
        col.x = Math.min(col.x, run.x);
        col.end = Math.max(col.end, run.end);
      }
    });
    table.push({ row, at });
  }
  const lined = table.filter((t) => t.row.runs.length >= 2);
  if (columns.length < 2 || lined.length < 2) return undefined;
  // Ruling lines above the first row and below the last, each spanning the columns, bound a table.
  const left = Math.min(...columns.map((col) => col.x));
  const right = Math.max(...columns.map((col) => col.end));
  const spans = (rule: Rule, size: number) => rule.x0 <= left + size && rule.x1 >= right - size;
  const top = lined[0]!.row;
  const bottom = lined[lined.length - 1]!.row;
  const ruled =
    rules.some((r) => spans(r, top.size) && r.y > top.y + 0.5 * top.size && r.y < top.y + 2.5 * top.size) &&
    rules.some((r) => spans(r, bottom.size) && r.y < bottom.y && r.y > bottom.y - 1.5 * bottom.size);
  if (lined.length < MIN_TABLE_ROWS && !ruled) return undefined;
  // Two blocks of three short lines side by side (a letterhead: address left, reference right) are
  // not a table; a fourth row, or a column of figures under its header, makes one.
  const figures = (c: number) =>
    lined
      .slice(1)
      .every((t) => t.row.runs.some((run, k) => t.at[k] === c && /^[-+−–(]?[$€£¥]?\s?[\d.,\s]*\d[\d.,\s]*%?\)?$/u.test(run.text.trim())));
  if (!ruled && columns.length === 2 && lined.length === MIN_TABLE_ROWS && !figures(0) && !figures(1)) return undefined;
  const cellTexts = lined.flatMap((t) => t.row.runs.map((run) => run.text.trim().length));
  if (cellTexts.reduce((a, b) => a + b, 0) / cellTexts.length > MAX_MEAN_CELL_CHARS) return undefined;
  // Columns of prose (most lines one run filling its column, as justified text does) are not a table.
  const proseColumn = (c: number) => {
    const runs = table.flatMap((t) => t.row.runs.filter((_, k) => t.at[k] === c));
    const filled = runs.filter((run) => run.end - run.x >= 0.9 * (columns[c]!.end - columns[c]!.x)).length;
    return filled >= 0.6 * runs.length && median(runs.map((run) => run.text.trim().length)) >= 15;
  };
  if (columns.every((_, c) => proseColumn(c))) return undefined;
  // Trailing single-run lines are not part of the table unless they continue a cell.
  while (table.length && table[table.length - 1]!.row.runs.length < 2 && table.length > 1) {
    const last = table[table.length - 1]!;
    const above = table[table.length - 2]!;
    if (above.row.y - last.row.y <= 1.6 * last.row.size && last.at[0] !== 0) break;
    table.pop();
  }
  const order = columns.map((col, c) => ({ x: col.x, c })).sort((p, q) => p.x - q.x);
  const index = new Map(order.map((o, k) => [o.c, k]));
  // Lines set on one shaded band across the columns (a header row's shading) are one row.
  const shades = rules.filter((r) => r.shade && spans(r, top.size));
  const shadeOf = (row: Row) => shades.findIndex((r) => row.y > r.shade![0] && row.y < r.shade![1]);
  const cells: string[][] = [];
  let previous: Row | undefined;
  for (const { row, at } of table) {
    const shade = shadeOf(row);
    const continues =
      (previous && cells.length && shade >= 0 && shade === shadeOf(previous)) ||
      (previous && cells.length && !at.includes(0) && row.runs.length < columns.length && previous.y - row.y <= 1.6 * row.size);
    const target = continues ? cells[cells.length - 1]! : Array<string>(columns.length).fill('');
    row.runs.forEach((run, k) => {
      const c = index.get(at[k]!)!;
      target[c] = target[c] ? `${target[c]}\n${run.text.trim()}` : run.text.trim();
    });
    if (!continues) cells.push(target);
    previous = row;
  }
  return { end: i + table.length, cells, columns: order.map((o) => columns[o.c]!) };
}

/** Ruling lines of one table are at most this far apart (font heights): a cell of a few lines. */
const MAX_RULED_BAND = 8;

/**
 * A table drawn with ruling lines: three or more horizontal rules of about the same extent, each
 * at most a few lines below the last, with text between each pair. Each band between two rules is
 * one table row, however many lines its cells wrap over; its columns are those of the band's row
 * with the most runs. Undefined unless the rows between the first and last rule lie inside the
 * rules' extent and at least two bands hold two cells or more.
 */
function ruledTableAt(rows: Row[], i: number, rules: readonly Rule[]): FoundTable | undefined {
  const row = rows[i]!;
  const size = row.size;
  const inside = (r: Rule) => row.runs.every((run) => run.x >= r.x0 - size && run.end <= r.x1 + size);
  // The nearest rule above the row spanning it, then the rules of the same extent below it, each close to the last.
  const above = rules.filter((r) => r.y > row.y && r.y - row.y < 2.5 * size && inside(r)).sort((p, q) => p.y - q.y)[0];
  if (!above) return undefined;
  const same = (r: Rule) => Math.abs(r.x0 - above.x0) <= size && Math.abs(r.x1 - above.x1) <= size;
  const ys = [above.y];
  for (const r of rules.filter(same).sort((p, q) => q.y - p.y)) {
    const last = ys[ys.length - 1]!;
    if (r.y >= last - 0.5) continue;
    if (last - r.y > MAX_RULED_BAND * size * 1.4) break;
    ys.push(r.y);
  }
  if (ys.length < 3) return undefined;
  // The rows of each band; a band without text, or whose lines are each one run (a paragraph), ends the table.
  const bands: Row[][] = [];
  let j = i;
  for (let b = 0; b + 1 < ys.length; b++) {
    let k = j;
    while (k < rows.length && rows[k]!.y < ys[b]! && rows[k]!.y > ys[b + 1]!) k++;
    const band = rows.slice(j, k);
    if (!band.some((r) => r.runs.length >= 2)) break;
    bands.push(band);
    j = k;
  }
  if (bands.length < 2) return undefined;
  const within = (r: Row) => r.runs.every((run) => run.x >= above.x0 - size && run.end <= above.x1 + size);
  if (!bands.every((band) => band.every(within))) return undefined;
  // Columns: the runs of the row with the most of them, and any run beside all of those (a column that row left empty).
  const byRuns = bands.flat().sort((a, b) => b.runs.length - a.runs.length);
  if (byRuns[0]!.runs.length < 2) return undefined;
  const columns = byRuns[0]!.runs.map((run) => ({ x: run.x, end: run.end }));
  for (const r of byRuns.slice(1)) {
    for (const run of r.runs) if (!columns.some((col) => run.x < col.end && run.end > col.x)) columns.push({ x: run.x, end: run.end });
  }
  // A right-to-left table's first column is its rightmost.
  const rtl = bands.flat().filter((r) => r.rtl).length * 2 > bands.flat().length;
  columns.sort((a, b) => (rtl ? b.x - a.x : a.x - b.x));
  const columnOf = (run: Run) => {
    let best = 0;
    let bestScore = -Infinity;
    columns.forEach((col, c) => {
      const overlap = Math.min(run.end, col.end) - Math.max(run.x, col.x);
      const score = overlap > 0 ? overlap : -Math.abs((run.x + run.end) / 2 - (col.x + col.end) / 2);
      if (score > bestScore) [best, bestScore] = [c, score];
    });
    return best;
  };
  // A band of three lines or more that each fill at least half the columns holds one table row per
  // line (a table ruled only above and below its header and at its foot); a line of a few cells set
  // just off its neighbour's baseline, with none in the same columns, joins it. Otherwise (cells
  // wrapping over lines, a cell centred beside two lines) the band's lines make one row.
  const filled = (r: Row[]) => new Set(r.flatMap((line) => line.runs.map(columnOf))).size;
  const full = Math.max(2, Math.ceil(columns.length / 2));
  const linesOf = (band: Row[]): Row[][] | undefined => {
    if (band.length < 2) return undefined;
    const lines: Row[][] = band.map((r) => [r]);
    for (let k = 0; k < lines.length; k++) {
      if (filled(lines[k]!) >= full) continue;
      const y = lines[k]![0]!.y;
      const mine = new Set(lines[k]!.flatMap((line) => line.runs.map(columnOf)));
      const apart = (n: number) => !!lines[n] && !lines[n].some((line) => line.runs.some((run) => mine.has(columnOf(run))));
      // The neighbour it can join: the one with none of its columns, or, when both qualify (a cell
      // centred beside two lines, which is one row), the clearly closer one.
      const up = apart(k - 1) ? lines[k - 1]![0]!.y - y : Infinity;
      const down = apart(k + 1) ? y - lines[k + 1]![0]!.y : Infinity;
      if (up === Infinity && down === Infinity) {
        // A cell wrapped onto a line of its own continues the line above, when it is closer to that line than to the next.
        const above = lines[k - 1];
        const gapUp = above ? Math.min(...above.map((line) => line.y)) - y : Infinity;
        const gapDown = lines[k + 1] ? y - Math.max(...lines[k + 1]!.map((line) => line.y)) : Infinity;
        if (!above || !(gapUp <= WRAPPED_CELL_GAP * lines[k]![0]!.size && gapUp < gapDown)) return undefined;
        lines[k - 1] = [...above, ...lines[k]!];
        lines.splice(k, 1);
        k = Math.max(-1, k - 2);
        continue;
      }
      if (up !== Infinity && down !== Infinity && !(Math.min(up, down) < 0.5 * Math.max(up, down))) return undefined;
      const to = up < down ? k - 1 : k + 1;
      lines[to] = to < k ? [...lines[to]!, ...lines[k]!] : [...lines[k]!, ...lines[to]!];
      lines.splice(k, 1);
      k = Math.max(-1, Math.min(k, to) - 1);
    }
    return lines.length >= 3 && lines.every((line) => filled(line) >= full) ? lines : undefined;
  };
  const cellRows = bands.flatMap((band) => linesOf(band) ?? [band]);
  const cells = cellRows.map((band) => {
    const out = Array<string>(columns.length).fill('');
    for (const r of band) {
      for (const run of r.runs) {
        const c = columnOf(run);
        out[c] = out[c] ? `${out[c]}\n${run.text.trim()}` : run.text.trim();
      }
    }
    return out;
  });
  if (cells.filter((cellRow) => cellRow.filter(Boolean).length >= 2).length < 2) return undefined;
  return { end: j, cells, columns: rtl ? [] : columns };
}

/**
 * A page's text from the positions of its PDF.js text items: lines by baseline, a page in two
 * columns read column by column, tables where rows of cells line up in columns (a markdown table,
 * `<br>` between the lines of a cell), and headings by font size. Undefined when the items carry
 * no usable positions (the page is then read in drawing order by textFromItems). Without `tables`
 * (skip_ocr skips table recognition) a table's rows are lines, their cells apart by a space.
 */
export function layoutFromItems(items: readonly unknown[], options: LayoutOptions = {}): string | undefined {
  const blocks = layoutBlocks(items, options);
  return blocks && renderBlocks(blocks);
}

interface LayoutOptions extends FontStyles {
  tables?: boolean;
  rules?: readonly Rule[];
}

/** The lines and tables of a page, in reading order ({@link layoutFromItems} before its headings are found). */
export function layoutBlocks(
  items: readonly unknown[],
  { tables = true, boldFonts, italicFonts, rules }: LayoutOptions = {},
): Block[] | undefined {
  const read = runsFromItems(items, { boldFonts, italicFonts });
  if (!read) return undefined;
  const blocks: Block[] = [];
  const used = new Set<Turned>();
  for (const region of regions(rowsFromRuns(read.runs))) {
    let previous: Row | undefined;
    for (let i = 0; i < region.length;) {
      const table = tables ? ((rules?.length ? ruledTableAt(region, i, rules) : undefined) ?? tableAt(region, i, rules)) : undefined;
      if (table && isProseLayout(table.cells.map((cellRow) => cellRow.map(squashSpaces)))) {
        // Running text set beside side headings or a margin note lines up as a table does, but its
        // sentences go on from row to row: each column's lines are read in order, a paragraph each.
        const size = median(region.slice(i, table.end).map((r) => r.size));
        for (let c = 0; c < (table.cells[0]?.length ?? 0); c++) {
          const lines = table.cells.flatMap((cellRow) => (cellRow[c] ? cellRow[c].split('\n') : []));
          lines.forEach((text, k) => blocks.push({ kind: 'line', text, size, blankBefore: k === 0 }));
        }
        i = table.end;
        previous = undefined;
        continue;
      }
      if (table) {
        const last = blocks[blocks.length - 1];
        const header = turnedHeader(table, region[i]!, read.turned, used, previous && last?.kind === 'line' ? previous : undefined);
        if (header?.label) blocks.pop();
        const cells = header ? header.cells : table.cells;
        blocks.push({ kind: 'table', markdown: markdownTable(cells), rows: region.slice(i, table.end) });
        i = table.end;
        previous = undefined;
        continue;
      }
      const row = region[i]!;
      const gap = previous ? previous.y - row.y : Infinity;
      blocks.push({
        kind: 'line',
        text: (row.rtl ? [...row.runs].reverse() : row.runs).map((run) => run.text.trim()).join(' '),
        size: row.size,
        blankBefore: gap > Math.max(row.size, previous?.size ?? 0) * 1.8,
        bold: row.runs.every((run) => run.bold),
        italic: row.runs.every((run) => run.italic),
      });
      previous = row;
      i++;
    }
  }
  for (const { text } of read.turned.filter((t) => !used.has(t))) {
    if (text.trim()) blocks.push({ kind: 'line', text: squashSpaces(text), size: NaN, blankBefore: true });
  }
  return blocks;
}

/**
 * A table's header row set sideways: text reading upwards whose foot is just above the table's
 * first row (within three lines), each over one column (or beside them all: a column no row
 * filled). Two such headers or more make a header row above the table's cells; the line just
 * above the table, level with them and over the first column, is that column's header. The
 * sideways text used is added to `used`.
 */
function turnedHeader(
  table: FoundTable,
  first: Row,
  turned: readonly Turned[],
  used: Set<Turned>,
  label: Row | undefined,
): { cells: string[][]; label: boolean } | undefined {
  if (!table.columns.length) return undefined;
  const size = first.size;
  const heads = turned.filter((t) => t.up && !used.has(t) && t.y > first.y && t.y - first.y <= 3 * size && t.text.trim());
  if (heads.length < 2) return undefined;
  // The table's columns, by the index of their cells, and the columns no row filled (no index) inserted among them.
  const columns: { x: number; end: number; cell?: number }[] = table.columns.map((col, cell) => ({ ...col, cell }));
  const header = Array<string>(columns.length).fill('');
  // Upward text stands left of its baseline, one font height wide.
  for (const t of [...heads].sort((p, q) => p.x - q.x)) {
    const [x0, x1] = [t.x - t.size, t.x];
    let c = columns.findIndex((col) => x0 < col.end + 0.5 * size && x1 > col.x - 0.5 * size);
    if (c < 0) {
      if (x0 < columns[0]!.end) continue;
      // A column no row filled: inserted where it stands (its empty cells are added once all heads are placed).
      c = columns.findIndex((col) => col.x > x1);
      if (c < 0) c = columns.length;
      columns.splice(c, 0, { x: x0, end: x1 });
      header.splice(c, 0, '');
    }
    if (header[c]) return undefined;
    header[c] = squashSpaces(t.text);
  }
  if (header.filter(Boolean).length < 2) return undefined;
  for (const t of heads) used.add(t);
  const cells = table.cells.map((row) => columns.map((col) => (col.cell === undefined ? '' : (row[col.cell] ?? ''))));
  // The first column's header, set upright and level with the sideways ones.
  const top = heads.reduce((most, t) => Math.max(most, t.y + t.text.length * t.size * WIDE_GLYPH_ADVANCE), -Infinity);
  const labelled =
    !!label &&
    !header[0] &&
    label.y > first.y &&
    label.y <= top + size &&
    label.runs.length === 1 &&
    label.runs[0]!.end <= (columns[1]?.x ?? Infinity);
  if (labelled) header[0] = label.runs[0]!.text.trim();
  return { cells: [header, ...cells], label: labelled };
}

/** A horizontal ruling line of a page: from x0 to x1 at height y (points, from the bottom left as text positions are). */
export interface Rule {
  x0: number;
  x1: number;
  y: number;
  /** The bottom and top of the shaded box (a filled, unstroked rectangle) this rule is an edge of. */
  shade?: readonly [number, number];
}

/** A ruling line is at most this thick (points) and at least this long. */
const MAX_RULE_THICKNESS = 3;
const MIN_RULE_LENGTH = 20;
/** A filled box at most this high (points) is a shaded cell or row, its edges ruling lines. */
const MAX_FILLED_CELL = 40;

/** Rules on one height that meet or overlap (a table drawn cell by cell) joined into one. */
function joinRules(rules: Rule[]): Rule[] {
  const out: Rule[] = [];
  for (const rule of [...rules].sort((p, q) => q.y - p.y || p.x0 - q.x0)) {
    const joined = out.find((r) => Math.abs(r.y - rule.y) <= 0.5 && rule.x0 <= r.x1 + 1 && rule.x1 >= r.x0 - 1);
    if (joined) {
      joined.x0 = Math.min(joined.x0, rule.x0);
      joined.x1 = Math.max(joined.x1, rule.x1);
      joined.shade ??= rule.shade;
    } else out.push({ ...rule });
  }
  return out;
}

/** The PDF.js operators {@link rulesFromOperators} reads, by their numbers in PDF.js's OPS table. */
export interface PathOps {
  save: number;
  restore: number;
  transform: number;
  constructPath: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  /** The painting operators that draw a path (stroke, fill and their variants; not endPath, which only clips). */
  paints: ReadonlySet<number>;
  stroke: ReadonlySet<number>;
}

type Matrix = [number, number, number, number, number, number];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

/**
 * The horizontal ruling lines a page draws: thin filled rectangles, and the straight strokes and
 * stroked box edges of its paths, in page coordinates (the transformation matrix followed through
 * save, restore, transform and form objects). PDF.js 5 passes each path as one constructPath with
 * its painting operator and its drawing commands (0 move, 1 line, 2 curve, 3 close).
 */
export function rulesFromOperators(fnArray: readonly number[], argsArray: readonly unknown[], ops: PathOps): Rule[] {
  const rules: Rule[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  const matrixOf = (value: unknown): Matrix | undefined => {
    const m = value as ArrayLike<number> | null | undefined;
    return m && m.length === 6 && Array.from(m).every(Number.isFinite) ? (Array.from(m) as Matrix) : undefined;
  };
  for (let i = 0; i < fnArray.length && rules.length < 5000; i++) {
    const op = fnArray[i]!;
    const args = argsArray[i] as unknown[] | null | undefined;
    if (op === ops.save) stack.push(ctm);
    else if (op === ops.restore) ctm = stack.pop() ?? ctm;
    else if (op === ops.transform) {
      const m = matrixOf(args);
      if (m) ctm = multiply(ctm, m);
    } else if (op === ops.paintFormXObjectBegin) {
      stack.push(ctm);
      const m = matrixOf(args?.[0]);
      if (m) ctm = multiply(ctm, m);
    } else if (op === ops.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (op === ops.constructPath && args && ops.paints.has(args[0] as number)) {
      const data = (args[1] as ArrayLike<number>[] | undefined)?.[0];
      if (!data || typeof data.length !== 'number') continue;
      // Only axis-aligned shapes are read: a rotated page's ruling lines are skipped.
      if (Math.abs(ctm[1]) > 1e-6 || Math.abs(ctm[2]) > 1e-6) continue;
      const stroked = ops.stroke.has(args[0] as number);
      const at = (x: number, y: number) => [ctm[0] * x + ctm[4], ctm[3] * y + ctm[5]] as const;
      // Each subpath: its points, whether it has curves.
      let points: (readonly [number, number])[] = [];
      let curved = false;
      const flush = () => {
        if (points.length >= 2 && !curved) {
          const xs = points.map((p) => p[0]);
          const ys = points.map((p) => p[1]);
          const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
          if (y1 - y0 <= MAX_RULE_THICKNESS && x1 - x0 >= MIN_RULE_LENGTH) rules.push({ x0, x1, y: (y0 + y1) / 2 });
          else if (
            (stroked || y1 - y0 <= MAX_FILLED_CELL) &&
            points.length >= 4 &&
            points.every((p) => (p[0] === x0 || p[0] === x1) && (p[1] === y0 || p[1] === y1))
          ) {
            // A stroked box, or a shaded cell: its top and bottom edges are rules.
            const shade = stroked ? undefined : ([y0, y1] as const);
            if (x1 - x0 >= MIN_RULE_LENGTH) rules.push({ x0, x1, y: y0, shade }, { x0, x1, y: y1, shade });
          } else if (stroked) {
            // Straight strokes: each horizontal segment.
            for (let k = 1; k < points.length; k++) {
              const [p, q] = [points[k - 1]!, points[k]!];
              if (Math.abs(p[1] - q[1]) <= 0.5 && Math.abs(p[0] - q[0]) >= MIN_RULE_LENGTH) {
                rules.push({ x0: Math.min(p[0], q[0]), x1: Math.max(p[0], q[0]), y: p[1] });
              }
            }
          }
        }
        points = [];
        curved = false;
      };
      for (let k = 0; k < data.length;) {
        const command = data[k]!;
        if (command === 0) {
          flush();
          points.push(at(data[k + 1]!, data[k + 2]!));
          k += 3;
        } else if (command === 1) {
          points.push(at(data[k + 1]!, data[k + 2]!));
          k += 3;
        } else if (command === 2) {
          curved = true;
          points.push(at(data[k + 5]!, data[k + 6]!));
          k += 7;
        } else if (command === 3) {
          if (points.length) points.push(points[0]!);
          k += 1;
        } else break;
      }
      flush();
    }
  }
  return joinRules(rules);
}

/** Pictures smaller than this (icons, rules, logos) are not worth OCR. */
const MIN_OCR_WIDTH = 64;
const MIN_OCR_HEIGHT = 24;

interface PdfImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/** PDF.js image kinds: 1 = 1 bit gray (packed), 2 = RGB, 3 = RGBA. */
function imageToPgm(image: PdfImage): Buffer | undefined {
  const { width, height, data, kind } = image;
  if (!data || !width || !height) return undefined;
  if (kind === 1) {
    const rowBytes = Math.ceil(width / 8);
    const gray = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) gray[y * width + x] = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
    return encodePgm(width, height, gray, 1);
  }
  return encodePgm(width, height, data, kind === 3 ? 4 : 3);
}

/** Pictures at least this wide and high are read as page scans (their header and footer bands too). */
const PAGE_SCAN_MIN_WIDTH = 500;

/**
 * A page scan's text with the lines of its header and footer bands that the page's reading
 * missed. Tesseract's page segmentation takes a letterhead (large type far above the body) or
 * a footer line for a picture and skips it; read on its own, the band is a line of text.
 */
async function withBands(ctx: ConvertContext, scan: Buffer, text: string, n: number): Promise<string> {
  const top = cropPgm(scan, 0, 0.15);
  const bottom = cropPgm(scan, 0.9, 1);
  const header = top ? missingLines(await readImage(ctx, top, `the top of page ${n} of ${ctx.filename}`, `page ${n}`), text) : [];
  const footer = bottom ? missingLines(await readImage(ctx, bottom, `the foot of page ${n} of ${ctx.filename}`, `page ${n}`), text) : [];
  return [header.join('\n'), text, footer.join('\n')].filter(Boolean).join('\n');
}

/** Longest a picture's pixels are waited for once its page's operators are read (they are decoded by then). */
export const PDF_OBJECT_WAIT_MS = 10_000;

interface PdfObjects {
  has(name: string): boolean;
  get(name: string, callback?: (value: unknown) => void): unknown;
}

/**
 * A picture's pixels by name. PDF.js keeps pictures shared between pages (names starting `g_`)
 * in the document's common objects and the page's own in `page.objs`; asking the wrong one
 * with a callback neither throws nor ever calls back, so the wait is bounded, and a picture
 * that does not arrive is skipped with a note instead of holding the conversion.
 */
export async function pdfObject(
  page: { objs: PdfObjects; commonObjs: PdfObjects },
  name: string,
  waitMs = PDF_OBJECT_WAIT_MS,
): Promise<unknown> {
  const stores = name.startsWith('g_') ? [page.commonObjs, page.objs] : [page.objs, page.commonObjs];
  for (const objs of stores) {
    try {
      if (objs.has(name)) return objs.get(name);
    } catch {
      // Not resolved yet in this store: waited for below.
    }
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    const done = (value: unknown) => {
      clearTimeout(timer);
      resolve(value);
    };
    try {
      stores[0]!.get(name, done);
    } catch {
      done(undefined);
    }
  });
}

/** A font's name that says bold type ("ABCDEF+Arial-BoldMT", "Helvetica-Bold", "Roboto-Black", TeX's "CMBX10"). */
const BOLD_FONT_NAME = /bold|black|heavy|[-,]bd\b|^(cm|sf|lm|ec)bx/i;
/** A font's name that says italic type ("Arial-ItalicMT", "Helvetica-Oblique", "Minion-It", "Times-BoldIt", TeX's "CMTI10"). */
const ITALIC_FONT_NAME = /italic|oblique|[-,](bold|semibold|medium)?it(mt)?\b|^(cm|lm|ec)b?ti\d/i;

/**
 * The fonts of a page's text items that are bold and those that are italic, by the font objects PDF.js has loaded into the
 * document's common objects while reading the page's operators. A font not loaded (yet) counts
 * as regular: its object is only taken when present, never waited for.
 */
export function fontStyles(commonObjs: PdfObjects, items: readonly unknown[]): { boldFonts: Set<string>; italicFonts: Set<string> } {
  const bold = new Set<string>();
  const italic = new Set<string>();
  const seen = new Set<string>();
  for (const item of items) {
    const name = (item as TextItemLike)?.fontName;
    if (typeof name !== 'string' || seen.has(name)) continue;
    seen.add(name);
    try {
      if (!commonObjs.has(name)) continue;
      const font = commonObjs.get(name) as { name?: unknown; bold?: unknown; black?: unknown; italic?: unknown } | undefined;
      const fontName = typeof font?.name === 'string' ? font.name.replace(/^[A-Z]{6}\+/, '') : '';
      if (font?.bold === true || font?.black === true || BOLD_FONT_NAME.test(fontName)) bold.add(name);
      if (font?.italic === true || ITALIC_FONT_NAME.test(fontName)) italic.add(name);
    } catch {
      // Not resolved: read as regular type.
    }
  }
  return { boldFonts: bold, italicFonts: italic };
}

export async function pdfToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const filename = ctx.filename;
  polyfillNode20();
  const { getDocumentProxy, getResolvedPDFJS } = await import('unpdf');
  const { OPS } = await getResolvedPDFJS();
  const imageOps = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintInlineImageXObject,
    OPS.paintImageMaskXObject,
    OPS.paintImageXObjectRepeat,
  ]);
  const pathOps: PathOps = {
    save: OPS.save,
    restore: OPS.restore,
    transform: OPS.transform,
    constructPath: OPS.constructPath,
    paintFormXObjectBegin: OPS.paintFormXObjectBegin,
    paintFormXObjectEnd: OPS.paintFormXObjectEnd,
    paints: new Set([
      OPS.stroke,
      OPS.closeStroke,
      OPS.fill,
      OPS.eoFill,
      OPS.fillStroke,
      OPS.eoFillStroke,
      OPS.closeFillStroke,
      OPS.closeEOFillStroke,
    ]),
    stroke: new Set([OPS.stroke, OPS.closeStroke, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]),
  };
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: PDF.js may transfer (detach) the buffer it is given. Raw pixels, not ImageBitmaps, for OCR.
    pdf = await getDocumentProxy(new Uint8Array(data), {
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      // The pixel bound, applied by PDF.js before it decodes an image.
      maxImageSize: ctx.maxImagePixels,
    } as Parameters<typeof getDocumentProxy>[1]);
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === 'PasswordException') {
      throw new ConversionError('unsupported_file', `${filename} is password-protected; remove the password and upload it again.`);
    }
    throw new ConversionError('corrupt_file', `${filename} is a corrupt PDF and cannot be read (${(error as Error)?.message ?? error}).`);
  }
  // Each page's lines and tables (its text in drawing order when its items have no positions), and the text OCR read in its pictures.
  const pages: { blocks?: Block[]; text: string; read: string[] }[] = [];
  const imageOnlyPages: number[] = [];
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new ConversionError(
        'file_too_large',
        `${filename} is too large to convert: ${pdf.numPages} pages (the limit is ${MAX_PDF_PAGES}).`,
      );
    }
    for (let n = 1; n <= pdf.numPages; n++) {
      progress(ctx, `reading page ${n}`);
      const page = await pdf.getPage(n);
      const { items } = await page.getTextContent();
      // The operators load the page's fonts (their names tell bold type) and show its pictures.
      const operators = await page.getOperatorList();
      const styles = fontStyles(page.commonObjs as PdfObjects, items);
      // Table recognition is skipped with skip_ocr, as the API promises (rows then read as lines).
      const rules = ctx.skipOcr ? [] : rulesFromOperators(operators.fnArray, operators.argsArray, pathOps);
      const blocks = layoutBlocks(items, { tables: !ctx.skipOcr, ...styles, rules });
      const text = blocks ? '' : textFromItems(items);
      const hasText = blocks ? blocks.length > 0 : !!text;
      const read: string[] = [];
      const images: string[] = [];
      operators.fnArray.forEach((op: number, i: number) => {
        if (op === OPS.paintImageXObject || op === OPS.paintImageXObjectRepeat) {
          images.push(String((operators.argsArray[i] as unknown[])[0]));
        }
      });
      const hasImages = operators.fnArray.some((op: number) => imageOps.has(op));
      if (!hasText && hasImages) imageOnlyPages.push(n);
      if (hasImages) {
        if (ctx.skipOcr) {
          note(
            ctx,
            hasText
              ? `the pictures on page ${n} were not read; OCR was skipped (skip_ocr: true), so any text in them is not indexed. Attach the file again with full conversion to read it.`
              : `page ${n} has only an image; OCR was skipped (skip_ocr: true), so its text is not indexed. Attach the file again with full conversion to read it.`,
          );
        } else {
          for (const name of new Set(images)) {
            progress(ctx, `reading the pictures on page ${n}`);
            const image = (await pdfObject(page as never, name)) as PdfImage | undefined;
            if (!image) {
              note(ctx, `a picture on page ${n} could not be decoded, so any text in it is not indexed.`);
              continue;
            }
            if (image.width < MIN_OCR_WIDTH || image.height < MIN_OCR_HEIGHT) continue;
            if (image.width * image.height > ctx.maxImagePixels) checkImageSize(ctx, image.width, image.height, `page ${n} of ${filename}`);
            const pgm = imageToPgm(image);
            if (!pgm) continue;
            progress(ctx, `reading the pictures on page ${n}`);
            const scan = enlargeSmallScan(pgm, ctx.maxImagePixels);
            let found = await readImage(ctx, scan, `a picture on page ${n} of ${filename}`, `page ${n}`);
            if (found && image.width >= PAGE_SCAN_MIN_WIDTH && image.height >= PAGE_SCAN_MIN_WIDTH) {
              found = await withBands(ctx, scan, found, n);
            }
            if (found) read.push(found);
          }
          if (!read.length && !hasText && !ctx.ocrStopped) note(ctx, `page ${n} has only an image, and OCR found no text in it.`);
        }
      }
      pages.push({ blocks, text, read });
      page.cleanup();
    }
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    throw new ConversionError('corrupt_file', `${filename} is a corrupt PDF: ${(error as Error)?.message ?? error}.`);
  } finally {
    await pdf.destroy();
  }
  // Headings are found against the document's body text size, measured over all its pages.
  const bodies = pageBodies(pages.map((p) => (p.blocks ? sizedLines(p.blocks) : [])));
  const texts = pages.map((p, i) => [p.blocks ? renderBlocks(p.blocks, bodies[i]) : p.text, ...p.read].filter(Boolean).join('\n\n'));
  const sections = texts.map((text, i) => (text ? `## Page ${i + 1}\n\n${text}` : '')).filter(Boolean);
  if (!sections.length && imageOnlyPages.length) {
    const which = imageOnlyPages.length === 1 ? `page ${imageOnlyPages[0]}` : `pages ${imageOnlyPages.join(', ')}`;
    const what = `${which} of ${pages.length} contain${imageOnlyPages.length === 1 ? 's' : ''} only images`;
    if (ctx.skipOcr) throw new ConversionError('ocr_skipped', ocrSkippedMessage(filename, what));
    throw new ConversionError('no_text', `${filename}: ${what}, and OCR found no text in them.`);
  }
  if (!sections.length) throw new ConversionError('no_text', `${filename} contains no text.`);
  return sections.join('\n\n');
}
