/**
 * The answer benchmarks' "previous": `local-extractive` as it answered before a word's rarity in
 * everyday English counted in its sentence choice; kept unchanged with answerScoring.ts and
 * answerUnits.ts beside it, so one run measures both.
 *
 * `local-extractive`: answers from the messages it is given, by extraction only.
 *
 * Numbered sources are recognised in system, user and tool messages as blocks starting with a
 * line like `[1] title`, `Source 1: title`, `### [2] file.md` or `<source id="3">`; a block runs
 * to the next marker, `</source>`, a `Question:` line or the end of the message. A source's text
 * may hold lines that look like markers (a changelog line "[3]), in number order", a list item
 * "- [1] …", a footnote): inside a source, a line is the next marker only when it is written the
 * way the source's own marker is (`sourceMarker`: the same prefix, label and separator, indented no
 * more), and, while the markers so far were numbered in order, carries the next number (another
 * number only when no later line carries the next: sources numbered out of order or with a gap); a
 * `<source>` tag with the next number also opens one. `[n]` followed by `)`, `,`, `;` or another character
 * that does not start a title is a citation, not a marker. A line of the source's fenced code
 * block, or one whose number this message has given already, is the source's text. The question is
 * the last user message without its sources; earlier user messages say what a follow-up refers to.
 * The answer quotes the sentences, table rows and code blocks of the sources that answer the
 * question best (answerScoring.ts), best source first, each followed by the `[n]` of the source it
 * comes from; rows of a table are quoted as a table, a row whose header the source does not hold
 * as its cells. Sources it does not quote are not cited.
 * Without sources it says what it is and what it can do; it never claims to be another model.
 */
import { namedFiles } from '../../../../src/common/terms';
import { asksForSeveral, DEFAULT_SELECTION, questionType, scoreUnits, selectUnits, withFirstQuote } from './answerScoring';
import { rowCells, type Unit, unitsOf } from './answerUnits';
import { LOCAL_CHAT_MODEL } from '../../../../src/backend/gateway/models';

export interface PlainMessage {
  role: string;
  content: string;
}

export interface Source {
  n: number;
  title: string;
  text: string;
}

/**
 * A line that may start a source: its indent, prefix (`###`, `-`), then `[n]` (followed by the end
 * of the line, a space, or `:`, `.` or `-` and a space: "[3])" and "[2]," are citations), a label
 * with its number (`Source 1:`) or a `<source id="n">` tag; then a separator and the title.
 */
const MARKER =
  /^(\s*)(?:(#{1,6}(?!#)|[-*](?=\s))\s*)?(?:\[(\d{1,3})\](?=\s|$|[:.-](?:\s|$))|(source|document|doc|context)\s*(?:#\s*)?\[?(\d{1,3})\]?(?=\s*[:.)\-\]]|\s*$)|<source\s+(?:id|n|index|number)\s*=\s*["']?(\d{1,3})["']?[^>]*>)\s*([:.)-]?)\s*(.*)$/i;
const QUESTION_LABEL = /^\s*(?:\*\*)?(?:user\s+)?(?:question|q)(?:\*\*)?\s*:\s*(.*)$/i;
const SOURCE_END = /^\s*<\/source>\s*$/i;
const FENCE = /^\s*(`{3,}|~{3,})/;

interface Parsed {
  sources: Source[];
  /** Text of the message outside source blocks. */
  rest: string;
  /** Text after a `Question:` label, when there is one. */
  labelledQuestion?: string;
}

interface Marker {
  n: number;
  /** How the marker is written: prefix, `[n]`, label or tag, and separator ("-|[n]|:"). */
  style: string;
  indent: number;
  tag: boolean;
  title: string;
}

/** The marker a line starts with, if it is written as one (`MARKER`). */
function sourceMarker(line: string): Marker | undefined {
  const m = MARKER.exec(line);
  if (!m) return undefined;
  const [, indent = '', prefix = '', bracket, label, labelled, tagged, separator = '', title = ''] = m;
  const tag = tagged !== undefined;
  const shape = tag ? '<source>' : bracket !== undefined ? '[n]' : label!.toLowerCase();
  return {
    n: Number(bracket ?? labelled ?? tagged),
    style: `${prefix}|${shape}|${tag ? '' : separator}`,
    indent: indent.replace(/\t/g, '    ').length,
    tag,
    title,
  };
}

export function parseMessage(content: string): Parsed {
  const sources: Source[] = [];
  const rest: string[] = [];
  let labelled: string[] | undefined;
  let current: { n: number; lines: string[]; marker: Marker } | undefined;
  const close = () => {
    if (!current) return;
    const [first = '', ...others] = current.lines;
    // A short first line followed by more text is a title ("[1] guide.md").
    const titled = others.some((l) => l.trim()) && first.length <= 160;
    const text = (titled ? others : current.lines).join('\n').trim();
    sources.push({ n: current.n, title: titled ? first.trim() : '', text });
    current = undefined;
  };
  // Inside a source, a fenced code block is its text: a line there that looks like a marker
  // ("[1] holidays.md (score 0.83)" in a transcript) starts no source.
  let fence: string | undefined;
  const used = new Set<number>();
  /** The numbers of the markers so far, while each is the one after the one before. */
  let last: number | undefined;
  let inOrder = true;
  const lines = content.replace(/\r\n?/g, '\n').split('\n');
  // Where each marker-like line of each style is last: whether the next number still comes.
  const lastAt = new Map<string, number>();
  lines.forEach((line, i) => {
    const marker = sourceMarker(line);
    if (marker) lastAt.set(`${marker.style}#${marker.n}`, i);
  });
  /** Whether a marker-like line (at `i`) inside the open source starts the next source, not a line of its text. */
  const opensNext = (marker: Marker, i: number): boolean => {
    if (!current) return true;
    const own = current.marker;
    const next = last! + 1;
    // Another way of writing markers is text, except a `<source>` tag with the next number.
    if (marker.style !== own.style || marker.indent > own.indent) return marker.tag && inOrder && marker.n === next;
    // Numbered in order so far: the next number, unless it never comes (sources numbered out of order).
    return !inOrder || marker.n === next || (lastAt.get(`${own.style}#${next}`) ?? -1) < i;
  };
  for (const [i, line] of lines.entries()) {
    const opening = current ? FENCE.exec(line) : undefined;
    if (fence !== undefined || opening) {
      if (fence === undefined) fence = opening![1]!;
      else if (line.trim().startsWith(fence) && !line.trim().slice(fence.length).trim()) fence = undefined;
      current!.lines.push(line);
      continue;
    }
    const marker = sourceMarker(line);
    // A number already given in this message is a line of the source it is in, not a new one.
    if (marker && !used.has(marker.n) && opensNext(marker, i)) {
      close();
      used.add(marker.n);
      if (last !== undefined && marker.n !== last + 1) inOrder = false;
      last = marker.n;
      current = { n: marker.n, lines: [marker.title], marker };
      continue;
    }
    if (current && SOURCE_END.test(line)) {
      close();
      continue;
    }
    const question = QUESTION_LABEL.exec(line);
    if (question) {
      close();
      labelled = [question[1] ?? ''];
      continue;
    }
    if (labelled) labelled.push(line);
    else if (current) current.lines.push(line);
    else rest.push(line);
  }
  close();
  return { sources, rest: rest.join('\n').trim(), labelledQuestion: labelled?.join('\n').trim() };
}

export interface Collected {
  sources: Source[];
  question: string;
  /** Earlier questions of the conversation, oldest first. */
  earlier: string[];
  /** What the answer before the question said (`answeredText`): what a question that leans on the conversation is about. */
  previousAnswer: string;
}

export function collectSources(messages: readonly PlainMessage[]): Collected {
  const byNumber = new Map<number, Source>();
  let question = '';
  let previousAnswer = '';
  const earlier: string[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'assistant') {
      if (messages.slice(i + 1).some((m) => m.role === 'user')) previousAnswer = answeredText(message.content);
      return;
    }
    const parsed = parseMessage(message.content);
    for (const source of parsed.sources) if (source.text) byNumber.set(source.n, source);
    if (message.role !== 'user') return;
    const asked = parsed.labelledQuestion || parsed.rest || (parsed.sources.length ? '' : message.content.trim());
    if (messages.slice(i + 1).every((m) => m.role !== 'user')) question = asked;
    else if (asked) earlier.push(asked);
  });
  return { sources: [...byNumber.values()].sort((a, b) => a.n - b.n), question, earlier, previousAnswer };
}

const INTRO = 'From the supplied sources:';
const CITATION = /\[\d{1,3}\]/g;

/**
 * What an answer said, for the question after it: of this model's answers, the quoted text before
 * each citation (not its opening line, footer or what it says when it has nothing to quote); of
 * another model's, its text without the citation marks.
 */
export function answeredText(content: string): string {
  const text = content.trim();
  // What it says with no sources or no question is not an answer.
  if (text.startsWith(`I am ${LOCAL_CHAT_MODEL},`) || NO_QUESTION.test(text)) return '';
  if (!text.startsWith(INTRO) && !text.includes(FOOTER)) return text.replace(/\s*\[\d{1,3}\]/g, '');
  const statements = text.replace(INTRO, '').split(CITATION);
  // After the last citation comes the footer, or nothing was quoted at all.
  return statements
    .slice(0, -1)
    .map((statement) => statement.trim())
    .filter(Boolean)
    .join('\n');
}

export interface Extract {
  /**
   * A sentence (or a table row without its header, as its cells: "a · b"), a code block, or rows
   * of one table with the table's header (markdown).
   */
  text: string;
  source: number;
  kind: Unit['kind'];
}

/** A labelled sentence shorter than this is a topic line: the sentence after it is quoted with it. */
const LABEL_TOKENS = 20;

/**
 * The question's own words weigh most; earlier questions of the conversation, and for a question
 * that leans on it the previous answer, say what "it" is.
 */
export function extract(sources: readonly Source[], question: string, earlier: readonly string[] = [], previousAnswer = ''): Extract[] {
  const all = sources.flatMap((source) => unitsOf(source));
  // A question that names a file among the sources ("What is in budget.xlsx?") is answered from
  // that file: by its sentences that share the question's words, else by its opening ones.
  const named = namedSources(sources, question);
  const units = named.size ? all.filter((unit) => named.has(unit.source)) : all;
  let picked = selectUnits(withFirstQuote(scoreUnits(units, question, earlier, previousAnswer), question), asksForSeveral(question));
  if (!picked.length && named.size) {
    picked = units.filter((unit) => unit.position === 0 && unit.kind === 'sentence').map((unit) => ({ unit, score: 1, terms: [] }));
    picked = picked.slice(0, DEFAULT_SELECTION.maxQuotes);
  }
  const first = picked[0]?.unit;
  // The sentence that matches the question best may only name the topic ("Why the HTTP layer is
  // hand-written"); the answer to a "why", or to such a label, is the sentence after it.
  if (first?.kind === 'sentence' && (questionType(question) === 'reason' || (first.labelled && first.tokens.length < LABEL_TOKENS))) {
    const next = units.find((u) => u.source === first.source && u.block === first.block && u.position === first.position + 1);
    if (next?.kind === 'sentence' && !picked.some((p) => p.unit === next)) {
      picked[0] = { ...picked[0]!, unit: { ...first, text: `${first.text} ${next.text}` } };
    }
  }
  // Best source first, and its quotes together; rows of one table become one table.
  const sourceRank = new Map<number, number>();
  picked.forEach((p, i) => sourceRank.has(p.unit.source) || sourceRank.set(p.unit.source, i));
  const ordered = [...picked].sort((a, b) => sourceRank.get(a.unit.source)! - sourceRank.get(b.unit.source)! || b.score - a.score);
  const out: Extract[] = [];
  const tables = new Map<string, Unit[]>();
  for (const { unit } of ordered) {
    if (unit.kind !== 'row' || !unit.table) {
      // A row without its table's header (a passage that starts inside a table) would be a table
      // of one line: it is quoted as its cells, like a sentence.
      const headerless = unit.kind === 'row';
      out.push({ text: headerless ? rowCells(unit.text) : unit.text, source: unit.source, kind: headerless ? 'sentence' : unit.kind });
      continue;
    }
    const key = `${unit.source}:${unit.block}`;
    const rows = tables.get(key);
    if (rows) {
      rows.push(unit);
      continue;
    }
    tables.set(key, [unit]);
    out.push({ text: key, source: unit.source, kind: 'row' });
  }
  for (const quote of out) {
    const rows = quote.kind === 'row' ? tables.get(quote.text) : undefined;
    if (!rows) continue;
    rows.sort((a, b) => a.position - b.position);
    quote.text = [rows[0]!.table!.header, rows[0]!.table!.separator, ...rows.map((r) => r.text)].join('\n');
  }
  return out;
}

/** The sources whose title is a file the question names (by its name, or its path's end). */
export function namedSources(sources: readonly Source[], question: string): Set<number> {
  const files = namedFiles(question);
  const out = new Set<number>();
  if (!files.length) return out;
  for (const source of sources) {
    // "ledger2.md", "notes/ledger2.md", "ledger2.md (score 0.83)", "guide.md, section Sync".
    const words = source.title.toLowerCase().split(/[\s,;()]+/);
    if (words.some((word) => files.some((file) => word === file || word.endsWith(`/${file}`)))) out.add(source.n);
  }
  return out;
}

const FOOTER = `_${LOCAL_CHAT_MODEL}: quoted from the sources, not generated._`;
const NO_QUESTION = /^I received \d+ source\(s\) but no question\./;

export function describeSelf(): string {
  return (
    `I am ${LOCAL_CHAT_MODEL}, the built-in model of the local DocChat backend. I do not generate text: ` +
    'I answer a question by quoting the most relevant sentences of the numbered sources sent with it ' +
    '(for example the search results DocChat attaches to a question about a vector store), each followed by ' +
    'its citation such as [1]. No numbered sources came with this message, so there is nothing to quote. ' +
    'Ask about a vector store to get quoted answers, or run "DocChat: Use a Language Model…" to chat with a ' +
    'language model.'
  );
}

/**
 * What the model says when no sentence of the sources answers the question: in the words the chat
 * uses when a store's documents do not cover a question (the user meets both), and whole without
 * the chat (an MCP client or @docchat may show it), so it says what to try next.
 */
export function nothingToQuote(sourceCount: number): string {
  const documents = sourceCount === 1 ? 'The supplied document does' : 'The supplied documents do';
  return `${documents} not cover this question, so ${LOCAL_CHAT_MODEL} has nothing to quote. Try other words, or a different store.`;
}

/** The whole answer of the local model for a conversation. */
export function answer(messages: readonly PlainMessage[]): string {
  const { sources, question, earlier, previousAnswer } = collectSources(messages);
  if (!sources.length) return describeSelf();
  if (!question.trim()) {
    return `I received ${sources.length} source(s) but no question. Ask a question and I will quote the sentences of the sources that answer it.`;
  }
  const quotes = extract(sources, question, earlier.slice(-2), previousAnswer);
  if (!quotes.length) {
    return `${nothingToQuote(sources.length)}\n\n${FOOTER}`;
  }
  return `From the supplied sources:\n\n${render(quotes)}\n\n${FOOTER}`;
}

/**
 * Sentences as a list of quotes, each followed by its citation; a table or code block as itself,
 * its citation on the line after (a line right below a table would be read as one of its rows).
 */
function render(quotes: readonly Extract[]): string {
  const parts: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (list.length) parts.push(list.join('\n'));
    list = [];
  };
  for (const quote of quotes) {
    if (quote.kind === 'sentence') {
      list.push(`- "${escapeCitations(quote.text)}" [${quote.source}]`);
      continue;
    }
    flush();
    // A code block is shown as written; markdown escapes would be shown with it.
    parts.push(`${quote.kind === 'code' ? quote.text : escapeCitations(quote.text)}\n\n[${quote.source}]`);
  }
  flush();
  return parts.join('\n\n');
}

/**
 * A quoted `[3]` or `[2, 3]` (a changelog line "citing [3], [2], [1]") escaped as markdown, so it
 * reads as written and is not taken for a citation of this answer's sources.
 */
export function escapeCitations(text: string): string {
  return text.replace(/\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g, '\\[$1\\]');
}

/** ~4 characters per token, the same estimate as the chunker. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
