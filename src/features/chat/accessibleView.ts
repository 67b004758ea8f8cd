/**
 * The "Accessible View" of the chat: the last answer as plain text, for reading line by line in an
 * editor with a screen reader (VS Code's own chat offers the same with Alt+F2). No `vscode` here.
 */
import * as l10n from '@vscode/l10n';
import { sourceTitle } from '../../chatCore/grounding';
import type { AssistantMessage, Conversation, UserMessage } from '../../chatCore/protocol';

function statusNote(status: AssistantMessage['status']): string | undefined {
  switch (status) {
    case 'pending':
      return l10n.t('The answer has not started yet.');
    case 'streaming':
      return l10n.t('The answer is still being written; run the command again for the rest.');
    case 'stopped':
      return l10n.t('The answer was stopped.');
    default:
      return undefined;
  }
}

/** The last answer of `conversation` with its question and sources, or undefined when none. */
export function accessibleAnswerText(conversation: Conversation): string | undefined {
  const messages = conversation.messages;
  let index = messages.length - 1;
  while (index >= 0 && messages[index]!.role !== 'assistant') index--;
  if (index === -1) return undefined;
  const answer = messages[index] as AssistantMessage;
  const question = messages
    .slice(0, index)
    .reverse()
    .find((m): m is UserMessage => m.role === 'user');
  const lines: string[] = [];
  if (question) lines.push(l10n.t('Question: {0}', question.content), '');
  lines.push(answer.model ? l10n.t('Answer ({0}):', answer.model) : l10n.t('Answer:'), '', answer.content.trim() || l10n.t('(no text)'));
  const note = statusNote(answer.status);
  if (note) lines.push('', note);
  if (answer.status === 'error' && answer.error) lines.push('', l10n.t('Error: {0}', answer.error.message));
  if (answer.sources?.length) {
    lines.push('', l10n.t('Sources:'));
    for (const source of answer.sources) {
      const where =
        source.kind === 'web' ? source.url : source.kind === 'passage' && source.storeName ? l10n.t('in {0}', source.storeName) : '';
      lines.push(`[${source.number}] ${sourceTitle(source)}${where && where !== sourceTitle(source) ? ` (${where})` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
