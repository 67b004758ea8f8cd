/**
 * Lists of changes — a changelog's or release notes' entries — told apart from the rest of a
 * store's documents. An entry says that something changed, in the words of the feature it
 * changed, so it matches a question about that feature as well as the guide does, without
 * saying how to use it. No `vscode` import.
 */

/** Section names of a list of changes (Keep a Changelog's, and release notes'). */
const CHANGE_SECTION =
  /^(?:added|changed|fixed|removed|deprecated|security|features?|bug ?fixes|improvements?|breaking changes?|unreleased|\[?v?\d+\.\d+(?:\.\d+)?\]?.*)$/i;

/** Whether a heading names a section of a list of changes ("Added", "[1.2.0] - 2026-01-05"). */
export function isChangeSection(heading: string): boolean {
  return CHANGE_SECTION.test(heading.replace(/[*_`#]/g, '').trim());
}

/** A release's heading: "[1.2.0] - 2026-01-05", "v2.1", "1.0.0", "Unreleased". */
const RELEASE_HEADING = /^(?:\[?v?\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?\]?(?:\s.*)?|\[?unreleased\]?)$/i;

/** File names of lists of changes: CHANGELOG.md, CHANGES, RELEASE_NOTES.txt, releases.md. */
const CHANGE_LIST_FILE = /^(?:change[-_ ]?log|changes|release[-_ ]?notes|releases)(?:\.[a-z\d]{1,8})?$/i;
/** Names a list of changes often has, and other documents too (a company's news, a town's history). */
const MAYBE_CHANGE_LIST_FILE = /^(?:history|news)(?:\.[a-z\d]{1,8})?$/i;

/**
 * Whether a search passage is from a list of changes: its file is named as one, or its section
 * sits under a release's heading ("Changelog > [1.2.0] > Fixed"; the heading path as the
 * documents service gives it, sections joined by " > "); in a file named HISTORY or NEWS, any
 * section under a release's heading.
 */
export function isChangeListPassage(passage: { filename?: string; heading?: string }): boolean {
  const name = passage.filename?.split(/[\\/]/).pop() ?? '';
  if (CHANGE_LIST_FILE.test(name)) return true;
  const sections = (passage.heading ?? '')
    .split(' > ')
    .map((s) => s.replace(/[*_`#]/g, '').trim())
    .filter(Boolean);
  const underRelease = sections.some((s) => RELEASE_HEADING.test(s));
  if (MAYBE_CHANGE_LIST_FILE.test(name)) return underRelease;
  return underRelease && isChangeSection(sections[sections.length - 1] ?? '');
}

/**
 * A question about what changed or since when: a list of changes answers it. Only words that ask
 * about changes themselves: "new" or "when" alone ("start a new conversation", "what happens when
 * …") ask about the product as it is.
 */
const ASKS_ABOUT_CHANGES =
  /\b(?:chang(?:ed|es|elog)|added|fixed|removed|deprecated|releases?|released|versions?|since|history|what'?s new|new in|upgrad(?:e|ed|ing))\b/i;

export const asksAboutChanges = (question: string): boolean => ASKS_ABOUT_CHANGES.test(question);
