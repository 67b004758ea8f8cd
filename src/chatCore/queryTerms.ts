/**
 * The distinctive words of a question or passage, as the chat's grounding compares them: lower
 * case, common English words dropped, plural endings removed. Shared by the follow-up rule and
 * the relevance check so both see the same words. No `vscode` import.
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    "it's me my no not of on or our so such than that the their them then there these they this those to too was " +
    'we were what when where which while who whom why will with would you your about after also am any because ' +
    'before being both each few further here just more most nor off once only other over own same should some ' +
    'through under until up very tell explain show give please describe list compare between versus vs one ones ' +
    'all every many much way ways thing things there here else first second third last former latter difference ' +
    'differ does doesn did didn use used using work works'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}_.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** Plural endings only, so unrelated words are rarely merged. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies') && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('es') && !/[aeo]es$/.test(word) && !/[^s]ses$/.test(word)) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith('s') && !/(us|ss|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/** The words of `text` in order, as written (for building a query a person can read). */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if ((word.length >= 2 || /\d/.test(word)) && !isStopWord(word)) out.push(word);
  }
  return out;
}

/** The distinct comparable terms of `text` (lower case, plural endings removed). */
export function termSet(text: string): Set<string> {
  return new Set(contentWords(text).map((word) => stem(word.toLowerCase())));
}
