/**
 * Tokenizer shared by indexing and queries: lower-cased letters/digits, English stop words
 * dropped, a light plural stemmer, and code identifiers split (`getUserName` also yields
 * `get`, `user`, `name`) so that prose questions find code. Chinese, Japanese and Korean runs
 * become pairs of characters (`src/common/terms.ts`).
 */
import { splitCjk, stem, STOP_WORDS } from '../../common/terms';

const WORD = /[\p{L}\p{N}]+/gu;
const CAMEL = /[\p{Lu}]?[\p{Ll}\p{N}]+|[\p{Lu}]+(?![\p{Ll}])/gu;
const MAX_TOKEN_LENGTH = 64;

function emit(out: string[], raw: string): void {
  const word = raw.toLowerCase();
  if (word.length < 2 || word.length > MAX_TOKEN_LENGTH || STOP_WORDS.has(word)) return;
  out.push(/^\d+$/.test(word) ? word : stem(word));
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    splitCjk(
      match[0],
      (word) => emitWord(out, word),
      (term) => out.push(term),
    );
  }
  return out;
}

function emitWord(out: string[], word: string): void {
  emit(out, word);
  // camelCase / PascalCase / digits inside identifiers: index the parts as well.
  if (/[\p{Ll}][\p{Lu}]|[\p{L}][\p{N}]|[\p{N}][\p{L}]/u.test(word)) {
    const parts = word.match(CAMEL);
    if (parts && parts.length > 1) for (const part of parts) emit(out, part);
  }
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
