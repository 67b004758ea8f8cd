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

/** One line of the Sources list: the source's link (Markdown), and, as plain text, its section and store. */
export interface SourceListEntry {
  n: number;
  markdown: string;
  /** The heading path of the passage ("Usage > Folder sync"): its last heading is shown. */
  heading?: string;
  /** The store the passage is from. */
  store?: string;
}

/** The section a heading path ends in ("Usage > Folder sync" → "Folder sync"). */
export function sectionOf(heading: string | undefined): string | undefined {
  const last = heading?.split(' > ').pop()?.trim();
  return last || undefined;
}

function escapeText(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#|!]/g, (c) => `\\${c}`);
}

/**
 * The Sources list under an answer: one line per source, `[n]` the number its citations use, in
 * number order, each with the section of its passage when known ("[2] README.md › Folder sync ·
 * demo"): passages of one file tell apart. Not a Markdown ordered list: that numbers its items
 * from the first one on ("3., 4., 5." for sources cited as [3], [2], [1]) whatever numbers the
 * lines carry.
 */
export function sourceListMarkdown(entries: readonly SourceListEntry[]): string {
  return [...entries]
    .sort((a, b) => a.n - b.n)
    .map(({ n, markdown, heading, store }) => {
      const section = sectionOf(heading);
      const line = `${markdown}${section ? ` › ${escapeText(section)}` : ''}${store ? ` · ${escapeText(store)}` : ''}`;
      return `- \\[${n}\\] ${line}`;
    })
    .join('\n');
}

/** A quoted sentence wrapped in straight or curly quotes, as `local-extractive` writes it. */
const QUOTED = /^["“](.+)["”]$/s;
/** The end of the sentence before the one a citation closes. */
const SENTENCE_END = /[.!?]["')\]*_`]*\s+(?=["'(*_`]*[\p{Lu}\p{N}])/gu;

/**
 * The text a citation stands behind: its sentence or quote between `from` (the line's start or
 * the end of an earlier citation) and `cut` (the first of the citations written together with
 * it, "[1][2]"), or, for citations on a line of their own, the table or code block above them.
 */
function statementBefore(text: string, lineStart: number, from: number, cut: number): string {
  if (from === lineStart && !text.slice(lineStart, cut).trim()) {
    // Walked back rather than matched (`/\s+$/` is quadratic on a long run of spaces).
    let end = lineStart;
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    const blockStart = end < 2 ? 0 : text.lastIndexOf('\n\n', end - 2) + 1;
    return text.slice(blockStart, end).trim();
  }
  const statement = text
    .slice(from, cut)
    .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+/, '')
    .replace(/^\s*>\s?/, '')
    .trim();
  const quoted = QUOTED.exec(statement);
  if (quoted) return quoted[1]!.trim();
  let sentenceStart = 0;
  for (const match of statement.matchAll(SENTENCE_END)) sentenceStart = match.index + match[0].length;
  return statement.slice(sentenceStart).trim();
}

/** A fence's marker at the start of a line's content. */
const FENCE_MARKER = /^(`{3,}|~{3,})/;
/** A list item's marker at the start of a line's content, and the spaces after it. */
const LIST_MARKER = /^([-*+]|\d{1,9}[.)])( +|$)/;
/** A line that ends a paragraph without a blank line: a heading or a thematic break. */
const BLOCK_BREAK = /^(?:#{1,6}(?:\s|$)|(?:[-*_][ \t]*){3,}$)/;
/** A line that starts a block of its own rather than carry on a paragraph: a heading, a break, a fence, a quote. */
const BLOCK_START = /^(?:#{1,6}(?:\s|$)|(?:[-*_][ \t]*){3,}$|`{3,}|~{3,}|>)/;

/** How far a line's content is indented (in columns, a tab to the next multiple of four) and where it starts. */
function indentOf(line: string): { width: number; at: number } {
  let width = 0;
  let at = 0;
  for (; at < line.length; at++) {
    if (line[at] === ' ') width++;
    else if (line[at] === '\t') width += 4 - (width % 4);
    else break;
  }
  return { width, at };
}

/**
 * Where the answer's code is, as sorted `[start, end)` ranges: fenced blocks, indented code
 * blocks (four columns past the list item the line is in, after a blank line) and inline code
 * spans, in which markdown shows `[1]` as code, not as a citation.
 */
function codeRanges(text: string): Array<[number, number]> {
  return scanCode(text).ranges;
}

/**
 * The line that closes a code block the text leaves open at its end, if any: the fence's marker
 * ("```") indented as the fence is, so that a fence in a list item closes inside that item.
 */
export function openFence(text: string): string | undefined {
  return scanCode(text).open;
}

/**
 * Reads the answer line by line as CommonMark does for what decides code: fences, indented code
 * (which cannot interrupt a paragraph), and the list items whose content column a line's
 * indentation is measured from. Block quotes and HTML blocks are read as paragraphs.
 */
function scanCode(text: string): { ranges: Array<[number, number]>; open?: string } {
  const ranges: Array<[number, number]> = [];
  let fence: { marker: string; indent: string; start: number; column: number } | undefined;
  let indented: { start: number; end: number; column: number } | undefined;
  /** The content columns of the list items the current line may be in, innermost last. */
  const lists: number[] = [];
  let paragraph = false;
  for (let lineStart = 0; lineStart <= text.length;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const { width, at } = indentOf(line);
    const content = line.slice(at);
    const blank = !content.trim();
    if (fence && !blank && width < fence.column) {
      // A fence in a list item ends with the item: at a line left of the item's content.
      ranges.push([fence.start, lineStart - 1]);
      fence = undefined;
      paragraph = false;
    }
    if (fence) {
      const closing = width - fence.column <= 3 ? FENCE_MARKER.exec(content) : null;
      if (
        closing &&
        closing[1]![0] === fence.marker[0] &&
        closing[1]!.length >= fence.marker.length &&
        !content.slice(closing[0].length).trim()
      ) {
        ranges.push([fence.start, lineEnd]);
        fence = undefined;
      }
    } else if (indented && (blank || width >= indented.column + 4)) {
      if (!blank) indented.end = lineEnd;
    } else {
      if (indented) {
        ranges.push([indented.start, indented.end]);
        indented = undefined;
      }
      if (blank) {
        paragraph = false;
      } else {
        // A line left of a list item's content is no longer in that item, unless it carries on the item's paragraph.
        if (!paragraph || BLOCK_START.test(content)) {
          while (lists.length && width < lists.at(-1)!) {
            lists.pop();
            // The item's paragraph ended with it: what follows is no continuation of it.
            paragraph = false;
          }
        }
        const column = lists.at(-1) ?? 0;
        const item = width < column + 4 ? LIST_MARKER.exec(content) : null;
        const opening = width < column + 4 ? FENCE_MARKER.exec(content) : null;
        if (!paragraph && width >= column + 4) {
          indented = { start: lineStart, end: lineEnd, column };
        } else if (opening) {
          fence = { marker: opening[1]!, indent: line.slice(0, at), start: lineStart, column };
          paragraph = false;
        } else if (item && !BLOCK_BREAK.test(content)) {
          while (lists.length && width < lists.at(-1)!) lists.pop();
          // Content after more than four spaces is code within the item: its column is one past the marker.
          const spaces = item[2]!.length;
          lists.push(width + item[1]!.length + (spaces > 4 || !spaces ? 1 : spaces));
          paragraph = true;
          inlineCode(line, lineStart, ranges);
        } else {
          // Four columns in, a "#" or "---" carries on the paragraph as text.
          paragraph = width >= column + 4 || !BLOCK_BREAK.test(content);
          inlineCode(line, lineStart, ranges);
        }
      }
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (indented) ranges.push([indented.start, indented.end]);
  if (!fence) return { ranges };
  ranges.push([fence.start, text.length]);
  return { ranges, open: `${fence.indent}${fence.marker}` };
}

/** Inline code on a line: a run of backticks up to the next run of the same length. */
function inlineCode(line: string, lineStart: number, ranges: Array<[number, number]>): void {
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ at: m.index, length: m[0].length }));
  for (let i = 0; i < runs.length; i++) {
    let close = i + 1;
    while (close < runs.length && runs[close]!.length !== runs[i]!.length) close++;
    if (close === runs.length) continue;
    ranges.push([lineStart + runs[i]!.at, lineStart + runs[close]!.at + runs[close]!.length]);
    i = close;
  }
}

/** A citation of an answer, outside its code: where it stands (`[start, end)`) and the sources it names. */
export interface CitationSpan {
  start: number;
  end: number;
  numbers: number[];
}

/** The answer's citations in order, leaving out what stands in code (where `[1]` shows as code) or in a link's address. */
export function citationSpans(text: string, sourceCount: number): CitationSpan[] {
  const citations: CitationSpan[] = [];
  const code = codeRanges(text);
  // A bracket in a link's address (`(https://x/?f[1]=2)`) is part of the address.
  const addresses = [...text.matchAll(/\]\([^\s)]*/g)].map((m) => [m.index + 2, m.index + m[0].length] as const);
  let inCode = 0;
  let inAddress = 0;
  for (let pos = text.indexOf('['); pos !== -1; pos = text.indexOf('[', pos + 1)) {
    while (inCode < code.length && code[inCode]![1] <= pos) inCode++;
    while (inAddress < addresses.length && addresses[inAddress]![1] <= pos) inAddress++;
    if ((inCode < code.length && code[inCode]![0] <= pos) || (inAddress < addresses.length && addresses[inAddress]![0] <= pos)) {
      continue;
    }
    // Markdown shows an escaped bracket (`\\[1]`) as text.
    const match = text[pos - 1] === '\\' ? undefined : citationAt(text, pos, sourceCount);
    if (!match) {
      continue;
    }
    citations.push({ start: pos, end: pos + match.length, numbers: match.numbers });
    pos += match.length - 1;
  }
  return citations;
}

/**
 * What the answer says each time it cites source `number`, in order: the quoted sentence (or the
 * statement, when the model did not quote), or the table or code block a citation follows. The
 * source opener highlights these in the source, not the whole passage.
 */
export function citedStatements(text: string, number: number, sourceCount: number): string[] {
  const citations = citationSpans(text, sourceCount);
  const statements: string[] = [];
  // Citations right before one ("[1][2]") share its statement; an earlier one ends the statement
  // before it: "A [1] and B [2]" cites B with [2]. `group` is the first of those written together.
  let group = 0;
  let lineStart = 0;
  citations.forEach((citation, i) => {
    const previous = citations[i - 1];
    // Only the text since the previous citation is searched, so a long line is read once.
    const gapStart = previous?.end ?? 0;
    const gap = text.slice(gapStart, citation.start);
    const newline = gap.lastIndexOf('\n');
    const sameLine = !!previous && newline === -1;
    if (newline !== -1 || !previous) lineStart = gapStart + newline + 1;
    if (!sameLine || gap.trim()) {
      group = i;
    }
    if (!citation.numbers.includes(number)) {
      return;
    }
    const before = citations[group - 1];
    const from = before && before.start >= lineStart ? before.end : lineStart;
    statements.push(statementBefore(text, lineStart, from, citations[group]!.start));
  });
  return statements;
}
