/**
 * Builds what the model sees: a system prompt with the numbered sources, the recent history and
 * the question, for the chat completions endpoint, or flattened into one prompt for the legacy
 * inference endpoint. No `vscode` import.
 */
import { sourceTitle } from './grounding';
import type { ChatMessage, ChatSource } from './protocol';

export type PromptMessage = {
  role: 'system' | 'user' | 'assistant';
  content: string;
};

export interface PromptInput {
  question: string;
  /** Earlier messages of the conversation (not including the question). */
  history: readonly ChatMessage[];
  sources: readonly ChatSource[];
  /** Name of the vector store that was searched, when one was. */
  searchedStore?: string;
}

/** Older turns beyond these budgets are left out (newest kept). */
export const HISTORY_MAX_MESSAGES = 12;
export const HISTORY_MAX_CHARS = 24_000;

const BASE_INSTRUCTIONS =
  'You are DocChat, an assistant inside Visual Studio Code. Answer clearly and concisely in Markdown; put code in fenced code blocks with a language.';

const SOURCE_INSTRUCTIONS =
  'Answer the question using the numbered sources below. After each statement that uses a source, cite it with its number in square brackets, like [1] or [2][3]. Cite only the listed numbers. If the sources do not contain the answer, say so.';

function formatSource(source: ChatSource): string {
  const title = sourceTitle(source);
  const body =
    source.kind === 'selection' ? `\`\`\`${source.languageId ?? ''}\n${source.content.replace(/\n$/, '')}\n\`\`\`` : source.content.trim();
  const where = source.kind === 'web' && source.url !== title ? ` (${source.url})` : '';
  return `[${source.number}] ${title}${where}\n${body}`;
}

export function buildSystemPrompt(sources: readonly ChatSource[], searchedStore?: string): string {
  if (sources.length === 0) {
    const none = searchedStore
      ? `\n\nA search of the vector store "${searchedStore}" found nothing relevant to this question: say that the documents do not cover it before answering from general knowledge.`
      : '';
    return BASE_INSTRUCTIONS + none;
  }
  return `${BASE_INSTRUCTIONS}\n\n${SOURCE_INSTRUCTIONS}\n\nSources:\n\n${sources.map(formatSource).join('\n\n')}`;
}

/** The recent turns worth sending: answered questions, newest kept within the budgets. */
export function historyMessages(history: readonly ChatMessage[]): PromptMessage[] {
  const turns: PromptMessage[] = [];
  for (const message of history) {
    if (message.role === 'user') {
      turns.push({ role: 'user', content: message.content });
    } else if (message.content.trim() !== '' && message.status !== 'error') {
      turns.push({ role: 'assistant', content: message.content });
    }
  }
  const kept: PromptMessage[] = [];
  let chars = 0;
  for (let i = turns.length - 1; i >= 0 && kept.length < HISTORY_MAX_MESSAGES; i--) {
    const turn = turns[i]!;
    chars += turn.content.length;
    if (chars > HISTORY_MAX_CHARS) {
      break;
    }
    kept.unshift(turn);
  }
  // A conversation continues with the user; an orphan answer at the start only confuses.
  while (kept[0]?.role === 'assistant') {
    kept.shift();
  }
  return kept;
}

export function buildChatMessages(input: PromptInput): PromptMessage[] {
  return [
    { role: 'system', content: buildSystemPrompt(input.sources, input.searchedStore) },
    ...historyMessages(input.history),
    { role: 'user', content: input.question },
  ];
}

/** The deprecated inference endpoint takes one prompt string and a system prompt. */
export function buildInferencePrompt(input: PromptInput): { system_prompt: string; prompt: string } {
  const history = historyMessages(input.history);
  const prompt =
    history.length === 0
      ? input.question
      : `${history.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`).join('\n\n')}\n\nUser: ${input.question}`;
  return { system_prompt: buildSystemPrompt(input.sources, input.searchedStore), prompt };
}

/** A conversation's title: its first question, shortened. */
export function titleFor(question: string): string {
  const line = question.trim().split('\n')[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'New chat';
}
