/**
 * The answer benchmark's "before": `local-extractive` as it answered before sentences were chosen
 * by how well they answer the question (kept unchanged, so one run measures both).
 *
 * `local-extractive`: answers from the messages it is given, by extraction only.
 *
 * Numbered sources are recognised in system, user and tool messages as blocks starting with a
 * line like `[1] title`, `Source 1: title`, `### [2] file.md` or `<source id="3">`; a block runs
 * to the next marker, `</source>`, a `Question:` line or the end of the message. The question is
 * the last user message without its sources. The answer quotes the sentences of the sources that
 * share the most (and the rarest) words with the question, each followed by its `[n]`.
 * Without sources it says what it is and what it can do; it never claims to be another model.
 */
import { tokenize } from '../../../src/backend/search/tokenize';
import { LOCAL_CHAT_MODEL } from '../../../src/backend/gateway/models';

export interface PlainMessage {
  role: string;
  content: string;
}

export interface Source {
  n: number;
  title: string;
  text: string;
}

const MARKER =
  /^\s*(?:#{1,6}\s*|[-*]\s+)?(?:\[(\d{1,3})\]|(?:source|document|doc|context)\s*#?\s*\[?(\d{1,3})\]?(?=\s*[:.)\-\]]|\s*$)|<source\s+(?:id|n|index|number)\s*=\s*["']?(\d{1,3})["']?[^>]*>)\s*[:.)-]?\s*(.*)$/i;
const QUESTION_LABEL = /^\s*(?:\*\*)?(?:user\s+)?(?:question|q)(?:\*\*)?\s*:\s*(.*)$/i;
const SOURCE_END = /^\s*<\/source>\s*$/i;

interface Parsed {
  sources: Source[];
  /** Text of the message outside source blocks. */
  rest: string;
  /** Text after a `Question:` label, when there is one. */
  labelledQuestion?: string;
}

export function parseMessage(content: string): Parsed {
  const sources: Source[] = [];
  const rest: string[] = [];
  let labelled: string[] | undefined;
  let current: { n: number; lines: string[] } | undefined;
  const close = () => {
    if (!current) return;
    const [first = '', ...others] = current.lines;
    // A short first line followed by more text is a title ("[1] guide.md").
    const titled = others.some((l) => l.trim()) && first.length <= 160;
    const text = (titled ? others : current.lines).join('\n').trim();
    sources.push({ n: current.n, title: titled ? first.trim() : '', text });
    current = undefined;
  };
  for (const line of content.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = MARKER.exec(line);
    if (marker) {
      close();
      current = { n: Number(marker[1] ?? marker[2] ?? marker[3]), lines: [marker[4] ?? ''] };
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

export function collectSources(messages: readonly PlainMessage[]): { sources: Source[]; question: string } {
  const byNumber = new Map<number, Source>();
  let question = '';
  messages.forEach((message, i) => {
    if (message.role === 'assistant') return;
    const parsed = parseMessage(message.content);
    for (const source of parsed.sources) if (source.text) byNumber.set(source.n, source);
    if (message.role === 'user' && messages.slice(i + 1).every((m) => m.role !== 'user')) {
      question = parsed.labelledQuestion || parsed.rest || (parsed.sources.length ? '' : message.content.trim());
    }
  });
  return { sources: [...byNumber.values()].sort((a, b) => a.n - b.n), question };
}

interface Unit {
  source: number;
  position: number;
  text: string;
  tokens: string[];
}

const SENTENCE_BOUNDARY = /(?<=[.!?])\s+(?=["'([]?[\p{Lu}\p{N}])/u;

/** Sentences, list items and short code blocks of a source. */
function units(source: Source): Unit[] {
  const out: Unit[] = [];
  const push = (text: string) => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (clean.length < 3 || /^#{1,6}\s/.test(clean)) return;
    out.push({ source: source.n, position: out.length, text: clean, tokens: tokenize(clean) });
  };
  const blocks = source.text.split(/(```[\s\S]*?```)/);
  for (const block of blocks) {
    if (block.startsWith('```')) {
      if (block.length <= 600) out.push({ source: source.n, position: out.length, text: block.trim(), tokens: tokenize(block) });
      continue;
    }
    for (const paragraph of block.split(/\n\s*\n/)) {
      const lines = paragraph.split('\n');
      const isList = lines.every((l) => !l.trim() || /^\s*(?:[-*+]|\d+[.)])\s+/.test(l));
      for (const part of isList ? lines : [paragraph]) {
        for (const sentence of part.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').split(SENTENCE_BOUNDARY)) push(sentence);
      }
    }
  }
  return out;
}

export interface Extract {
  text: string;
  source: number;
}

/** The most relevant sentences, best first. */
export function extract(sources: readonly Source[], question: string, maxQuotes = 4, maxChars = 1500): Extract[] {
  const queryTerms = [...new Set(tokenize(question))];
  const all = sources.flatMap(units);
  if (!queryTerms.length || !all.length) return [];
  const df = new Map<string, number>();
  for (const unit of all) for (const term of new Set(unit.tokens)) df.set(term, (df.get(term) ?? 0) + 1);
  const scored = all
    .map((unit) => {
      const present = new Set(unit.tokens);
      let sum = 0;
      let matched = 0;
      for (const term of queryTerms) {
        if (!present.has(term)) continue;
        matched++;
        sum += Math.log(1 + all.length / df.get(term)!);
      }
      const coverage = matched / queryTerms.length;
      const lengthPenalty = 1 + Math.max(0, unit.tokens.length - 40) / 80;
      return { unit, score: (sum * (0.5 + 0.5 * coverage)) / lengthPenalty };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.unit.source - b.unit.source || a.unit.position - b.unit.position);
  const best = scored[0]?.score ?? 0;
  const picked: Extract[] = [];
  const perSource = new Map<number, number>();
  let chars = 0;
  for (const { unit, score } of scored) {
    if (picked.length >= maxQuotes || score < best * 0.35) break;
    if ((perSource.get(unit.source) ?? 0) >= 2 || (picked.length && chars + unit.text.length > maxChars)) continue;
    picked.push({ text: unit.text, source: unit.source });
    perSource.set(unit.source, (perSource.get(unit.source) ?? 0) + 1);
    chars += unit.text.length;
  }
  return picked;
}

const FOOTER = `_${LOCAL_CHAT_MODEL}: quoted from the sources, not generated._`;

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

/** The whole answer of the local model for a conversation. */
export function answer(messages: readonly PlainMessage[]): string {
  const { sources, question } = collectSources(messages);
  if (!sources.length) return describeSelf();
  if (!question.trim()) {
    return `I received ${sources.length} source(s) but no question. Ask a question and I will quote the sentences of the sources that answer it.`;
  }
  const quotes = extract(sources, question);
  if (!quotes.length) {
    const count = sources.length === 1 ? 'The supplied source does' : `None of the ${sources.length} supplied sources`;
    return `${count}${sources.length === 1 ? ' not contain' : ' contains'} a sentence that shares words with the question, so I have nothing to quote. Try other words, or a different store.\n\n${FOOTER}`;
  }
  const lines = quotes.map((q) => (q.text.startsWith('```') ? `${q.text}\n[${q.source}]` : `- "${q.text}" [${q.source}]`));
  return `From the supplied sources:\n\n${lines.join('\n')}\n\n${FOOTER}`;
}

/** ~4 characters per token, the same estimate as the chunker. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
