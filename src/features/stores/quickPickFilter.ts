/**
 * Which items a VS Code quick pick shows for the text typed into it. VS Code does not tell the
 * extension how many items its filter leaves, so a picker that must say "nothing matches" works
 * it out with the same rules (those of VS Code 1.104 to 1.139, in `QuickInputTree.filter`):
 *
 * - the text is trimmed; no text shows every item;
 * - a separator is shown only above items that show, so it is never counted as one;
 * - an item shows when its label matches, or its description (only with `matchOnDescription`),
 *   or its detail (only with `matchOnDetail`), or when it has `alwaysShow`;
 * - a field matches "fuzzily": its `$(icon)` references removed and its leading spaces dropped,
 *   it contains the text ignoring case, where `*` in the text stands for any run of characters;
 *   or the text's letters start its camel-case words in order ("hb" matches "HandBook").
 *
 * No `vscode` import, so every rule is unit-tested.
 */

export interface FilterableItem {
  readonly label: string;
  readonly description?: string;
  readonly detail?: string;
  readonly alwaysShow?: boolean;
  /** `vscode.QuickPickItemKind`: a separator (-1) is never an item the filter matches. */
  readonly kind?: number;
}

/** `vscode.QuickPickItemKind.Separator`. */
const SEPARATOR = -1;

export interface FilterFields {
  readonly matchOnDescription?: boolean;
  readonly matchOnDetail?: boolean;
}

/** The items the quick pick shows for `value` (its filter text). */
export function shownItems<T extends FilterableItem>(items: readonly T[], value: string, fields: FilterFields = {}): T[] {
  const query = value.trim();
  if (!query) return [...items];
  return items.filter(
    (item) =>
      item.kind !== SEPARATOR &&
      (item.alwaysShow === true ||
        fieldMatches(query, item.label) ||
        (fields.matchOnDescription === true && fieldMatches(query, item.description ?? '')) ||
        (fields.matchOnDetail === true && fieldMatches(query, item.detail ?? ''))),
  );
}

/** Whether the (trimmed, non-empty) `query` matches a label, description or detail. */
export function fieldMatches(query: string, field: string): boolean {
  const text = withoutIcons(field).replace(/^ +/, '');
  return wildcardPattern(query).test(text) || camelCaseMatches(query, text);
}

/** `$(name)` references as VS Code finds them in labels (names of letters, digits, `~` and `-`). */
const ICON_REFERENCE = /\$\([A-Za-z0-9~-]+\)/g;

function withoutIcons(text: string): string {
  return text.replace(ICON_REFERENCE, '');
}

/** The text as a case-insensitive pattern: its characters literal, except `*` (any run). */
function wildcardPattern(query: string): RegExp {
  const literal = query.replace(/[-\\{}+?|^$.,[\]()#\s]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(literal, 'i');
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlphanumeric = (c: number) => isUpper(c) || isLower(c) || isDigit(c);
const isWhitespace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

function counts(text: string, test: (c: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (test(text.charCodeAt(i))) n++;
  return n;
}

/** Whether the typed text may be meant as camel-case initials (VS Code's heuristic). */
function camelCasePattern(query: string): boolean {
  const upper = counts(query, isUpper);
  const lower = counts(query, isLower);
  if ((upper === 0 || lower === 0) && counts(query, isWhitespace) === 0) return query.length <= 30;
  return upper <= 5;
}

/** Where the next camel-case word of `text` starts, from `from` on. */
function nextWordStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isUpper(c) || isDigit(c) || (i > 0 && !isAlphanumeric(text.charCodeAt(i - 1)))) return i;
  }
  return text.length;
}

/** Whether query[q..] matches text from j on, each next letter continuing the word or starting a later one. */
function matchesFrom(query: string, text: string, q: number, j: number): boolean {
  if (q === query.length) return true;
  if (j === text.length || query[q] !== text[j]!.toLowerCase()) return false;
  if (matchesFrom(query, text, q + 1, j + 1)) return true;
  for (let next = nextWordStart(text, j + 1); next < text.length; next = nextWordStart(text, next + 1)) {
    if (matchesFrom(query, text, q + 1, next)) return true;
  }
  return false;
}

function camelCaseMatches(query: string, field: string): boolean {
  let text = field.trim();
  if (!text || !camelCasePattern(query)) return false;
  text = text.slice(0, 60);
  const upper = counts(text, isUpper) / text.length;
  const lower = counts(text, isLower) / text.length;
  const alpha = counts(text, isAlphanumeric) / text.length;
  const digits = counts(text, isDigit) / text.length;
  const camelCase = lower > 0.2 && upper < 0.8 && alpha > 0.6 && digits < 0.2;
  if (!camelCase) {
    // An upper-case word ("HTTP") is matched as if written in lower case.
    if (!(lower === 0 && upper > 0.6)) return false;
    text = text.toLowerCase();
  }
  const lowered = query.toLowerCase();
  for (let start = 0; start < text.length; start = nextWordStart(text, start + 1)) {
    if (matchesFrom(lowered, text, 0, start)) return true;
  }
  return false;
}
