/**
 * The section an answer quotes a source from. A search passage carries the heading path of the
 * section it starts in, but a passage may run on through short sections into the next ones: a
 * sentence quoted from its end is in the section of the last heading line above it. Shared by the
 * chat webview's Sources list and VS Code's native chat. No `vscode` import, no DOM.
 */
import { citedStatements } from './citations';
import { locateQuote, type TextSpan } from './quoteLocate';

/** An ATX heading line, as the backend's chunker reads it (setext headings reach passages as `## Title`). */
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

interface HeadingLine {
  at: number;
  level: number;
  title: string;
}

/** The heading lines of `text` that start before `end`, outside fenced code ("# comment" in a shell block is not one). */
function headingLines(text: string, end: number): HeadingLine[] {
  const headings: HeadingLine[] = [];
  let fence: string | undefined;
  for (let at = 0; at < end && at <= text.length;) {
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(at, lineEnd).replace(/\r$/, '');
    const opening = FENCE.exec(line);
    if (fence) {
      if (opening && opening[1]![0] === fence[0] && opening[1]!.length >= fence.length && !line.slice(opening[0].length).trim()) {
        fence = undefined;
      }
    } else if (opening) {
      fence = opening[1]!;
    } else {
      const heading = ATX_HEADING.exec(line);
      if (heading) headings.push({ at, level: heading[1]!.length, title: (heading[2] ?? '').trim() });
    }
    if (newline === -1) break;
    at = newline + 1;
  }
  return headings;
}

/**
 * The heading path in force at `position` of a passage's `content`, given the heading path of
 * the section the passage starts in (`heading`, "Guide > Usage"). The passage's first line is
 * that section's heading, whose level places the ones below it: "## Settings" after
 * "### Usage" of "Guide > Intro > Usage" is "Guide > Settings". Levels of the path above its last
 * heading are not in the passage; they are taken to be one apart (as in most documents), so a
 * heading never ends up nested under one it is not under; at worst an ancestor is left out.
 */
export function headingAt(content: string, position: number, heading: string | undefined): string | undefined {
  const lines = headingLines(content, position);
  const path: Array<{ title: string; level?: number }> = (heading ?? '')
    .split(' > ')
    .map((title) => title.trim())
    .filter(Boolean)
    .map((title) => ({ title }));
  let next = 0;
  const first = lines[0];
  if (first && path.length && !content.slice(0, first.at).trim()) {
    // The section the passage starts in: its heading line gives the path its levels. A first line
    // naming another section (passages chunked by earlier versions put the heading of where the
    // passage ended there) says nothing of where the passage's text is: it is passed over.
    if (first.title === path[path.length - 1]!.title) {
      path.forEach((entry, i) => (entry.level = first.level - (path.length - 1 - i)));
    }
    next = 1;
  }
  for (const { level, title } of lines.slice(next)) {
    while (path.length && (path[path.length - 1]!.level ?? Infinity) >= level) path.pop();
    if (title) path.push({ title, level });
  }
  return path.map((entry) => entry.title).join(' > ') || undefined;
}

/** A source as the Sources list labels it: its text and the heading path of the section it starts in. */
export interface LabelledSource {
  content: string;
  heading?: string;
}

/**
 * Where the answer's first quote of source `number` is in the source's `content` (located as the
 * source opener locates it, which scrolls there), or undefined when the answer quotes nothing of
 * it that can be found.
 */
export function quotedSpan(answer: string, number: number, sourceCount: number, content: string): TextSpan | undefined {
  for (const statement of citedStatements(answer, number, sourceCount)) {
    const [span] = locateQuote(content, statement);
    if (span) return span;
  }
  return undefined;
}

/**
 * The heading path to show for source `number` of an answer: that of the section its first
 * quote (`quotedSpan`) is in, or the passage's own heading when the answer quotes nothing of it
 * that can be found.
 */
export function quotedHeading(answer: string, number: number, sourceCount: number, source: LabelledSource): string | undefined {
  const span = quotedSpan(answer, number, sourceCount, source.content);
  return span ? headingAt(source.content, span.start, source.heading) : source.heading;
}
