/**
 * Columns in the text Tesseract reads of a right-to-left page. Its lines come in reading order,
 * each line's words in logical order (a right-to-left line from its right end, a Latin run inside
 * it left to right). On right-to-left pages Tesseract can take two columns for one and join each
 * line of the right column with the line of the left column beside it. Here such lines are cut
 * at the gutter (a gap between runs of words far wider than a word space, at the same place in
 * many lines) and the columns read one after the other, the rightmost first, each top to bottom;
 * a line across the gutter (a heading over both columns) stays whole where it is. A page with no
 * such gutter, and every left-to-right page, is left as Tesseract read it.
 */

export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
export interface OcrWordBox {
  text: string;
  bbox: OcrBox;
}
export interface OcrLineBox {
  words: readonly OcrWordBox[];
  bbox: OcrBox;
}

/** A gap between two words at least this many line heights wide may be a gutter between columns. */
const GUTTER_LINE_HEIGHTS = 2;
/** A gutter is where such gaps line up in at least this many lines, and this share of the lines. */
const GUTTER_MIN_LINES = 3;
const GUTTER_MIN_SHARE = 0.2;
/** Words on each side of such a gap: columns of prose, not a form's labels and values. */
const GUTTER_MIN_WORDS = 3;

const RTL_LETTERS = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;

/** Most of the letters of `text` are of a right-to-left script. */
export function isRightToLeftText(text: string): boolean {
  return (text.match(RTL_LETTERS)?.length ?? 0) * 2 > (text.match(/\p{L}/gu)?.length ?? 0);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The x positions of the page's gutters, left to right. */
function gutters(lines: readonly OcrLineBox[]): number[] {
  const height = median(lines.map((line) => line.bbox.y1 - line.bbox.y0));
  if (!height) return [];
  // Each wide gap as [from, to], at most one per line in each place.
  const gaps: [number, number][] = [];
  for (const line of lines) {
    const words = [...line.words].sort((a, b) => a.bbox.x0 - b.bbox.x0);
    // The line cut at its wide gaps; a gap between two runs of prose (not a label and its value) counts.
    const cuts = [0];
    for (let i = 1; i < words.length; i++) {
      if (words[i]!.bbox.x0 - words[i - 1]!.bbox.x1 >= GUTTER_LINE_HEIGHTS * height) cuts.push(i);
    }
    cuts.push(words.length);
    for (let c = 1; c < cuts.length - 1; c++) {
      if (cuts[c]! - cuts[c - 1]! < GUTTER_MIN_WORDS || cuts[c + 1]! - cuts[c]! < GUTTER_MIN_WORDS) continue;
      gaps.push([words[cuts[c]! - 1]!.bbox.x1, words[cuts[c]!]!.bbox.x0]);
    }
  }
  const needed = Math.max(GUTTER_MIN_LINES, Math.ceil(lines.length * GUTTER_MIN_SHARE));
  const found: number[] = [];
  // Gaps that overlap one another form a gutter; its place is where most of them overlap.
  gaps.sort((a, b) => (a[0] + a[1]) / 2 - (b[0] + b[1]) / 2);
  let group: [number, number][] = [];
  const close = () => {
    if (group.length >= needed) {
      const from = median(group.map((g) => g[0]));
      const to = median(group.map((g) => g[1]));
      if (to > from) found.push((from + to) / 2);
    }
    group = [];
  };
  for (const gap of gaps) {
    const middle = (gap[0] + gap[1]) / 2;
    if (group.length && !group.some((g) => middle > g[0] && middle < g[1])) close();
    group.push(gap);
  }
  close();
  // A place no line crosses with a word: else it is a gap inside one column's lines.
  return found.filter((x) => {
    const crossing = lines.filter((line) => line.words.some((w) => w.bbox.x0 < x && w.bbox.x1 > x)).length;
    return crossing < lines.length / 2;
  });
}

/**
 * The text of `lines` with joined columns read one after the other, or undefined when the page
 * has no gutter (its text is then Tesseract's own). Lines in the order Tesseract gave them.
 */
export function columnsInReadingOrder(lines: readonly OcrLineBox[]): string | undefined {
  const withWords = lines.filter((line) => line.words.length > 0);
  if (withWords.length < GUTTER_MIN_LINES) return undefined;
  // Tesseract finds the columns of left-to-right pages itself; they are left as it read them.
  if (!isRightToLeftText(withWords.flatMap((line) => line.words.map((w) => w.text)).join(' '))) return undefined;
  const places = gutters(withWords);
  if (!places.length) return undefined;
  const columnOf = (word: OcrWordBox) => places.filter((x) => (word.bbox.x0 + word.bbox.x1) / 2 > x).length;
  // Right to left: the rightmost column first.
  const order = Array.from({ length: places.length + 1 }, (_, i) => places.length - i);
  const blocks: string[] = [];
  let columns: string[][] = order.map(() => []);
  const flush = () => {
    for (const column of order) if (columns[column]!.length) blocks.push(columns[column]!.join('\n'));
    columns = order.map(() => []);
  };
  for (const line of withWords) {
    // A line across a gutter (a heading, a caption over both columns) is read whole, in its place.
    if (line.words.some((w) => places.some((x) => w.bbox.x0 < x && w.bbox.x1 > x))) {
      flush();
      blocks.push(line.words.map((w) => w.text).join(' '));
      continue;
    }
    // Each column's words of the line, in the line's (logical) order.
    const parts = new Map<number, string[]>();
    for (const word of line.words) {
      const column = columnOf(word);
      parts.set(column, [...(parts.get(column) ?? []), word.text]);
    }
    for (const [column, words] of parts) columns[column]!.push(words.join(' '));
  }
  flush();
  return blocks.join('\n\n');
}
