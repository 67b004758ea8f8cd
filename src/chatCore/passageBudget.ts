/**
 * How many passages a question gets and which: more for list and compare questions than for one
 * fact, at most a few per file unless one file is all there is, neighbouring chunks of a file
 * joined into one source, all within a budget of characters the model's context can hold.
 * No `vscode` import.
 */

export type QuestionKind = 'fact' | 'list' | 'compare';

const COMPARE =
  /\b(compare[sd]?|comparison|differen(ce|ces|t)|differs?|versus|vs\.?|pros and cons|trade-?offs?|better|worse)\b|\bbetween\b.+\band\b/i;
const LIST =
  /\b(list|lists|enumerate|every|all|each|which|overview|summari[sz]e|summary|options|endpoints|steps|kinds|types|ways|examples)\b|\bwhat are\b|\bhow many\b/i;

export function questionKind(question: string): QuestionKind {
  if (COMPARE.test(question)) return 'compare';
  if (LIST.test(question)) return 'list';
  return 'fact';
}

/** Passages a list or compare question may use, as a multiple of the setting for one fact. */
const WIDE_FACTOR = 3;
/** The documents service returns at most 50 results per search. */
export const MAX_SEARCH_RESULTS = 50;
/** Passages of one file, unless one file is all there is. */
export const PER_FILE_FOR_FACT = 3;
export const PER_FILE_FOR_LIST = 4;
/** Characters of passages a prompt carries (about 12,000 tokens): room for history and answer. */
export const SOURCE_CHAR_BUDGET = 48_000;

/** How many passages the question gets, given the "search result count" setting. */
export function passageTarget(kind: QuestionKind, setting: number): number {
  const base = Math.max(1, Math.min(setting, MAX_SEARCH_RESULTS));
  return kind === 'fact' ? base : Math.min(MAX_SEARCH_RESULTS, base * WIDE_FACTOR);
}

/** How many results to ask each search for: room for what the floor and the per-file cap remove. */
export function searchSize(target: number): number {
  return Math.min(MAX_SEARCH_RESULTS, Math.max(target * 2, target + 5));
}

export interface BudgetPassage {
  fileId: string;
  content: string;
  chunkIndex?: number;
  /** Which search it came from: chunk numbers are per store. */
  storeId: string;
  /** The search's score: a joined source shows the best of its chunks'. */
  score?: number;
}

/** At least this much of `b`'s text must repeat the end of `a` for the two to be joined inside a paragraph. */
const MIN_OVERLAP = 48;

/**
 * `a` followed by `b`'s text without what it repeats from the end of `a` (chunks overlap): the
 * paragraphs it repeats whole (the heading line each chunk opens with, say), and the end of `a`
 * it starts with when the chunks were cut inside a paragraph. Then a sentence `a` breaks off
 * ("…steps for "how do I…", a number") goes on with the rest `b` holds, once, rather than standing
 * cut before `b`'s whole copy of it.
 */
export function joinText(a: string, b: string): string {
  const paragraphsOfA = new Set(a.split(/\n{2,}/).map((p) => p.trim()));
  const rest = b.split(/\n{2,}/);
  let skip = 0;
  while (skip < rest.length && paragraphsOfA.has(rest[skip]!.trim())) skip++;
  const tail = rest.slice(skip).join('\n\n').trim();
  if (!tail) return a;
  const head = a.trimEnd();
  // The earliest place from which the rest of `a` is where `tail` starts: the longest overlap.
  const probe = tail.slice(0, MIN_OVERLAP);
  if (probe.length === MIN_OVERLAP) {
    for (let at = head.indexOf(probe); at >= 0; at = head.indexOf(probe, at + 1)) {
      if (tail.startsWith(head.slice(at))) return head.slice(0, at) + tail;
    }
  }
  return `${head}\n\n${tail}`;
}

/**
 * Joins neighbouring chunks of one file (chunk numbers one apart, both found) into the
 * higher-ranked one, in chunk order, so one part of a document is one source rather than two.
 * Order is kept; the joined chunks take the place of the best-ranked of them, with the first
 * chunk's fields (its heading) but the best score of them: the one that earned the place (the
 * Sources list shows it, and a lower one there would read as out of order).
 */
export function joinNeighbours<T extends BudgetPassage>(passages: readonly T[]): T[] {
  const byChunk = new Map<string, number>();
  passages.forEach((p, i) => {
    if (p.chunkIndex !== undefined) byChunk.set(`${p.storeId}\u0000${p.fileId}\u0000${p.chunkIndex}`, i);
  });
  const consumed = new Set<number>();
  const out: T[] = [];
  passages.forEach((p, i) => {
    if (consumed.has(i)) return;
    if (p.chunkIndex === undefined) {
      out.push(p);
      return;
    }
    const key = (n: number) => `${p.storeId}\u0000${p.fileId}\u0000${n}`;
    let first = p.chunkIndex;
    while (byChunk.has(key(first - 1)) && !consumed.has(byChunk.get(key(first - 1))!)) first--;
    let last = p.chunkIndex;
    while (byChunk.has(key(last + 1)) && !consumed.has(byChunk.get(key(last + 1))!)) last++;
    if (first === last) {
      out.push(p);
      return;
    }
    let text = '';
    let score: number | undefined;
    for (let n = first; n <= last; n++) {
      const index = byChunk.get(key(n))!;
      consumed.add(index);
      text = text ? joinText(text, passages[index]!.content) : passages[index]!.content;
      const chunkScore = passages[index]!.score;
      if (typeof chunkScore === 'number' && Number.isFinite(chunkScore) && (score === undefined || chunkScore > score)) score = chunkScore;
    }
    // The joined source starts where its first chunk starts: that chunk's heading names it.
    out.push({ ...passages[byChunk.get(key(first))!]!, content: text, chunkIndex: first, ...(score !== undefined ? { score } : {}) });
  });
  return out;
}

/**
 * At most `perFile` passages of each file, unless every passage comes from one file. With
 * `fillTo`, the passages the cap held back follow the others (best first) while fewer than
 * `fillTo` are left: when the other files have nothing more to offer, one file is all there is.
 * They come after every other file's passages, so a character budget cuts them first.
 */
export function capPerFile<T extends BudgetPassage>(passages: readonly T[], perFile: number, fillTo = 0): T[] {
  const files = new Set(passages.map((p) => `${p.storeId}\u0000${p.fileId}`));
  if (files.size <= 1) return [...passages];
  const counts = new Map<string, number>();
  const kept: T[] = [];
  const heldBack: T[] = [];
  for (const p of passages) {
    const key = `${p.storeId}\u0000${p.fileId}`;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    (count <= perFile ? kept : heldBack).push(p);
  }
  return [...kept, ...heldBack.slice(0, Math.max(0, fillTo - kept.length))];
}

/** The first passages, in order, up to `count` and `chars` of text (the first one always fits). */
export function withinBudget<T extends BudgetPassage>(passages: readonly T[], count: number, chars = SOURCE_CHAR_BUDGET): T[] {
  const out: T[] = [];
  let used = 0;
  for (const p of passages) {
    if (out.length >= count) break;
    if (out.length > 0 && used + p.content.length > chars) break;
    out.push(p);
    used += p.content.length;
  }
  return out;
}

/** The passages a question of `kind` uses, from ranked relevant passages. */
export function selectPassages<T extends BudgetPassage>(
  ranked: readonly T[],
  kind: QuestionKind,
  setting: number,
  chars = SOURCE_CHAR_BUDGET,
): T[] {
  const target = passageTarget(kind, setting);
  // A list or compare question fills its budget from the files that have more to offer; a fact stays spread out.
  const capped =
    kind === 'fact' ? capPerFile(joinNeighbours(ranked), PER_FILE_FOR_FACT) : capPerFile(joinNeighbours(ranked), PER_FILE_FOR_LIST, target);
  return withinBudget(capped, target, chars);
}
