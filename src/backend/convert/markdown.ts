/** Small markdown builders shared by the converters. */

/** A cell's text on one line: its lines (paragraphs, line breaks, list items) kept apart by `<br>`, pipes escaped. */
export function cellText(text: string): string {
  return text
    .split(/\r?\n|\u2028|\u2029|\v/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('<br>')
    .replace(/\|/g, '\\|');
}

/**
 * Rows as a GFM pipe table (first row is the header), or, when `asTable` is false, one line per
 * row with cells joined by " | " (what the skip option gives for recognised tables).
 */
export function markdownTable(rows: string[][], asTable = true): string {
  const cleaned = rows.map((r) => r.map(cellText));
  if (!cleaned.length) return '';
  if (!asTable) return cleaned.map((cells) => cells.join(' | ')).join('\n');
  const width = Math.max(...cleaned.map((r) => r.length));
  const line = (cells: string[]) => `| ${[...cells, ...Array<string>(width - cells.length).fill('')].join(' | ')} |`;
  const [head, ...body] = cleaned;
  return [line(head!), line(Array<string>(width).fill('---')), ...body.map(line)].join('\n');
}

/** Drops trailing empty cells and rows, and rows that are entirely empty. */
export function trimRows(rows: string[][]): string[][] {
  const out = rows.map((row) => {
    let end = row.length;
    while (end > 0 && !row[end - 1]!.trim()) end--;
    return row.slice(0, end);
  });
  return out.filter((row) => row.length > 0);
}

/** One sentence of what a conversion left out, appended to the markdown so the reader knows. */
export function notesSection(notes: readonly string[]): string {
  if (!notes.length) return '';
  return `> **Conversion notes**\n${notes.map((n) => `> - ${n}`).join('\n')}`;
}
