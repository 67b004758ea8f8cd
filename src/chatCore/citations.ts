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
