/**
 * The distinctive words of a question or passage, as the chat's grounding compares them: lower
 * case, common English words dropped, plural endings removed. Shared by the follow-up rule and
 * the relevance check so both see the same words, and compared as the backend's index does
 * (`src/common/terms.ts`: the same stemmer, Chinese/Japanese/Korean as pairs of characters).
 * No `vscode` import.
 */
import { expandContractions, splitCjk, stem, STOP_WORDS } from '../common/terms';

/** Words a question is phrased with, besides the common English ones the search drops too. */
const QUESTION_WORDS = new Set(
  (
    'tell explain show give please describe list compare between versus vs one ones ' +
    'all every many much way ways thing things else first second third last former latter difference ' +
    'differ use used using work works'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}_.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/** A common English word or a word a question is phrased with, also in its plural ("differences", "compares"). */
export function isStopWord(word: string): boolean {
  const lower = word.toLowerCase();
  return STOP_WORDS.has(lower) || QUESTION_WORDS.has(lower) || QUESTION_WORDS.has(stem(lower));
}

/** The words of `text` in order, as written (for building a query a person can read). */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const match of expandContractions(text).matchAll(WORD)) {
    const word = match[0];
    if ((word.length >= 2 || /\d/.test(word)) && !isStopWord(word)) out.push(word);
  }
  return out;
}

/** The distinct comparable terms of `text` (lower case, plural endings removed). */
export function termSet(text: string): Set<string> {
  const terms = new Set<string>();
  for (const word of contentWords(text)) {
    splitCjk(
      word,
      (rest) => {
        const lower = rest.toLowerCase();
        if ((lower.length >= 2 || /\d/.test(lower)) && !isStopWord(lower)) terms.add(stem(lower));
      },
      (term) => terms.add(term),
    );
  }
  return terms;
}

/** A message with at least this many common English words (and this share of its words) reads as English. */
const ENGLISH_WORDS = 2;
const ENGLISH_SHARE = 0.25;

/**
 * True when the message reads as English: only unaccented Latin letters, and enough of its words
 * are common English ones ("how", "the", "of"…). The follow-up markers and the phrasing words the
 * relevance check drops are English, so only an English message is read by their absence.
 */
export function looksEnglish(text: string): boolean {
  const words = text.match(/\p{L}+/gu) ?? [];
  if (words.length === 0 || words.some((w) => /[^A-Za-z]/.test(w))) return false;
  const common = words.filter((w) => STOP_WORDS.has(w.toLowerCase())).length;
  return common >= ENGLISH_WORDS && common / words.length >= ENGLISH_SHARE;
}
