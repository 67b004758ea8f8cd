/**
 * Tokenizer shared by indexing and queries: lower-cased letters/digits, English stop words
 * dropped, a light plural stemmer, and code identifiers split (`getUserName` also yields
 * `get`, `user`, `name`) so that prose questions find code.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our so such than that the their them then there these they this those to too was ' +
    'we were what when where which while who whom why will with would you your about after also am any because ' +
    'before being both each few further here just more most nor off once only other over own same should some ' +
    'through under until up very'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;
const CAMEL = /[\p{Lu}]?[\p{Ll}\p{N}]+|[\p{Lu}]+(?![\p{Ll}])/gu;
const MAX_TOKEN_LENGTH = 64;

/** Harman's "S" stemmer: plural endings only, so it rarely conflates unrelated words. */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies') && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith('s') && !/(us|ss|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function emit(out: string[], raw: string): void {
  const word = raw.toLowerCase();
  if (word.length < 2 || word.length > MAX_TOKEN_LENGTH || STOP_WORDS.has(word)) return;
  out.push(/^\d+$/.test(word) ? word : stem(word));
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    emit(out, word);
    // camelCase / PascalCase / digits inside identifiers: index the parts as well.
    if (/[\p{Ll}][\p{Lu}]|[\p{L}][\p{N}]|[\p{N}][\p{L}]/u.test(word)) {
      const parts = word.match(CAMEL);
      if (parts && parts.length > 1) for (const part of parts) emit(out, part);
    }
  }
  return out;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
