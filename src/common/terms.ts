/**
 * Words as DocChat compares them, in the backend's search index and in the chat's grounding
 * alike: lower case, common English words dropped, plural endings removed, and Chinese, Japanese
 * and Korean text (written without spaces between words) as overlapping pairs of characters, so
 * that `東京` finds `東京タワー`. Plain TypeScript, no imports.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our so such than that the their them then there these they this those to too was ' +
    'we were what when where which while who whom why will with would you your about after also am any because ' +
    'before being both each few further here just more most nor off once only other over own same should some ' +
    'through under until up very'
  ).split(' '),
);

/** "n't" and the other English contractions, with a straight or a typographic apostrophe. */
const CONTRACTION = /(?<![\p{L}\p{N}])(\p{L}+?)(n['’]t|['’](?:re|ve|ll|d|m))(?![\p{L}\p{N}])/giu;
/** Contractions whose first word is not what stands before "n't". */
const IRREGULAR_NOT: Readonly<Record<string, string>> = { ca: 'can', wo: 'will', sha: 'shall', ai: 'is' };
const CONTRACTED: Readonly<Record<string, string>> = { "'re": 'are', "'ve": 'have', "'ll": 'will', "'d": 'would', "'m": 'am' };

/**
 * English contractions written out ("haven't" → "have not", "you're" → "you are"), so that a
 * question's "haven't" or "you've" is not read as the words "haven" and "ve", which no document
 * holds (and which the relevance check would weigh as the rarest words of the question). A
 * possessive's "'s" is left: the single "s" is no word anyway.
 */
export function expandContractions(text: string): string {
  if (!text.includes("'") && !text.includes('’')) return text;
  return text.replace(CONTRACTION, (_whole, word: string, ending: string) => {
    const tail = ending.toLowerCase().replace('’', "'");
    if (tail === "n't") return `${IRREGULAR_NOT[word.toLowerCase()] ?? word} not`;
    return `${word} ${CONTRACTED[tail] ?? ''}`;
  });
}

/** Harman's "S" stemmer: plural endings only, so it rarely conflates unrelated words. */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies') && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith('s') && !/(us|ss|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * A word as the chat's relevance check and the quoting model's sentence choice compare it: the
 * plural stemmer, then common English
 * endings (-ing, -ed, a final e) removed, so "cached", "caches" and "caching" are one word.
 */
export function matchRoot(word: string): string {
  let root = stem(word);
  if (root.length > 5 && root.endsWith('ing')) root = undouble(root.slice(0, -3));
  else if (root.length > 4 && root.endsWith('ed')) root = undouble(root.slice(0, -2));
  else if (root.length > 4 && root.endsWith('e')) root = root.slice(0, -1);
  return root;
}

/** "sett" (from "setting") → "set"; "call" stays. */
function undouble(root: string): string {
  return /([b-df-hj-km-np-rtv-y])\1$/.test(root) ? root.slice(0, -1) : root;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Splits a word into its runs of CJK characters and the rest: `onText` gets each piece of other
 * text, `onCjkTerm` each overlapping pair of characters of a CJK run (the character itself when
 * the run is one character long), the usual way to index scripts without spaces (bigrams).
 */
export function splitCjk(word: string, onText: (text: string) => void, onCjkTerm: (term: string) => void): void {
  if (!HAS_CJK.test(word)) {
    onText(word);
    return;
  }
  let last = 0;
  for (const match of word.matchAll(CJK_RUN)) {
    if (match.index > last) onText(word.slice(last, match.index));
    const chars = Array.from(match[0]);
    if (chars.length === 1) onCjkTerm(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) onCjkTerm(chars[i]! + chars[i + 1]!);
    last = match.index + match[0].length;
  }
  if (last < word.length) onText(word.slice(last));
}

/** A file name with an extension: "budget.xlsx", "README.md", "src/app.config.ts". */
const FILE_NAME = /(?:^|[^\p{L}\p{N}_.-])[\p{L}\p{N}_-]{2,}(?:\.[\p{L}\p{N}_-]+)*\.\p{L}[\p{L}\p{N}]{0,7}(?=$|[^\p{L}\p{N}_-])/u;
/** Something quoted or written as code: "the “Sync now” button", `retries`, 'strict mode'. */
const QUOTED =
  /"[^"\n]*[\p{L}\p{N}][^"\n]*"|“[^”\n]*[\p{L}\p{N}][^”\n]*”|`[^`\n]*[\p{L}\p{N}][^`\n]*`|(?:^|\s)'[^'\n]*[\p{L}\p{N}][^'\n]*'(?=$|[\s?.!,;:])/u;

/**
 * True when a question names what it asks about by itself, whatever its count of words: it names
 * a file (`What is in budget.xlsx?`) or quotes a name or identifier (`What does "Sync now" do?`).
 * Such a question is not elliptical: the follow-up rules carry nothing of the conversation into it
 * on account of its few words (the chat's query, `src/chatCore/searchQuery.ts`, and the local
 * answerer's scoring, `src/backend/gateway/answerScoring.ts`).
 */
/**
 * The files a question names, lower-cased, each as written ("docs/guide.md") and without its
 * folders ("guide.md").
 */
export function namedFiles(question: string): string[] {
  const named = new Set<string>();
  for (const match of question.matchAll(new RegExp(FILE_NAME.source, 'gu'))) {
    const name = match[0].replace(/^[^\p{L}\p{N}_-]/u, '').toLowerCase();
    named.add(name);
    named.add(name.slice(name.lastIndexOf('/') + 1));
  }
  return [...named];
}

export function namesItsSubject(question: string): boolean {
  return FILE_NAME.test(question) || QUOTED.test(question);
}
