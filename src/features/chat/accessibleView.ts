/**
 * The "Accessible View" of the chat: the last answer as plain text, for reading line by line in an
 * editor with a screen reader (VS Code's own chat offers the same with Alt+F2). No `vscode` here.
 */
import { sourceTitle } from '../../chatCore/grounding';
import type { AssistantMessage, Conversation, UserMessage } from '../../chatCore/protocol';

const STATUS_NOTES: Partial<Record<AssistantMessage['status'], string>> = {
  pending: 'The answer has not started yet.',
  streaming: 'The answer is still being written; run the command again for the rest.',
  stopped: 'The answer was stopped.',
};

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
  if (question) lines.push(`Question: ${question.content}`, '');
  lines.push(`Answer${answer.model ? ` (${answer.model})` : ''}:`, '', answer.content.trim() || '(no text)');
  const note = STATUS_NOTES[answer.status];
  if (note) lines.push('', note);
  if (answer.status === 'error' && answer.error) lines.push('', `Error: ${answer.error.message}`);
  if (answer.sources?.length) {
    lines.push('', 'Sources:');
    for (const source of answer.sources) {
      const where = source.kind === 'web' ? source.url : source.kind === 'passage' && source.storeName ? `in ${source.storeName}` : '';
      lines.push(`[${source.number}] ${sourceTitle(source)}${where && where !== sourceTitle(source) ? ` (${where})` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
