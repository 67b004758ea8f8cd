/**
 * Which units of the sources answer a question: BM25 over the units (each a document, the rarity of
 * a word taken from all the sources sent, and from everyday English: `englishRarity`), times how
 * much of the question's weight the unit holds, times what the question asks for — steps for "how
 * do I…", the sentence naming the thing for "which…"/"what…", a number for "how many…", a reason
 * for "why…". Earlier questions of the conversation count for less than the last one, except for a
 * question that leans on them ("and how do I change it?"), whose subject is theirs. The kind of
 * text counts too: a passage that is mostly numbers (tables of measurements) or a list of changes
 * (a changelog's entries) is weaker evidence than prose for a question that asks neither for a
 * number nor for what changed. Words are compared by their roots ("attached", "attaching" and
 * "attach" are one; so are "save" and "saved"), a sentence whose start a passage cut off weighs far
 * less, and a unit whose question words stand close together counts more than one that scatters
 * them. A "which X…" question asks for a name: a unit that names something (in code marks or bold)
 * right next to X ("the `local-extractive` model") counts more than one that only holds X. The
 * sources are numbered best first, which counts a little, and a source's first sentences count a
 * little more than its later ones: a passage tends to open with what it is about. The first quote
 * is chosen with one more rule (`withFirstQuote`): for a question that is not about code, a
 * sentence that names the code's own files and identifiers tells how the product is built rather
 * than what the question asks, and leads the answer only when nothing else comes close.
 */
import { matchRoot, namesItsSubject } from '../../common/terms';
import { tokenize } from '../search/tokenize';
import { OPENS_LOWER, type Unit } from './answerUnits';
import { ENGLISH_COUNT_STEPS, ENGLISH_TOTAL_WORDS, ENGLISH_WORD_COUNTS } from './englishWordCounts';

export type QuestionType = 'howTo' | 'quantity' | 'reason' | 'place' | 'choice' | 'other';

const HOW_TO = /\b(?:how\s+(?:do|can|could|should|would|to|does\s+one)|steps?\s+to|way\s+to|is\s+there\s+a\s+way)\b/i;
const QUANTITY =
  /\b(?:how\s+(?:many|much|long|often|big|large|fast|old)|what\s+(?:is|are|was|were)\s+the\s+(?:default|limit|maximum|minimum|size|number|total|amount|price|cost|sum|count|rate|balance)|default|limit|maximum|minimum)\b/i;
const REASON = /\b(?:why|what\s+for|reason)\b/i;
const PLACE = /\b(?:where)\b/i;
const CHOICE = /\b(?:which|what|who|name)\b/i;

export function questionType(question: string): QuestionType {
  if (QUANTITY.test(question)) return 'quantity';
  if (HOW_TO.test(question)) return 'howTo';
  if (REASON.test(question)) return 'reason';
  if (PLACE.test(question)) return 'place';
  if (CHOICE.test(question)) return 'choice';
  return 'other';
}

/** Words that start an instruction, and the things a step names (a key, a menu, a command). */
const IMPERATIVE =
  /^(?:\*\*|`|")?(?:add|attach|choose|click|create|drag|enter|install|open|pick|press|put|remove|right-click|run|select|set|start|stop|turn|type|use|paste|copy|go|edit|sync|search|ask|save|delete|export|import|enable|disable|change|configure)\b/i;
const STEP_WORDS =
  /\b(?:command palette|context menu|menu|button|press(?:ing)?|click|run|pick|choose|Enter|Escape|Ctrl\+|Cmd\+|Alt\+|Shift\+|F\d)\b|…\*\*/;
const NUMBER =
  /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|once|twice|seconds?|minutes?|hours?|days?|weeks?|months?)\b/i;
const REASON_WORDS =
  /\b(?:because|since|so that|so\s+(?:a|the|it|that|search|nothing)|in order to|why|reason|measured|otherwise|instead)\b/i;
const PLACE_WORDS = /(?:\/[\w.-]+|\\[\w.-]+|\b(?:folder|directory|storage|path|stored|kept|lives?)\b)/i;
const NAMED = /`[^`]+`|\*\*[^*]+\*\*/;
const DIGITS = /^\d+$/;
const ONE_DIGIT = /^\d$/;

/** Share of a text's words that are numbers ("142", "1.139.1", "0.687"). */
export function numericShare(tokens: readonly string[]): number {
  return tokens.length ? tokens.filter((t) => /\d/.test(t)).length / tokens.length : 0;
}

/**
 * A code mark that names the code itself rather than something a user sees, types or sets: a path
 * (`src/mcp/`, `@scope/pkg`: `PATH`), or (`SOURCE_NAME`) a source file (`attach.ts`), a camelCase
 * or compound PascalCase identifier (`consumeAnswer`, `DocumentsClient.uploadFile`) or a call
 * (`activate()`). Dotted lower-case keys (`docchat.sync.watch`, `http.proxy`), chat commands
 * (`/search`), and words or names in marks (`local-extractive`, `skip_ocr`, `docchat_search`) are
 * not.
 */
const SOURCE_NAME = /\.(?:[cm]?[jt]sx?|json|py|sh|css|html)\b|^[a-z]+[A-Z]\w*$|^[A-Z][a-z\d]+[A-Z]\w*(?:\.\w+)?$|^[A-Z]\w*\.[a-z]\w*|\w\(/;
const PATH = /\w\//;
const CODE_SPAN = /`([^`\n]+)`/g;
/** A question about code: it quotes or names an identifier, a path or a source file, or asks about the code itself. */
const ASKS_ABOUT_CODE =
  /`|\w\/\w|\.(?:[cm]?[jt]sx?|py)\b|\b[a-z]+[A-Z]\w*|\b(?:code|function|class|method|module|implement(?:s|ed|ation)?|internals?)\b/;

export const asksAboutCode = (question: string) => ASKS_ABOUT_CODE.test(question);

/**
 * Share of a unit's words that stand in code marks naming the code itself (`PATH`, `SOURCE_NAME`),
 * 0 to 1. `pathsArePlaces`: a path that is not a source file counts as a place, not as code.
 */
export function codeShare(unit: Pick<Unit, 'text' | 'tokens'>, pathsArePlaces = false): number {
  if (!unit.tokens.length) return 0;
  const isCode = (name: string) => SOURCE_NAME.test(name) || (!pathsArePlaces && PATH.test(name));
  let words = 0;
  for (const span of unit.text.matchAll(CODE_SPAN)) if (isCode(span[1]!.trim())) words += tokenize(span[1]!).length;
  return Math.min(1, words / unit.tokens.length);
}

/** A question about what changed, or when: a list of changes answers it. */
const ASKS_ABOUT_CHANGES = /\b(?:changed|new|added|fixed|removed|deprecated|release[ds]?|version|since|when|changelog|history)\b/i;

/** How the text a unit comes from weighs as evidence, against prose: a factor at most 1. */
export function textKindFactor(type: QuestionType, question: string, unit: Unit, sourceNumericShare: number): number {
  // A question for a number ("how many", or one that itself names one: "nDCG@10") is answered by
  // a figure wherever it is written; the kind of text counts for the others.
  if (type === 'quantity' || /\d/.test(question)) return 1;
  // Tables and passages of measurements rarely say how to do something or what a thing is.
  // (The question names no number, so one-digit numbers are not the unit's words: `scoreUnits`.)
  let f = 1 / (1 + NUMERIC_WEIGHT * Math.max(sourceNumericShare, numericShare(unit.tokens.filter((t) => !ONE_DIGIT.test(t)))));
  // An entry of a list of changes says that something changed, not how to use it.
  if (unit.changeEntry && !ASKS_ABOUT_CHANGES.test(question)) f *= CHANGE_ENTRY_FACTOR;
  return f;
}

/** How well a unit looks like what the question asks for, as a factor around 1. */
function typeFactor(type: QuestionType, unit: Unit): number {
  switch (type) {
    case 'howTo': {
      let f = 1;
      if (IMPERATIVE.test(unit.text) || (unit.labelled && unit.listItem)) f += 0.3;
      if (STEP_WORDS.test(unit.text)) f += 0.4;
      // A table of facts rarely says how to do something.
      return unit.kind === 'row' ? f * 0.5 : f;
    }
    case 'quantity':
      return NUMBER.test(unit.text) ? 1.4 : 0.8;
    case 'reason':
      return REASON_WORDS.test(unit.text) ? 1.3 : 1;
    case 'place':
      return PLACE_WORDS.test(unit.text) ? 1.2 : 1;
    case 'choice':
      return NAMED.test(unit.text) ? 1.2 : 1;
    default:
      return 1;
  }
}

export interface Scored {
  unit: Unit;
  score: number;
  /** The words of the question (not of earlier ones, nor of its heading) the unit holds. */
  terms: string[];
}

/** Term frequency saturates quickly: a sentence naming a thing three times is not three times the answer. */
const K1 = 0.8;
/**
 * A unit whose question words stand side by side scores up to 1 + this times as much: "In Local
 * mode the … model answers" names what "Which model answers in Local mode?" asks for, a table row
 * with the same words scattered over sixty does not.
 */
const PROXIMITY_WEIGHT = 1;
/** Length normalisation: sentences vary from five words to sixty, and a long one may be the answer. */
const B = 0.5;
/** Weight of the words of earlier questions of the conversation, against the last one's. */
const EARLIER_WEIGHT = 0.3;
/** A question word found only in the heading the unit is under counts this much of one in the unit. */
const HEADING_WEIGHT = 0.4;
/** The words a sentence opens with name what it is about ("The MCP server has four tools"). */
const OPENING_TOKENS = 8;
const OPENING_BONUS = 0.25;
/** How much being the search's first source counts, against its last. */
const RANK_PRIOR = 0.15;
/**
 * A unit's place in its source: the first scores up to 1 + this times as much, the second
 * 1 + this / 2, the n-th 1 + this / n. On MT-RAG's conversations (their tuning half,
 * test/bench/answersPublic.ts) it quoted the sentence of a relevant passage closest to the
 * reference answer more often, with no fewer expected sentences quoted on DocChat's own documents
 * (test/bench/answers.ts); a larger weight lost some of those.
 */
const POSITION_WEIGHT = 0.5;
/**
 * For "which X…"/"what X…", a unit naming something within this many words of X scores 1 + this
 * bonus times as much. Neutral on MT-RAG's conversations (their passages have no code marks or
 * bold); on DocChat's own documents (test/bench/answers.ts, tuning halves) 0.6 quoted the naming
 * sentence first for "Which model answers in Local mode?"-like questions more often than 0.3.
 */
const NAMING_WINDOW = 3;
const NAMING_BONUS = 0.6;
/**
 * A sentence whose start was cut off (`startsMidSentence`) weighs this much of a whole one, so it
 * is quoted only when nothing whole comes close. On the tuning halves (test/bench/answers.ts and
 * answersPublic.ts) 0.3 left no such quote on DocChat's sets and 1 of MT-RAG's 344 with the
 * relevant passages (9 before), ROUGE-1 F1 unchanged; 0.5 left 2, dropping them (0) the same ROUGE.
 */
const MID_SENTENCE_FACTOR = 0.3;
/** A passage whose words are all numbers weighs 1 / (1 + this) of prose. */
const NUMERIC_WEIGHT = 2;
/**
 * For the first quote of a question not about code, a unit whose words all name code
 * (`codeShare` 1) weighs 1 / (1 + this) of its score. Chosen on the tuning halves of DocChat's own
 * question sets (test/bench/answers.ts): 4 and 8 quoted the expected sentence first for two more
 * questions, 2 for one; MT-RAG's passages have no code marks, so its answers do not change.
 */
const FIRST_QUOTE_CODE_WEIGHT = 4;
/** An entry of a list of changes, for a question not about changes. */
const CHANGE_ENTRY_FACTOR = 0.6;
/** Weight of the earlier questions' words when the question leans on them ("and how do I change it?"). */
const LEANING_EARLIER_WEIGHT = 0.8;
/** A question with this few words of its own leans on the conversation for its subject… */
const LEANING_MAX_TERMS = 1;
/** …and so does one with two that refers back ("and how do I restrict it to some files?"). */
const REFERS_BACK = /\b(?:it|its|that|this|they|them|those|these|there)\b/i;
const REFERRING_MAX_TERMS = 2;
/**
 * A question that leans on the conversation also carries the previous answer's words, this much
 * (below the previous question's): at most ANSWER_TERMS of them, the rarest of those at least
 * ANSWER_MIN_SHARE of the units hold. A word only a sentence or two hold is incidental to what
 * the answer was about ("temperature" in a sentence on the gear button); the words that recur in
 * the sources sent ("sync", "token") name the topic. Measured on MT-RAG's conversations and
 * DocChat's own question sets (their tuning halves, test/bench/answersPublic.ts and answers.ts):
 * with every word of the answer, or its rarest, or a weight of 0.5, follow-ups on DocChat's own
 * documents quoted the sentence just quoted again instead of answering ("and how do I change it?"
 * after "Which model answers in Local mode?"); this setting changed none of those and moved
 * MT-RAG's follow-ups by less than the noise.
 */
const ANSWER_WEIGHT = 0.3;
const ANSWER_TERMS = 3;
const ANSWER_MIN_SHARE = 0.08;

/** Words that ask rather than name what is asked about ("how long", "is there a way to"). */
const ASKING = /\b(?:how\s+(?:many|much|long|often|far|big|large|old|fast)|what\s+kind\s+of|is\s+there\s+a\s+way\s+to|way\s+to)\b/gi;

/**
 * Whether a question leans on the conversation for its subject: "and how do I change it?". One
 * that names a file or quotes an identifier ("What is in budget.xlsx?") names its own, however
 * few its words (`namesItsSubject`).
 */
export function leansOnConversation(question: string): boolean {
  const own = new Set(tokenize(question.replace(ASKING, ' '))).size;
  return (own <= LEANING_MAX_TERMS && !namesItsSubject(question)) || (own <= REFERRING_MAX_TERMS && REFERS_BACK.test(question));
}

/**
 * Query terms with their weights: the question's, then earlier questions' words it lacks — the
 * last earlier question's most, since a follow-up is about what was asked just before. A question
 * that leans on the conversation also takes `answered`, words of the previous answer, below the
 * previous question's: after "How do I sync a folder?" and "and can I cancel it?", what "and how
 * do I stop it?" is about is in the sentences that were quoted, not in the questions' words.
 */
export function queryWeights(question: string, earlier: readonly string[] = [], answered: readonly string[] = []): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of termsOf(question.replace(ASKING, ' '))) weights.set(term, 1);
  const leans = earlier.length > 0 && leansOnConversation(question);
  const carried = leans ? LEANING_EARLIER_WEIGHT : EARLIER_WEIGHT;
  [...earlier].reverse().forEach((text, i) => {
    const weight = i === 0 ? carried : EARLIER_WEIGHT;
    for (const term of termsOf(text.replace(ASKING, ' '))) if (!weights.has(term)) weights.set(term, weight);
  });
  if (leans) for (const term of answered) if ((weights.get(term) ?? 0) < ANSWER_WEIGHT) weights.set(term, ANSWER_WEIGHT);
  return weights;
}

/**
 * The words of the previous answer a leaning question carries, as roots, rarest first: those at
 * least ANSWER_MIN_SHARE of the units hold, at most ANSWER_TERMS (in the answer's order when as rare).
 */
export function answerTerms(answer: string, df: ReadonlyMap<string, number>, unitCount: number): string[] {
  if (!answer.trim() || !unitCount) return [];
  return [...new Set(termsOf(answer))]
    .filter((term) => (df.get(term) ?? 0) >= ANSWER_MIN_SHARE * unitCount)
    .sort((a, b) => df.get(a)! - df.get(b)!)
    .slice(0, ANSWER_TERMS);
}

/**
 * Words as sentences and questions are compared: their roots (`answerRoot`), so "attached" and
 * "attaching" meet "attach", and "saved" meets "save".
 */
const rootsOf = (tokens: readonly string[]) => tokens.map(answerRoot);

/**
 * A word's root as the answerer compares it: `matchRoot` (plural, -ing, -ed and a final e), and a
 * four-letter word's final e too, so "save", "type" and "name" meet "saved", "typing" and "named"
 * as longer words already do ("close", "closed"). Only the answerer's sentence choice folds so;
 * the search index keeps its plural stemmer.
 */
export function answerRoot(word: string): string {
  const root = matchRoot(word);
  return root.length === 4 && /[^aeiou]e$/.test(root) ? root.slice(0, -1) : root;
}
const termsOf = (text: string) => rootsOf(tokenize(text));

let englishCounts: Map<string, number> | undefined;

/** How often everyday English uses each root (the counts of its words added), read from the table on first use. */
function englishCountsByRoot(): Map<string, number> {
  if (englishCounts) return englishCounts;
  const counts = new Map<string, number>();
  for (const line of ENGLISH_WORD_COUNTS.split('\n')) {
    const [step, ...words] = line.split(' ');
    const count = Math.exp(Number(step) / ENGLISH_COUNT_STEPS);
    for (const word of words) for (const root of termsOf(word)) counts.set(root, (counts.get(root) ?? 0) + count);
  }
  englishCounts = counts;
  return counts;
}

/**
 * How rare a word (its root) is in everyday English, 0..1: the square root of ln(N / (count + 1))
 * / ln(N) over the N words of SUBTLEX-US (englishWordCounts.ts). 1 for a word it does not hold or
 * uses less than once per million words ("OCR", "Ollama", a product's name), about 0.86 for
 * "folder", 0.73 for "file" and "instead", 0.65 for "turn" and "actually", 0.55 for "get".
 *
 * A word's rarity among the sources alone misleads the sentence choice, because the search sent
 * them for the question's subject: in "How do I turn off OCR?" every source holds "OCR", so a
 * sentence holding only "turn" outweighed the ones about OCR. Weighed by both, the subject keeps
 * its weight and the question's everyday verbs and adverbs ("add", "get", "instead") lose some of
 * theirs. The square root, because a list of film subtitles speaks of other things than a store's
 * documents: without it ("turn" 0.42, "get" 0.3) the change measured about as well, but a scan's
 * noisy header that names "patient diagnosis" outweighed the clean sentence about the diagnosis
 * (extractiveAnswers.test.ts). Measured (test/bench/answers.ts, docs/benchmarks.md): expected
 * sentences quoted over DocChat's seven question sets 108 → 114 (the three held-out sets 16 → 19
 * of 57); on MT-RAG (answers-public) ROUGE-1 F1 with DocChat's grounding −0.003 (tuning half) and
 * +0.000 (held out).
 */
export function englishRarity(root: string): number {
  const count = englishCountsByRoot().get(root) ?? 0;
  return Math.sqrt(Math.log(ENGLISH_TOTAL_WORDS / (count + 1)) / Math.log(ENGLISH_TOTAL_WORDS));
}

/**
 * How close together the question's words stand in a unit, 0 to 1: the distinct question words it
 * holds over the length of the shortest run of its words holding them all (1 when they stand side
 * by side; 0 when it holds fewer than two).
 */
export function closeness(tokens: readonly string[], wanted: ReadonlySet<string>): number {
  const need = new Set(tokens.filter((t) => wanted.has(t))).size;
  if (need < 2) return 0;
  const inWindow = new Map<string, number>();
  let shortest = Infinity;
  let start = 0;
  for (let end = 0; end < tokens.length; end++) {
    const t = tokens[end]!;
    if (!wanted.has(t)) continue;
    inWindow.set(t, (inWindow.get(t) ?? 0) + 1);
    while (inWindow.size === need) {
      const first = tokens[start]!;
      if (wanted.has(first)) {
        shortest = Math.min(shortest, end - start + 1);
        const left = inWindow.get(first)! - 1;
        if (left) inWindow.set(first, left);
        else inWindow.delete(first);
      }
      start++;
    }
  }
  return need / shortest;
}

/**
 * The thing a "which X…" or "what X…" question asks to name, as a word root: "Which model answers
 * in Local mode?" → "model", "What kind of file…" → "file"; undefined when the word after it is
 * not one content word ("What is…", "What does…").
 */
export function askedFor(question: string): string | undefined {
  const m = /\b(?:which|what)\s+(?:(?:kind|sort|type)s?\s+of\s+)?([\p{L}][\p{L}\p{N}-]*)/iu.exec(question);
  const words = m ? tokenize(m[1]!) : [];
  return words.length === 1 ? matchRoot(words[0]!) : undefined;
}

const NAME_SPAN = /`[^`\n]+`|\*\*[^*\n]+\*\*/g;

/**
 * Whether a unit names something (a code span or bold text that is not X itself) within
 * NAMING_WINDOW words of X: "the backend's `local-extractive` model" names the model asked for.
 */
export function namesNear(text: string, thing: string): boolean {
  const words = [...text.matchAll(/\S+/g)].map((w) => ({ start: w.index, end: w.index + w[0].length, text: w[0] }));
  const wordAt = (offset: number) => words.findIndex((w) => w.end > offset);
  const holdsThing = (t: string) => tokenize(t.replace(/[`*]/g, ' ')).some((w) => matchRoot(w) === thing);
  const at = words.flatMap((w, i) => (holdsThing(w.text) ? [i] : []));
  if (!at.length) return false;
  for (const span of text.matchAll(NAME_SPAN)) {
    if (holdsThing(span[0])) continue;
    const first = wordAt(span.index);
    const last = wordAt(span.index + span[0].length - 1);
    if (at.some((i) => i >= first - NAMING_WINDOW && i <= last + NAMING_WINDOW)) return true;
  }
  return false;
}

const CODE_SPANS = /`[^`\n]*`/g;

/**
 * Whether a sentence is the tail of one cut off before it (a passage that starts inside a
 * sentence): it opens with a lower-case letter, or closes a bracket it never opened ("is written
 * before a request is answered; interrupted conversions finish after the restart)."). A list
 * item's first sentence may open in lower case; code spans are not read for brackets.
 */
export function startsMidSentence(unit: Pick<Unit, 'kind' | 'text' | 'listItem'>): boolean {
  if (unit.kind !== 'sentence' || unit.listItem) return false;
  const text = unit.text.trimStart();
  if (OPENS_LOWER.test(text)) return true;
  let depth = 0;
  for (const ch of text.replace(CODE_SPANS, ' ')) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') {
      if (--depth < 0) return true;
    }
  }
  return false;
}

/** Every unit that shares a word with the question, best first. */
export function scoreUnits(units: readonly Unit[], question: string, earlier: readonly string[] = [], previousAnswer = ''): Scored[] {
  // A one-digit number in a sentence is a word only for a question that names a number ("ledger
  // 4"): elsewhere it is a count or a position ("3 s", "step 2") and says little of what the
  // sentence is about, so it neither matches nor lengthens the sentence.
  const numbers = tokenize(question).some((t) => DIGITS.test(t));
  const wordsOf = (unit: Unit) => (numbers ? unit.tokens : unit.tokens.filter((t) => !ONE_DIGIT.test(t)));
  const tokensOf = new Map(units.map((u) => [u, rootsOf(wordsOf(u))]));
  const df = new Map<string, number>();
  for (const unit of units) for (const term of new Set(tokensOf.get(unit))) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = (term: string) => {
    const n = df.get(term) ?? 0;
    return Math.log(1 + (units.length - n + 0.5) / (n + 0.5)) * englishRarity(term);
  };
  const weights = queryWeights(question, earlier, answerTerms(previousAnswer, df, units.length));
  if (!weights.size || !units.length) return [];
  const type = questionType(question);
  const thing = type === 'choice' ? askedFor(question) : undefined;
  const averageLength = units.reduce((sum, u) => sum + tokensOf.get(u)!.length, 0) / units.length;
  // Coverage is of the question's own words, and of the subject it leans on (weighted as carried).
  let totalWeight = 0;
  for (const [term, weight] of weights) if (weight === 1 || weight === LEANING_EARLIER_WEIGHT) totalWeight += weight * idf(term);
  const sourceNumbers = [...new Set(units.map((u) => u.source))].sort((a, b) => a - b);
  const numericBySource = new Map<number, number>();
  for (const n of sourceNumbers) numericBySource.set(n, numericShare(units.filter((u) => u.source === n).flatMap(wordsOf)));
  const own = new Set([...weights].filter(([, w]) => w === 1 || w === LEANING_EARLIER_WEIGHT).map(([t]) => t));
  return units
    .map((unit) => {
      const tokens = tokensOf.get(unit)!;
      const heading = rootsOf(unit.heading);
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      const opening = new Set(tokens.slice(0, OPENING_TOKENS));
      let bm25 = 0;
      let held = 0;
      let heldEarly = 0;
      let inUnit = false;
      const terms: string[] = [];
      for (const [term, weight] of weights) {
        const tf = counts.get(term);
        const w = weight * idf(term);
        if (!tf) {
          if (heading.includes(term)) bm25 += HEADING_WEIGHT * w;
          continue;
        }
        inUnit = true;
        if (weight === 1 || weight === LEANING_EARLIER_WEIGHT) held += w;
        if (weight === 1) terms.push(term);
        if (opening.has(term)) heldEarly += w;
        bm25 += (w * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * tokens.length) / averageLength));
      }
      if (!inUnit) return { unit, score: 0, terms };
      const coverage = totalWeight > 0 ? held / totalWeight : 1;
      const early = 1 + (OPENING_BONUS * heldEarly) / Math.max(held, totalWeight, 1e-9);
      const rank = sourceNumbers.indexOf(unit.source) / Math.max(1, sourceNumbers.length - 1);
      const prior = 1 + RANK_PRIOR * (1 - rank);
      const kind = textKindFactor(type, question, unit, numericBySource.get(unit.source) ?? 0);
      // Text that does not read as language (OCR noise, a run-on header) is weak evidence.
      const quality = unit.quality;
      const near = 1 + PROXIMITY_WEIGHT * closeness(tokens, own);
      const place = 1 + POSITION_WEIGHT / (1 + unit.position);
      const naming = thing && namesNear(unit.text, thing) ? 1 + NAMING_BONUS : 1;
      // A passage cut inside a sentence opens with the sentence's tail, which says little alone.
      const whole = startsMidSentence(unit) ? MID_SENTENCE_FACTOR : 1;
      const score = bm25 * (0.4 + 0.6 * coverage) * early * near * place * typeFactor(type, unit) * kind * prior * quality * naming * whole;
      return { unit, score, terms };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.unit.source - b.unit.source || a.unit.position - b.unit.position);
}

/**
 * `scored` with the unit that should lead the answer first. For a question that is not about code
 * (`asksAboutCode`), a unit that names the code's own files and identifiers ("`src/mcp/` holds the
 * server (`dist/mcp-server.js`)…") weighs 1 / (1 + FIRST_QUOTE_CODE_WEIGHT × its `codeShare`) in
 * this choice: a newcomer asking what the MCP server's tools are, or what they can attach, is not
 * answered by where the code lives. Only the first quote is chosen so: it takes the best score, so
 * the later quotes are held to the floor the best unit sets, and they keep their own order.
 */
export function withFirstQuote(scored: readonly Scored[], question: string): Scored[] {
  if (scored.length < 2 || asksAboutCode(question)) return [...scored];
  // A question for a place ("where are my documents stored?") is answered by a folder's path: only
  // source files and identifiers name the code there.
  const places = questionType(question) === 'place';
  const weighed = (s: Scored) => s.score / (1 + FIRST_QUOTE_CODE_WEIGHT * codeShare(s.unit, places));
  let lead = 0;
  scored.forEach((s, i) => {
    if (weighed(s) > weighed(scored[lead]!)) lead = i;
  });
  if (!lead) return [...scored];
  return [{ ...scored[lead]!, score: scored[0]!.score }, ...scored.filter((_, i) => i !== lead)];
}

/** Quotes within these bounds: the best unit, then those close to it. */
export interface Selection {
  maxQuotes: number;
  maxChars: number;
  /** A unit is quoted when it scores at least this share of the best… */
  floor: number;
  /** …or this share, when it holds a word of the question no quote holds yet ("invoices and logs"). */
  complementFloor: number;
  perSource: number;
}

/** A question that joins several things ("invoices and logs", "A or B", "X, Y"), not one opening with "and". */
export function asksForSeveral(question: string): boolean {
  return /\b(?:and|or|both|versus|vs)\b|,/i.test(question.trim().replace(/^(?:and|or|but|so)\b/i, ''));
}

/**
 * The floor is where MT-RAG's conversations (their tuning half, test/bench/answersPublic.ts) put it
 * once a later quote must hold a word of the question: 0.6 quoted a little less of the reference
 * answers at the same ROUGE-1 precision. A later quote is not weighed by the words it shares with
 * the first one (0.6 of its score when it shares none, up to 1.2): on the tuning half that cut the
 * off-topic later quotes (ROUGE-1 precision below 0.2 against the reference,
 * test/bench/answersPublic/measures.ts) from 45 % to 39 % at the same ROUGE-1 F1, but on the
 * held-out half only from 44 % to 42 % (21 % to 20 % with the relevant passages as sources), and it
 * lost an expected sentence of the README set's held-out half (test/bench/answers.ts).
 */
export const DEFAULT_SELECTION: Selection = { maxQuotes: 3, maxChars: 1500, floor: 0.55, complementFloor: 0.25, perSource: 2 };

const normalized = (text: string) => text.replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The units to quote, best first; a unit quoted already (chunks overlap) is not quoted twice. A
 * quote after the first holds a word of the question itself: a unit that scores only by the words
 * of earlier questions or of the heading it is under is about the conversation, not about what was
 * just asked (after "How long are backups kept?", "and restores?" is not answered by more
 * sentences on backups that never name a restore). A unit well below the best is quoted only for
 * a question that asks for several things, when it holds a word of the question that no quote
 * holds yet.
 */
export function selectUnits(scored: readonly Scored[], several = false, bounds: Selection = DEFAULT_SELECTION): Scored[] {
  const best = scored[0]?.score ?? 0;
  const picked: Scored[] = [];
  const seen = new Set<string>();
  const perSource = new Map<number, number>();
  let chars = 0;
  const covered = new Set<string>();
  for (const entry of scored) {
    if (picked.length >= bounds.maxQuotes || entry.score < best * (several ? bounds.complementFloor : bounds.floor)) break;
    if (picked.length && !entry.terms.length) continue;
    if (entry.score < best * bounds.floor && entry.terms.every((t) => covered.has(t))) continue;
    const key = normalized(entry.unit.text);
    if (seen.has(key)) continue;
    if ((perSource.get(entry.unit.source) ?? 0) >= bounds.perSource) continue;
    if (picked.length && chars + entry.unit.text.length > bounds.maxChars) continue;
    seen.add(key);
    for (const term of entry.terms) covered.add(term);
    picked.push(entry);
    perSource.set(entry.unit.source, (perSource.get(entry.unit.source) ?? 0) + 1);
    chars += entry.unit.text.length;
  }
  return picked;
}
