/**
 * The labels of the conversation list. A title alone when no other conversation has it; each of
 * several conversations with the same title says first when it started, then the title and how
 * many questions it holds. Conversations that this still does not tell apart (started in the same
 * minute, with as many questions) give the start time to the second; the rare ones still alike are
 * numbered in the order they started. Every label is unique. The label is the option's text, so a screen
 * reader reads the difference too.
 */
import * as l10n from '@vscode/l10n';
import type { ConversationSummary } from '../../src/chatCore/protocol';

/** Writes when a conversation started, in the page's locale: to the minute, or to the second. */
export type TimeFormat = (time: number, seconds: boolean) => string;

const pageFormats = new Map<boolean, Intl.DateTimeFormat>();
/** The page's date and time formats, made once each (at the first duplicate title). */
const pageTime: TimeFormat = (time, seconds) => {
  let format = pageFormats.get(seconds);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' });
    pageFormats.set(seconds, format);
  }
  return format.format(time);
};

/** Indexes of the labels that another label equals. */
function repeated(labels: readonly string[]): Set<number> {
  const count = new Map<string, number>();
  for (const label of labels) count.set(label, (count.get(label) ?? 0) + 1);
  return new Set(labels.flatMap((label, i) => ((count.get(label) ?? 0) > 1 ? [i] : [])));
}

export function conversationLabels(summaries: readonly ConversationSummary[], format: TimeFormat = pageTime): string[] {
  const described = (s: ConversationSummary, seconds: boolean) => {
    const started = format(s.createdAt, seconds);
    // The time first: a narrow chat cuts the end of the label its select shows, and the title is
    // the part they share.
    return s.questions === 1
      ? l10n.t('{1} — {0} (1 question)', s.title, started)
      : l10n.t('{1} — {0} ({2} questions)', s.title, started, s.questions);
  };
  const sameTitle = repeated(summaries.map((s) => s.title));
  const labels = summaries.map((s, i) => (sameTitle.has(i) ? described(s, false) : s.title));
  for (const i of repeated(labels)) if (sameTitle.has(i)) labels[i] = described(summaries[i]!, true);
  // Alike to the second (or a title that reads like another's label): numbered in the order they started.
  const alike = new Map<string, number[]>();
  for (const i of repeated(labels)) alike.set(labels[i]!, [...(alike.get(labels[i]!) ?? []), i]);
  const taken = new Set(labels);
  for (const [label, indexes] of alike) {
    indexes.sort((a, b) => summaries[a]!.createdAt - summaries[b]!.createdAt || summaries[a]!.id.localeCompare(summaries[b]!.id));
    let n = 1;
    for (const i of indexes) {
      let numbered: string;
      do numbered = l10n.t('{0} ({1})', label, n++);
      while (taken.has(numbered));
      taken.add(numbered);
      labels[i] = numbered;
    }
  }
  return labels;
}
