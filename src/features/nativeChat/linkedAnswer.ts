/**
 * An answer streamed into VS Code's Chat view with its citations as links: `[1]` opens source 1 at
 * the sentence it stands behind, as the DocChat chat's citations do. The text is passed on as it
 * arrives, holding back only what the next part could still change. No `vscode` import
 * (unit-tested).
 *
 * The answer is shown as trusted markdown (for the citations' command), so the model's own text
 * never carries a `command:` link: its address is broken (see `disarm`), whatever the model wrote.
 */
import { citationSpans, citedStatements, openFence } from '../../chatCore/citations';

/** Markdown of a link to source `n` labelled `label`, opening it at `statement`. */
export type CitationLink = (n: number, label: string, statement: string) => string;

/** A citation not closed yet ("[1", "[1, 2"), or closed but maybe a link's text ("[1]" before "(…)"). */
const OPEN_CITATION = /\[[\d,\s]*\]?$/;
/** A line that may still become a code fence ("`", "``", "~~"). */
const FENCE_START = /^[ \t]*(?:`+|~+)$/;
/**
 * A `command:` address in the model's markdown: a link's (`](command:`), an autolink's
 * (`<command:`) or a link definition's (`]: command:`), any case. The `:` is where it is broken.
 */
const COMMAND_ADDRESS = /((?:\]\(\s*<?|<|\]:\s*<?)command)(?=:)/gi;
/** Put between "command" and ":", it makes the address no command (and shows as nothing). */
const BREAK = '\u200b';

export class LinkedAnswer {
  private text = '';
  private shown = 0;

  constructor(
    private readonly sourceCount: number,
    private readonly link: CitationLink,
  ) {}

  /** The answer's text as written so far (without links). */
  get answer(): string {
    return this.text;
  }

  /** Adds a streamed part; returns the markdown that can be shown now ('' when nothing can). */
  push(part: string): string {
    this.text += part;
    // The ":" that completes a command address is in this part, past what was shown.
    if (part.includes(':')) this.text = disarm(this.text);
    return this.showUpTo(this.settled());
  }

  /** The rest, once the answer is complete (or broke off): a code block left open is closed. */
  end(): string {
    const rest = this.showUpTo(this.text.length);
    const fence = openFence(this.text);
    return fence ? `${rest}${this.text.endsWith('\n') ? '' : '\n'}${fence}\n` : rest;
  }

  /** Where the text the next part cannot change ends. */
  private settled(): number {
    let end = this.text.length;
    const open = OPEN_CITATION.exec(this.text);
    if (open) end = open.index;
    // A run of backticks at the very end may still grow ("``" then "`").
    const trailingTicks = /`+$/.exec(this.text.slice(0, end));
    if (trailingTicks) end = trailingTicks.index;
    const lineStart = this.text.lastIndexOf('\n', end - 1) + 1;
    const line = this.text.slice(lineStart, end);
    if (FENCE_START.test(line) || (trailingTicks && !line.trim())) {
      end = lineStart;
    } else {
      // A run of backticks not closed on its line yet opens inline code: a citation after it is code.
      const unclosed = unclosedBacktickRun(line);
      if (unclosed !== undefined) end = lineStart + unclosed;
    }
    return Math.max(end, this.shown);
  }

  private showUpTo(end: number): string {
    if (end <= this.shown) return '';
    const text = this.text.slice(0, end);
    const from = this.shown;
    this.shown = end;
    // Most parts hold no citation: passed on as they are.
    if (!text.includes('[', from)) return text.slice(from);
    let out = '';
    let at = from;
    for (const span of citationSpans(text, this.sourceCount)) {
      if (span.start < from) continue;
      out += text.slice(at, span.start);
      const links = span.numbers.map((n) => ({ n, statement: citedStatements(text.slice(0, span.end), n, this.sourceCount).at(-1) ?? '' }));
      out +=
        links.length === 1
          ? this.link(links[0]!.n, `[${links[0]!.n}]`, links[0]!.statement)
          : `\\[${links.map(({ n, statement }) => this.link(n, String(n), statement)).join(', ')}\\]`;
      at = span.end;
    }
    return out + text.slice(at);
  }
}

/** The model's text with every `command:` address broken (see `COMMAND_ADDRESS`). */
function disarm(text: string): string {
  return text.replace(COMMAND_ADDRESS, `$1${BREAK}`);
}

/** A line of the Sources list DocChat shows under an answer (`sourceListMarkdown`). */
const SOURCE_LINE = /^- \\\[\d{1,3}\\\] /;
/** The heading above that list, in bold. */
const BOLD_LINE = /^\*\*[^*]+\*\*$/;
/** The note in italics that may close the answer ("*Answered by … through DocChat's Local mode.*"). */
const ITALIC_LINE = /^\*.*\*$/;

/** The text without the Sources list at its end (or before its closing note in italics). */
function withoutSourceList(text: string): string {
  const lines = text.split('\n');
  let end = lines.length;
  while (end > 0 && !lines[end - 1]!.trim()) end--;
  const note = end > 0 && ITALIC_LINE.test(lines[end - 1]!) && !SOURCE_LINE.test(lines[end - 1]!) ? end - 1 : end;
  let last = note;
  while (last > 0 && !lines[last - 1]!.trim()) last--;
  let first = last;
  while (first > 0 && SOURCE_LINE.test(lines[first - 1]!)) first--;
  if (first === last || first < 2 || lines[first - 1]!.trim() || !BOLD_LINE.test(lines[first - 2]!)) return text;
  let keep = first - 2;
  while (keep > 0 && !lines[keep - 1]!.trim()) keep--;
  const before = lines.slice(0, keep).join('\n');
  return note < end ? `${before}\n\n${lines.slice(note, end).join('\n')}` : before;
}

/**
 * The answer's plain text from what was shown of it (a later turn's history reads it): the
 * citation links back to `[1]`, `[2, 3]`, the break of a command address taken out, and without
 * the Sources list, whose links' addresses are no words of the answer.
 */
export function unlinkedAnswer(markdown: string): string {
  return withoutSourceList(markdown)
    .replace(/\[\\\[(\d{1,3})\\\]\]\(command:[^)\s]*(?: "[^"]*")?\)/g, '[$1]')
    .replace(
      /\\\[((?:\[\d{1,3}\]\(command:[^)\s]*(?: "[^"]*")?\)(?:, )?)+)\\\]/g,
      (_, links: string) => `[${links.replace(/\[(\d{1,3})\]\([^)]*\)/g, '$1')}]`,
    )
    .replaceAll(BREAK, '');
}

/** Where on `line` a run of backticks starts that no later run of the same length closes. */
function unclosedBacktickRun(line: string): number | undefined {
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ at: m.index, length: m[0].length }));
  for (let i = 0; i < runs.length; i++) {
    let close = i + 1;
    while (close < runs.length && runs[close]!.length !== runs[i]!.length) close++;
    if (close === runs.length) return runs[i]!.at;
    i = close;
  }
  return undefined;
}
