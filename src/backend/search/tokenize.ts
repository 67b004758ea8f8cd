/**
 * Tokenizer shared by indexing and queries: lower-cased letters/digits, English stop words
 * dropped, a light plural stemmer, and code identifiers split (`getUserName` also yields
 * `get`, `user`, `name`) so that prose questions find code. Chinese, Japanese and Korean runs
 * become pairs of characters (`src/common/terms.ts`). Numbers are terms at any length ("ledger
 * 4", "§4"), a figure with separators is one ("3.5", "1.139.1"), and an ordinal also yields its
 * number ("4th" → `4th`, `4`); single letters are not terms.
 */
import { splitCjk, stem, STOP_WORDS } from '../../common/terms';

/** A figure with separators ("3.5", "1.139.1", "1,000") is one word, as Unicode word boundaries (UAX #29) have it; then runs of letters and digits. */
const WORD = /\p{Nd}+(?:[.,]\p{Nd}+)+|[\p{L}\p{N}]+/gu;
/** Runs of letters and digits only: a figure's parts are words of their own (`numbers: false`). */
const PLAIN_WORD = /[\p{L}\p{N}]+/gu;
const CAMEL = /[\p{Lu}]?[\p{Ll}\p{N}]+|[\p{Lu}]+(?![\p{Ll}])/gu;
const MAX_TOKEN_LENGTH = 64;

const NUMBER = /^\p{Nd}+(?:[.,]\p{Nd}+)*$/u;
const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/;

export interface TokenizeOptions {
  /**
   * Numbers as terms at any length, figures whole, ordinals with their number (the default).
   * `false`: words of two characters or more, figures split at their separators, as DocChat
   * tokenized before numbers counted; `local-hashing-embed` keeps these features so that the
   * vectors it gave before stay comparable with the ones it gives now.
   */
  numbers?: boolean;
}

function emit(out: string[], raw: string, numbers: boolean): void {
  const word = raw.toLowerCase();
  if (word.length > MAX_TOKEN_LENGTH || STOP_WORDS.has(word)) return;
  if (numbers && NUMBER.test(word)) {
    out.push(word);
    return;
  }
  if (word.length < 2) return;
  if (/^\d+$/.test(word)) {
    out.push(word);
    return;
  }
  out.push(stem(word));
  const ordinal = numbers ? ORDINAL.exec(word) : null;
  if (ordinal) out.push(ordinal[1]!);
}

export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const numbers = options.numbers ?? true;
  const out: string[] = [];
  for (const match of text.matchAll(numbers ? WORD : PLAIN_WORD)) {
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

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
