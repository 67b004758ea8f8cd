/**
 * How an extractive answer is judged against a reference answer written by a person: ROUGE-1
 * recall, precision and F1 and ROUGE-L F over words, how many of its quotes share no word with
 * the reference at all, how related each quote is to it by its place in the answer (a later quote
 * that is off-topic is the noise a reader sees after the right sentence), whether its quotes come from passages people marked relevant,
 * and whether the sentence it quotes from such a passage is the one that passage holds closest to
 * the reference. Words are lower-cased runs of letters and digits, without DocChat's English stop
 * words (src/common/terms.ts) on both sides and without stemming, so a measure never credits the
 * answer's own word matching.
 */
import { STOP_WORDS } from '../../../src/common/terms';
import { startsMidSentence } from '../../../src/backend/gateway/answerScoring';

export function rougeWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

/** Words the candidate and the reference share, each counted as often as both hold it (clipped). */
function overlap(candidate: readonly string[], reference: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const w of candidate) counts.set(w, (counts.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of reference) {
    const left = counts.get(w) ?? 0;
    if (left > 0) {
      shared++;
      counts.set(w, left - 1);
    }
  }
  return shared;
}

/** Share of the reference's words (counted with repeats, clipped) the candidate holds. */
export function rouge1Recall(candidate: readonly string[], reference: readonly string[]): number {
  return reference.length ? overlap(candidate, reference) / reference.length : 0;
}

/** Share of the candidate's words (counted with repeats, clipped) the reference holds; 0 for no words. */
export function rouge1Precision(candidate: readonly string[], reference: readonly string[]): number {
  return candidate.length ? overlap(candidate, reference) / candidate.length : 0;
}

/** ROUGE-1 F1: recall and precision of the clipped word overlap. */
export function rouge1F(candidate: readonly string[], reference: readonly string[]): number {
  const recall = rouge1Recall(candidate, reference);
  const precision = rouge1Precision(candidate, reference);
  return recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0;
}

/**
 * Whether a quote is unrelated to the reference: none of its words (rougeWords: stop words left
 * out, unstemmed) is a word of the reference. A quote with no such word at all is unrelated too.
 */
export function unrelatedQuote(quote: string, reference: readonly string[]): boolean {
  const words = new Set(reference);
  return !rougeWords(quote).some((w) => words.has(w));
}

/**
 * A quote's ROUGE-1 precision below which it is off-topic: fewer than one in five of its words
 * (rougeWords) are words of the reference answer. Fixed before any rule was judged by it, from the
 * first quotes of the oracle run (the relevant passages as the only sources) on MT-RAG's tuning
 * half, which are about the question by construction: as the model answered then, their median
 * precision was 0.54, their 10th percentile 0.16 and their 20th 0.25; 21 of 172 (12 %) fell below 0.2. A quote under it is less
 * related to the reference than nearly nine in ten of those, yet it is not required to share no
 * word at all (unrelatedQuote), which a quote about another subject of the same sources rarely
 * manages: it still shares a word or two of the domain with the reference.
 */
export const OFF_TOPIC_PRECISION = 0.2;

/** Whether a quote is off-topic: its ROUGE-1 precision against the reference is below OFF_TOPIC_PRECISION. */
export function offTopicQuote(quote: string, reference: readonly string[]): boolean {
  return rouge1Precision(rougeWords(quote), reference) < OFF_TOPIC_PRECISION;
}

/** Per position of a quote in answers (1st, 2nd, …): their count and their mean ROUGE-1 precision. */
export interface QuotePrecision {
  count: number;
  precision: number;
}

/**
 * The quotes of several answers by their position in the answer, each judged against its own
 * answer's reference: the n-th entry is over the answers with at least n + 1 quotes (positions
 * past `positions` are left out).
 */
export function precisionByPosition(
  answers: readonly { quotes: readonly string[]; reference: readonly string[] }[],
  positions = 3,
): QuotePrecision[] {
  return Array.from({ length: positions }, (_, i) => {
    const at = answers.filter((a) => a.quotes.length > i).map((a) => rouge1Precision(rougeWords(a.quotes[i]!), a.reference));
    return { count: at.length, precision: at.length ? at.reduce((x, y) => x + y, 0) / at.length : Number.NaN };
  });
}

function lcs(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) row[j] = x === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    previous = row;
  }
  return previous[b.length]!;
}

/** ROUGE-L F1 (β = 1): the longest common subsequence against both lengths. */
export function rougeLF(candidate: readonly string[], reference: readonly string[]): number {
  if (!candidate.length || !reference.length) return 0;
  const l = lcs(candidate, reference);
  const recall = l / reference.length;
  const precision = l / candidate.length;
  return recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0;
}

export interface Quote {
  text: string;
  /** The source number its citation gives. */
  source: number;
}

const CITATION = /\[(\d{1,3})\]/g;

/**
 * The quotes of a `local-extractive` answer, in order: the text before each citation, without
 * list marks and quotation marks. An answer that quotes nothing has none.
 */
export function quotesOf(answer: string): Quote[] {
  const body = /From the supplied sources:\s*([\s\S]*?)(?:\n\n_[^\n]*_\s*)?$/.exec(answer)?.[1];
  if (!body) return [];
  const out: Quote[] = [];
  let last = 0;
  for (const match of body.matchAll(CITATION)) {
    const text = body
      .slice(last, match.index)
      .trim()
      .replace(/^[-*]\s+/, '')
      .replace(/^["“]|["”]$/g, '')
      .trim();
    last = match.index + match[0].length;
    if (text) out.push({ text, source: Number(match[1]) });
  }
  return out;
}

/**
 * A quote that opens mid-sentence, the tail of a sentence whose start the passage cut off: judged
 * from its text as the answerer judges a sentence (`startsMidSentence`, lower-case start or a
 * bracket closed that it never opened).
 */
export const opensMidSentence = (text: string) => startsMidSentence({ kind: 'sentence', text, listItem: false });

/** Text as the sentence match compares it: words and single spaces. */
export const comparable = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');

/** Whether a quote is a given sentence: one holds the other (sentence splitters differ a little). */
export function sameSentence(quote: string, sentence: string): boolean {
  const a = comparable(quote);
  const b = comparable(sentence);
  return Boolean(a && b) && (a.includes(b) || b.includes(a));
}

/** Where a quote after the first sits against the first quote of its answer. */
export type QuotePlace = 'right after the first, same source' | 'elsewhere in the same source' | 'another source';

/**
 * The place of each quote after the first against the first: the sentence right after it in its
 * source, another sentence of its source, or another source's. `sentencesOf` gives a source's
 * sentences in order; a quote is found among them by `sameSentence` (its place is undefined when
 * it is not found, and every place is when the first quote is not).
 */
export function laterQuotePlaces(quotes: readonly Quote[], sentencesOf: (source: number) => readonly string[]): (QuotePlace | undefined)[] {
  const at = (quote: Quote) => sentencesOf(quote.source).findIndex((sentence) => sameSentence(quote.text, sentence));
  const [first, ...later] = quotes;
  if (!first) return [];
  const firstAt = at(first);
  return later.map((quote) => {
    if (quote.source !== first.source) return 'another source';
    const position = at(quote);
    if (firstAt < 0 || position < 0) return undefined;
    return position === firstAt + 1 ? 'right after the first, same source' : 'elsewhere in the same source';
  });
}
