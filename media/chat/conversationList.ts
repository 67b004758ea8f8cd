/**
 * The labels of the conversation list. A title alone when no other conversation has it; each of
 * several conversations with the same title also says when it started and how many questions it
 * holds. The label is the option's text, so a screen reader reads the difference too.
 */
import * as l10n from '@vscode/l10n';
import type { ConversationSummary } from '../../src/chatCore/protocol';

/** Writes when a conversation started, in the page's locale. */
export type TimeFormat = (time: number) => string;

let pageFormat: Intl.DateTimeFormat | undefined;
/** The page's date and time format, made once (at the first duplicate title). */
const pageTime: TimeFormat = (time) =>
  (pageFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })).format(time);

export function conversationLabels(summaries: readonly ConversationSummary[], format: TimeFormat = pageTime): string[] {
  const sameTitle = new Map<string, number>();
  for (const s of summaries) sameTitle.set(s.title, (sameTitle.get(s.title) ?? 0) + 1);
  return summaries.map((s) => {
    if ((sameTitle.get(s.title) ?? 0) < 2) return s.title;
    const started = format(s.createdAt);
    return s.questions === 1
      ? l10n.t('{0} — started {1}, 1 question', s.title, started)
      : l10n.t('{0} — started {1}, {2} questions', s.title, started, s.questions);
  });
}
