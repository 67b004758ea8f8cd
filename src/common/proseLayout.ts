/**
 * Prose laid out in columns that a converter read as a table: a page's side headings, its running
 * text and a margin note side by side, each line of them a row. Told from a table by its text only.
 */
/** A cell holding at least this many words is a line of prose, not a table's value or label. */
const PROSE_CELL_WORDS = 8;
/** A table with this many sentences broken between a cell and the one below it is prose set in columns. */
const MIN_BROKEN_SENTENCES = 2;
/** A cell that ends as a sentence or a clause does (or with the bracket or quote after it). */
const CLOSED = /[.!?:;]["'”’)\]*_`]*$/u;
/** A sentence's end inside a cell, the next sentence's start after it ("… (RCAC). It"). */
const SENTENCE_INSIDE = /[\p{L}\p{N})"'”’][.!?]["'”’)]*\s+["'“‘(]*\p{Lu}/u;
const wordCount = (cell: string) => cell.split(/\s+/).filter(Boolean).length;

/**
 * Whether a table's rows (its header first) are lines of running prose set side by side rather
 * than a table: a page laid out in columns that a converter read as one (a back cover's blurb
 * between its side headings and a margin note). Such a table breaks sentences between rows: a cell
 * that is a line of prose (PROSE_CELL_WORDS words or more) ends one sentence, starts the next and
 * stops without sentence punctuation, and the cell below it goes on with a small letter ("… (RCAC).
 * It" over "offers a broad description …"), and its first row (the header) is such a line of prose
 * broken off, not names of columns. MIN_BROKEN_SENTENCES of them under such a first row make it
 * prose. A real table's header names its columns; its cells end where they end, however long its
 * descriptions, but a row of them can look the same ("… this machine. Machine scope" over "verify
 * TLS certificates …"), so `rows` must start at the table's header, never at a row inside it.
 */
export function isProseLayout(rows: readonly (readonly string[])[]): boolean {
  const prose = (cell: string) => wordCount(cell) >= PROSE_CELL_WORDS && !CLOSED.test(cell);
  let broken = 0;
  for (let r = 0; r + 1 < rows.length; r++) {
    rows[r]!.forEach((cell, c) => {
      const below = rows[r + 1]![c] ?? '';
      if (prose(cell) && SENTENCE_INSIDE.test(cell) && /^\p{Ll}/u.test(below)) broken++;
    });
  }
  return broken >= MIN_BROKEN_SENTENCES && (rows[0] ?? []).some(prose);
}

/** The text of a table of prose set side by side: each column's cells in order, one paragraph per column. */
export function proseOfColumns(rows: readonly (readonly string[])[]): string[] {
  const columns = Math.max(...rows.map((row) => row.length));
  return Array.from({ length: columns }, (_, c) =>
    rows
      .map((row) => row[c] ?? '')
      .filter(Boolean)
      .join(' '),
  ).filter(Boolean);
}
