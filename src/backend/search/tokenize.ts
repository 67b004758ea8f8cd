/**
 * Tokenizer shared by indexing and queries: lower-cased letters/digits, English stop words
 * dropped, a light plural stemmer, and code identifiers split (`getUserName` also yields
 * `get`, `user`, `name`) so that prose questions find code. Chinese, Japanese and Korean runs
 * become pairs of characters (`src/common/terms.ts`). A number is a term at any length ("ledger
 * 4", "§4") and an ordinal also yields its number ("4th" → `4th`, `4`); a figure with separators
 * ("3.5", "1.139.1") gives its parts of two digits or more; single letters are not terms.
 * Contractions are written out ("haven't" → "have not"), so they are stop words, not "haven".
 */
import { expandContractions, splitCjk, stem, STOP_WORDS } from '../../common/terms';

/** A figure with separators ("3.5", "1.139.1", "1,000"), then runs of letters and digits. */
const WORD = /\p{Nd}+(?:[.,]\p{Nd}+)+(?![\p{L}\p{N}])|[\p{L}\p{N}]+/gu;
const FIGURE = /^\p{Nd}+[.,]/u;
const NUMBER = /^\p{Nd}+$/u;
const ONE_DIGIT = /^\p{Nd}$/u;
const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/;
const CAMEL = /[\p{Lu}]?[\p{Ll}\p{N}]+|[\p{Lu}]+(?![\p{Ll}])/gu;
const MAX_TOKEN_LENGTH = 64;

export interface TokenizeOptions {
  /**
   * One-digit numbers as terms, and ordinals with their number (the default). `false`: the
   * tokens of before, words of two characters or more only; `local-hashing-embed` keeps them so
   * that the vectors it gave before stay comparable with the ones it gives now.
   */
  numbers?: boolean;
  /**
   * English contractions written out first ("haven't" → "have not"; the default). `false`: split
   * at the apostrophe as before ("haven", "t"), for `local-hashing-embed`'s vectors likewise.
   */
  contractions?: boolean;
}

function emit(out: string[], raw: string, numbers: boolean): void {
  const word = raw.toLowerCase();
  if (word.length > MAX_TOKEN_LENGTH || STOP_WORDS.has(word)) return;
  if (NUMBER.test(word)) {
    if (numbers || word.length >= 2) out.push(word);
    return;
  }
  if (word.length < 2) return;
  out.push(stem(word));
  const ordinal = numbers ? ORDINAL.exec(word) : null;
  if (ordinal) out.push(ordinal[1]!);
}

export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const numbers = options.numbers ?? true;
  const out: string[] = [];
  const words = (options.contractions ?? true) ? expandContractions(text) : text;
  for (const match of words.matchAll(WORD)) {
    if (FIGURE.test(match[0])) {
      // Measured: a figure as one term ("3.5") or as all its digits ranked MT-RAG's first turns
      // and DocChat's answer sets worse, so its parts count as they always did.
      for (const part of match[0].split(/[.,]/)) emit(out, part, false);
      continue;
    }
    splitCjk(
      match[0],
      (word) => emitWord(out, word, numbers),
      (term) => out.push(term),
    );
  }
  return out;
}

function emitWord(out: string[], word: string, numbers: boolean): void {
  emit(out, word, numbers);
  // camelCase / PascalCase / digits inside identifiers: index the parts as well.
  if (/[\p{Ll}][\p{Lu}]|[\p{L}][\p{N}]|[\p{N}][\p{L}]/u.test(word)) {
    const parts = word.match(CAMEL);
    if (parts && parts.length > 1) for (const part of parts) emit(out, part, numbers);
  }
}

/**
 * A passage's length as search normalises by it: its tokens but one-digit numbers. A "3" or a
 * "step 2" is a term to find ("ledger 4") without making the passage read as longer, so the
 * ranking of questions that name no such number is what it was before they were terms.
 */
export function indexedLength(tokens: readonly string[]): number {
  let length = 0;
  for (const token of tokens) if (!ONE_DIGIT.test(token)) length++;
  return length;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
