/**
 * Citation mapping: `[1]`, `[2, 3]` in an answer refer to the numbered sources of its prompt.
 * Shared by the host (which sources an answer cites) and the webview renderer (citations become
 * links). No `vscode` import, no DOM.
 */

/** `[n]` or `[n, m, …]` with 1–3 digit numbers, anchored at the scan position. */
const CITATION_AT = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/y;

export interface CitationMatch {
  /** Source numbers in the order written (duplicates kept out). */
  numbers: number[];
  /** Characters the citation occupies in the text. */
  length: number;
}

/**
 * The citation starting at `pos`, when every number in it names one of `sourceCount` sources.
 * `[1](https://…)` is a markdown link, not a citation.
 */
export function citationAt(text: string, pos: number, sourceCount: number): CitationMatch | undefined {
  if (sourceCount < 1 || text.charCodeAt(pos) !== 0x5b /* [ */) {
    return undefined;
  }
  CITATION_AT.lastIndex = pos;
  const match = CITATION_AT.exec(text);
  if (!match) {
    return undefined;
  }
  const end = pos + match[0].length;
  if (text.charCodeAt(end) === 0x28 /* ( */ || text.charCodeAt(end) === 0x3a /* : */) {
    return undefined;
  }
  const numbers: number[] = [];
  for (const part of match[1]!.split(',')) {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < 1 || n > sourceCount) {
      return undefined;
    }
    if (!numbers.includes(n)) {
      numbers.push(n);
    }
  }
  return { numbers, length: match[0].length };
}

/** Every source number the text cites, in order of first mention. */
export function citedSources(text: string, sourceCount: number): number[] {
  const cited: number[] = [];
  for (let pos = text.indexOf('['); pos !== -1; pos = text.indexOf('[', pos + 1)) {
    const match = citationAt(text, pos, sourceCount);
    if (!match) {
      continue;
    }
    for (const n of match.numbers) {
      if (!cited.includes(n)) {
        cited.push(n);
      }
    }
    pos += match.length - 1;
  }
  return cited;
}

/** A quoted sentence wrapped in straight or curly quotes, as `local-extractive` writes it. */
const QUOTED = /^["“](.+)["”]$/s;
/** The end of the sentence before the one a citation closes. */
const SENTENCE_END = /[.!?]["')\]*_`]*\s+(?=["'(*_`]*[\p{Lu}\p{N}])/gu;

/** The text a citation at `pos` stands behind: its sentence or quote, or the table or code block above it. */
function statementBefore(text: string, pos: number, sourceCount: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  let before = text.slice(lineStart, pos);
  if (!before.trim()) {
    // `[n]` on a line of its own cites the block above it (a quoted table or code block).
    const above = text.slice(0, lineStart).replace(/\s+$/, '');
    const blockStart = above.lastIndexOf('\n\n') + 1;
    return above.slice(blockStart).trim();
  }
  // Citations right before this one ("[1][2]") share its statement; an earlier one ends the
  // statement before it: "A [1] and B [2]" cites B with [2].
  const ends: number[] = [];
  for (let at = before.indexOf('['); at !== -1; at = before.indexOf('[', at + 1)) {
    const match = citationAt(before, at, sourceCount);
    if (match) ends.push(at, at + match.length);
  }
  while (ends.length && !before.slice(ends[ends.length - 1]).trim()) {
    before = before.slice(0, ends[ends.length - 2]);
    ends.length -= 2;
  }
  if (ends.length) before = before.slice(ends[ends.length - 1]);
  const statement = before
    .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+/, '')
    .replace(/^\s*>\s?/, '')
    .trim();
  const quoted = QUOTED.exec(statement);
  if (quoted) return quoted[1]!.trim();
  let sentenceStart = 0;
  for (const match of statement.matchAll(SENTENCE_END)) sentenceStart = match.index + match[0].length;
  return statement.slice(sentenceStart).trim();
}

/**
 * What the answer says each time it cites source `number`, in order: the quoted sentence (or the
 * statement, when the model did not quote), or the table or code block a citation follows. The
 * source opener highlights these in the source, not the whole passage.
 */
export function citedStatements(text: string, number: number, sourceCount: number): string[] {
  const statements: string[] = [];
  for (let pos = text.indexOf('['); pos !== -1; pos = text.indexOf('[', pos + 1)) {
    const match = citationAt(text, pos, sourceCount);
    if (!match) {
      continue;
    }
    if (match.numbers.includes(number)) {
      statements.push(statementBefore(text, pos, sourceCount));
    }
    pos += match.length - 1;
  }
  return statements;
}
