/**
 * An answer streamed into VS Code's Chat view with its citations as links: `[1]` opens source 1 at
 * the sentence it stands behind, as the DocChat chat's citations do. The text is passed on as it
 * arrives, holding back only what the next part could still change. No `vscode` import
 * (unit-tested).
 */
import { citationSpans, citedStatements } from '../../chatCore/citations';

/** Markdown of a link to source `n` labelled `label`, opening it at `statement`. */
export type CitationLink = (n: number, label: string, statement: string) => string;

/** A citation not closed yet ("[1", "[1, 2"), or closed but maybe a link's text ("[1]" before "(…)"). */
const OPEN_CITATION = /\[[\d, ]*\]?$/;
/** A line that may still become a code fence ("`", "``", "~~"). */
const FENCE_START = /^ {0,3}(?:`{1,}|~{1,})$/;

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
    return this.showUpTo(this.settled());
  }

  /** The rest, once the answer is complete. */
  end(): string {
    return this.showUpTo(this.text.length);
  }

  /** Where the text the next part cannot change ends. */
  private settled(): number {
    let end = this.text.length;
    const open = OPEN_CITATION.exec(this.text);
    if (open) end = open.index;
    const lineStart = this.text.lastIndexOf('\n', end - 1) + 1;
    const line = this.text.slice(lineStart, end);
    if (FENCE_START.test(line)) {
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
    let out = '';
    let at = this.shown;
    for (const span of citationSpans(text, this.sourceCount)) {
      if (span.start < this.shown) continue;
      out += text.slice(at, span.start);
      const links = span.numbers.map((n) => {
        const statement = citedStatements(text.slice(0, span.end), n, this.sourceCount).at(-1) ?? '';
        return { n, statement };
      });
      out +=
        links.length === 1
          ? this.link(links[0]!.n, `[${links[0]!.n}]`, links[0]!.statement)
          : `\\[${links.map(({ n, statement }) => this.link(n, String(n), statement)).join(', ')}\\]`;
      at = span.end;
    }
    out += text.slice(at);
    this.shown = end;
    return out;
  }
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
