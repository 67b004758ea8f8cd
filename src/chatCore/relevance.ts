/**
 * Which passages of a search are relevant enough to ground an answer. The documents service's
 * scores have no stated scale (0..1, raw BM25, cosine similarity…), so nothing here compares a
 * score with a fixed number: a passage is kept when its score is close enough to the best score
 * of the same search, and the search counts as having found something only when one of its best
 * passages holds at least half of the query's weight — each distinctive word of the query weighted
 * by how rare it is among the search's passages, so a word no passage contains (the subject the
 * documents do not cover) weighs most, and a word every passage contains (the product's name)
 * least. No `vscode` import.
 */
import * as l10n from '@vscode/l10n';
import { matchRoot, splitCjk, STOP_WORDS } from '../common/terms';
import { contentWords, isStopWord } from './queryTerms';

/** Kept: at least this fraction of the way from the search's lowest score to its best. */
export const RELATIVE_FLOOR = 0.35;
/** The search covers the query when one of its best passages holds at least this share of the query's weight. */
export const MIN_COVERAGE = 0.5;
/**
 * The same share, halved, for a later question of a conversation an earlier answer of which the
 * documents grounded: they have shown that they cover its subject, and a later question's own
 * words ("and in 2019?", "I mean the one before") hold less of it.
 */
export const FOLLOW_UP_COVERAGE = 0.25;
/**
 * How many of the kept passages, best first, are looked at for that: as many as an answer about
 * one fact cites by default (the "search result count" setting). A search ranks by shared words
 * and meaning, so the passage that holds the question's subject ("the Arizona Cardinals played
 * in Mexico City") often comes after passages that share its common words; it is one the answer
 * cites all the same, and a question it covers is covered.
 */
export const COVERING_PASSAGES = 10;
/**
 * A question spanning stores ("how long are invoices and deployment logs kept?"): a store whose
 * best passage does not cover the question alone still takes part when it adds at least this
 * share of the query's weight that the stores taken before it do not hold.
 */
export const MIN_STORE_GAIN = 0.25;
/**
 * A question in another language keeps the words it asks with ("wie lange", "combien de temps",
 * "どのくらい"), which no passage holds: weighed as the rarest words they would outweigh its
 * subject. Its check counts shared words instead (see `phrasedInEnglish`): a passage supports it
 * when it holds this share of the question's distinctive words, or at least MIN_SHARED_WORDS.
 */
export const MIN_SHARED_SHARE = 0.5;
export const MIN_SHARED_WORDS = 2;

export interface Scored {
  score?: number;
  content: string;
  filename?: string;
  heading?: string;
}

/**
 * The passages at or above the floor, in their order: a score counts by where it sits between
 * zero (or the search's lowest score, when scores go below zero) and its best, so multiplying
 * every score by the same positive number changes nothing.
 * A search whose scores are all equal keeps everything (nothing tells them apart).
 */
export function aboveFloor<T extends Scored>(passages: readonly T[], floor = RELATIVE_FLOOR): T[] {
  const scores = passages.map((p) => p.score).filter((s): s is number => typeof s === 'number' && Number.isFinite(s));
  if (scores.length < 2) return [...passages];
  const best = Math.max(...scores);
  // Positive scores: a plain ratio to the best (a search of three good passages keeps all
  // three). Scores that go below zero (some similarity measures): the position between the
  // lowest and the best.
  const lowest = Math.min(0, ...scores);
  const span = best - lowest;
  if (span <= 0) return [...passages];
  return passages.filter((p) => typeof p.score !== 'number' || !Number.isFinite(p.score) || (p.score - lowest) / span >= floor);
}

/** How a question asks rather than what it asks about ("how long", "how many"). */
const ASKING = /(?:^|[^\p{L}\p{N}])how\s+(?:long|many|much|often|far|soon)(?=$|[^\p{L}\p{N}])/giu;
/** Verbs that frame an English question without naming its subject ("what happens when…", "do I need…"). */
const FRAMING = new Set('need needs needed happen happens happened want wants mean means say says said possible able'.split(' '));

/**
 * The distinct comparable words of a query (`query`: phrasing words dropped) or a passage. A
 * compound ("sign-on", `docchat.sync.watch`, "30-searches-a-minute") counts as its parts.
 */
export function matchTerms(text: string, query = false): Set<string> {
  const terms = new Set<string>();
  const words = contentWords(query ? text.replace(ASKING, ' ') : text);
  for (const word of words) {
    for (const part of word.split(/[-_./]+/)) {
      splitCjk(
        part,
        (rest) => {
          const lower = rest.toLowerCase();
          if ((lower.length < 2 && !/\d/.test(lower)) || isStopWord(lower) || (query && FRAMING.has(lower))) return;
          terms.add(matchRoot(lower));
        },
        (term) => terms.add(term),
      );
    }
  }
  return terms;
}

/** At most this many of the question's words are named when no passage found holds them. */
export const MAX_UNHELD_WORDS = 3;

/**
 * The distinctive words of an English question (as it writes them, in its order) that none of
 * `passages` holds: what a "not covered" answer can name, so that the asker sees the passages
 * found do not use their words ("usage stats" where the documents say "telemetry"). Empty for a
 * question not in English (its check counts shared words, see `phrasedInEnglish`).
 */
export function unheldWords(question: string, passages: readonly Scored[], max = MAX_UNHELD_WORDS): string[] {
  if (!phrasedInEnglish(question) || passages.length === 0) return [];
  const held = new Set<string>();
  for (const passage of passages) for (const term of passageTerms(passage)) held.add(term);
  const named = new Map<string, string>();
  for (const word of contentWords(question.replace(ASKING, ' '))) {
    const terms = [...matchTerms(word, true)];
    if (terms.length === 0 || terms.some((term) => held.has(term))) continue;
    const key = terms.join(' ');
    if (!named.has(key)) named.set(key, word);
  }
  return [...named.values()].slice(0, max);
}

/**
 * The sentence a "not covered" answer adds when the search found passages none of which holds
 * some of the question's words (`unheldWords`): the documents may say it in other words.
 */
export function unheldSentence(words: readonly string[]): string {
  if (words.length === 0) return '';
  const list = new Intl.ListFormat('en', { type: 'disjunction' }).format(words.map((w) => `“${w}”`));
  return l10n.t('No passage it found mentions {0}: the documents may use other words for it.', list);
}

/** A passage's words as the check reads them: its file name's parts ("invoice-retention.md"), heading and text. */
function passageText(passage: Scored): string {
  return `${(passage.filename ?? '').replace(/[._-]+/g, ' ')} ${passage.heading ?? ''} ${passage.content}`;
}

function passageTerms(passage: Scored): Set<string> {
  return matchTerms(passageText(passage));
}

/**
 * Each distinctive word of the query with its weight among the search's passages: an inverse
 * document frequency over the passages of this search, ln(1 + (n + 1) / (df + 0.5)), so the
 * weights depend on no score and no corpus statistics the service does not give.
 */
export function queryWeights(query: string, passages: readonly Scored[]): Map<string, number> {
  const have = passages.map(passageTerms);
  const weights = new Map<string, number>();
  for (const term of matchTerms(query, true)) {
    const df = have.filter((terms) => terms.has(term)).length;
    weights.set(term, Math.log(1 + (have.length + 1) / (df + 0.5)));
  }
  return weights;
}

/** The query's words (keys of `weights`) that the passage holds in its text, file name or heading. */
function heldTerms(weights: ReadonlyMap<string, number>, passage: Scored): Set<string> {
  const have = passageTerms(passage);
  return new Set([...weights.keys()].filter((term) => have.has(term)));
}

/** The share of the query's weight that `terms` hold; 1 for a query of no distinctive words. */
function weightShare(weights: ReadonlyMap<string, number>, terms: Iterable<string>): number {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  if (total === 0) return 1;
  let found = 0;
  for (const term of terms) found += weights.get(term) ?? 0;
  return found / total;
}

/** The share of the query's weight that the passage (its text, file name and heading) holds; 1 for a query of no distinctive words. */
export function weightedCoverage(weights: ReadonlyMap<string, number>, passage: Scored): number {
  return weightShare(weights, heldTerms(weights, passage));
}

/**
 * A follow-up searched with the conversation's subject carried after it ("And what about
 * contracts? long invoices kept"): the message's own words with their weights, and the carried
 * words. Such a query also counts as covered by a passage holding half of the message's own
 * weight and one carried word, since the message may replace part of the subject (contracts
 * instead of invoices). Undefined for any other query.
 */
function carriedSubject(
  query: string,
  question: string | undefined,
  weights: ReadonlyMap<string, number>,
): { own: Map<string, number>; subject: Set<string> } | undefined {
  const message = question?.trim();
  if (!message || !query.startsWith(message) || query.length === message.length) return undefined;
  const ownTerms = matchTerms(message, true);
  const own = new Map([...weights].filter(([term]) => ownTerms.has(term)));
  const subject = new Set([...weights.keys()].filter((term) => !ownTerms.has(term)));
  return own.size > 0 && subject.size > 0 ? { own, subject } : undefined;
}

/**
 * The relevant passages of one search for `query`: those above the floor, or none at all when
 * none of the best of them holds enough of the query's weight (the documents do not cover it).
 */
export function relevantPassages<T extends Scored>(query: string, passages: readonly T[]): T[] {
  return relevantInStores(query, [passages])[0]!;
}

/**
 * The relevant passages of each store's search for `query`, the query's words weighed over all
 * the searches. A store takes part when one of its best passages covers the query alone, or
 * adds enough of the query's weight to what the stores taken before it hold (best first); the
 * query is covered when the stores taken hold enough of its weight together. Otherwise every
 * list is empty: the documents do not cover it.
 */
export function relevantInStores<T extends Scored>(
  query: string,
  lists: readonly (readonly T[])[],
  question?: string,
  /**
   * `floored`: each list is already above its searches' floors (fused rankings), none is applied
   * again; `minCoverage`: the share of the query's weight that covers it (MIN_COVERAGE).
   */
  options: { floored?: boolean; minCoverage?: number } = {},
): T[][] {
  const minCoverage = options.minCoverage ?? MIN_COVERAGE;
  const kept = lists.map((list) => (options.floored ? [...list] : aboveFloor(list)));
  if (!phrasedInEnglish(question ?? query)) return bySharedWords(query, kept);
  const weights = queryWeights(query, lists.flat());
  if (weights.size === 0) return kept;
  const share = (terms: Iterable<string>) => weightShare(weights, terms);
  const carried = carriedSubject(query, question, weights);
  const coversAlone = (terms: ReadonlySet<string>) =>
    share(terms) >= minCoverage ||
    (carried !== undefined && weightShare(carried.own, terms) >= minCoverage && [...carried.subject].some((term) => terms.has(term)));
  // Each store's best passage among its first ones (one that covers the query alone first): the query's words it holds.
  const rank = (terms: ReadonlySet<string>) => share(terms) + (coversAlone(terms) ? 1 : 0);
  const held = kept.map((list) => {
    let best = new Set<string>();
    for (const p of list.slice(0, COVERING_PASSAGES)) {
      const terms = heldTerms(weights, p);
      if (rank(terms) > rank(best)) best = terms;
    }
    return best;
  });
  const order = held.map((_, i) => i).sort((a, b) => rank(held[b]!) - rank(held[a]!));
  const covered = new Set<string>();
  const taking = new Set<number>();
  for (const i of order) {
    const added = [...held[i]!].filter((t) => !covered.has(t));
    if (taking.size === 0 ? added.length > 0 : coversAlone(held[i]!) || share(added) >= MIN_STORE_GAIN) {
      taking.add(i);
      for (const t of added) covered.add(t);
    }
  }
  const isCovered = share(covered) >= minCoverage || [...taking].some((i) => coversAlone(held[i]!));
  return isCovered ? kept.map((list, i) => (taking.has(i) ? list : [])) : kept.map(() => []);
}

/**
 * Function words of other languages written in English's alphabet (German, French, Spanish,
 * Portuguese, Italian, Dutch) that are not English words: "Was bedeutet die Einstellung…?" has
 * one common English word ("was") but is German.
 */
const OTHER_LANGUAGE_WORDS = new Set(
  (
    'der die das den dem des ein eine einen einem einer und ist sind nicht ich wie wo wer wann warum welche welcher mit auf ' +
    'oder werden wird kann muss gibt le la les une et est sont que qui quoi quel quelle quels pourquoi avec dans pour sur ' +
    'el los las una por para como cuando donde cual porque con del uma nao il lo gli di che perche ' +
    'het een en wat waar hoe wie niet zijn wordt worden kan bij voor met van'
  ).split(' '),
);

/**
 * True when the weighted check can read the question: its letters are English's alphabet, it
 * has at least one common English word ("how", "the", "does") and no function word of another
 * language, so the English phrasing words it drops are the ones the question asks with. Anything
 * else ("Wie lange werden Rechnungen aufbewahrt?", a list of keywords) is checked by shared words.
 */
export function phrasedInEnglish(text: string): boolean {
  const words = (text.match(/\p{L}+/gu) ?? []).map((w) => w.toLowerCase());
  return (
    words.length > 0 &&
    words.every((w) => /^[a-z]+$/.test(w)) &&
    words.some((w) => STOP_WORDS.has(w)) &&
    !words.some((w) => OTHER_LANGUAGE_WORDS.has(w))
  );
}

/** True when the passage holds half of the query's distinctive words, or two of them. */
export function sharesWords(query: string, passage: Scored): boolean {
  // Compounds count as their parts: "docchat.search.maxResults" shares three words with the setting's row.
  const wanted = matchTerms(query);
  if (wanted.size === 0) return true;
  const have = passageTerms(passage);
  const shared = [...wanted].filter((term) => have.has(term)).length;
  return shared / wanted.size >= MIN_SHARED_SHARE || shared >= MIN_SHARED_WORDS;
}

/** The check for a question not in English: each store whose kept passages include one that shares enough of its words. */
function bySharedWords<T extends Scored>(query: string, kept: readonly T[][]): T[][] {
  return kept.map((list) => (list.some((p) => sharesWords(query, p)) ? list : []));
}
