import * as assert from 'node:assert/strict';
import { numberSources, sourceTitle } from '../../../src/chatCore/grounding';
import {
  buildChatMessages,
  buildInferencePrompt,
  buildSystemPrompt,
  HISTORY_MAX_MESSAGES,
  historyMessages,
  titleFor,
} from '../../../src/chatCore/promptBuilder';
import type { ChatMessage, PassageSource, SelectionSource } from '../../../src/chatCore/protocol';

const passage = (fileId: string, content: string, filename?: string): PassageSource => ({
  kind: 'passage',
  storeId: 'vs_1',
  fileId,
  content,
  ...(filename ? { filename } : {}),
});
const selection: SelectionSource = {
  kind: 'selection',
  uri: 'file:///w/src/a.ts',
  label: 'src/a.ts',
  languageId: 'typescript',
  range: { startLine: 9, startCharacter: 0, endLine: 11, endCharacter: 1 },
  content: 'function keep() {\n  return 10;\n}',
};

describe('chat prompt building', () => {
  it('numbers attached context first, then search passages, dropping passages already attached', () => {
    const sources = numberSources(
      [selection, passage('f1', 'Invoices: ten years.')],
      [passage('f1', 'Invoices: ten years.'), passage('f2', 'Contracts: six years.')],
    );
    assert.deepEqual(
      sources.map((s) => [s.number, s.kind, s.kind === 'passage' ? s.fileId : s.kind === 'selection' ? s.label : s.url]),
      [
        [1, 'selection', 'src/a.ts'],
        [2, 'passage', 'f1'],
        [3, 'passage', 'f2'],
      ],
    );
  });

  it('puts every source under its number in the system prompt, with the citation instructions', () => {
    const sources = numberSources([selection], [passage('f2', 'Contracts are kept for six years.', 'contracts.md')]);
    const system = buildSystemPrompt(sources);
    assert.match(system, /cite it with its number in square brackets, like \[1\]/);
    assert.ok(system.includes('[1] src/a.ts, lines 10-12\n```typescript\nfunction keep() {\n  return 10;\n}\n```'));
    assert.ok(system.includes('[2] contracts.md\nContracts are kept for six years.'));
  });

  it('says so when the store search found nothing, and adds no source section without sources', () => {
    assert.match(buildSystemPrompt([], 'policies'), /search of the vector store "policies" found nothing/);
    assert.doesNotMatch(buildSystemPrompt([]), /Sources:/);
  });

  it('sends system, history and question in order', () => {
    const history: ChatMessage[] = [
      { id: '1', role: 'user', content: 'Q1', createdAt: 1 },
      { id: '2', role: 'assistant', content: 'A1', createdAt: 2, status: 'done' },
      { id: '3', role: 'user', content: 'Q2', createdAt: 3 },
      { id: '4', role: 'assistant', content: 'partial', createdAt: 4, status: 'stopped' },
      { id: '5', role: 'user', content: 'Q3', createdAt: 5 },
      {
        id: '6',
        role: 'assistant',
        content: 'half an answer, then the connection dropped',
        createdAt: 6,
        status: 'error',
        error: { kind: 'network', message: 'x', actions: [] },
      },
      { id: '7', role: 'user', content: 'Q3 again', createdAt: 7 },
      { id: '8', role: 'assistant', content: '', createdAt: 8, status: 'error', error: { kind: 'network', message: 'x', actions: [] } },
    ];
    const messages = buildChatMessages({ question: 'Q4', history, sources: [] });
    assert.deepEqual(
      messages.map((m) => `${m.role}:${m.role === 'system' ? '' : m.content}`),
      ['system:', 'user:Q1', 'assistant:A1', 'user:Q2', 'assistant:partial', 'user:Q3', 'user:Q3 again', 'user:Q4'],
    );
  });

  it('keeps only the newest history within the budget and never starts with an answer', () => {
    const history: ChatMessage[] = [];
    for (let i = 0; i < 20; i++) {
      history.push({ id: `u${i}`, role: 'user', content: `Q${i}`, createdAt: i });
      history.push({ id: `a${i}`, role: 'assistant', content: `A${i}`, createdAt: i, status: 'done' });
    }
    const kept = historyMessages(history);
    assert.ok(kept.length <= HISTORY_MAX_MESSAGES);
    assert.equal(kept[0]!.role, 'user');
    assert.equal(kept.at(-1)!.content, 'A19');
    const huge: ChatMessage[] = [
      { id: 'u', role: 'user', content: 'x'.repeat(30_000), createdAt: 1 },
      { id: 'a', role: 'assistant', content: 'short', createdAt: 2, status: 'done' },
    ];
    assert.deepEqual(historyMessages(huge), []);
  });

  it('flattens the conversation into one prompt for the inference endpoint', () => {
    const { prompt, system_prompt } = buildInferencePrompt({
      question: 'Why?',
      history: [],
      sources: numberSources([], [passage('f', 'Because.', 'why.md')]),
    });
    assert.equal(prompt, 'Why?');
    assert.ok(system_prompt.includes('[1] why.md\nBecause.'));
  });

  it('names sources by file name, file id or editor range', () => {
    assert.equal(sourceTitle(passage('file-1', 'x')), 'file-1');
    assert.equal(sourceTitle(passage('file-1', 'x', 'a.md')), 'a.md');
    assert.equal(
      sourceTitle({ ...selection, range: { startLine: 4, startCharacter: 0, endLine: 4, endCharacter: 3 } }),
      'src/a.ts, line 5',
    );
  });

  it('titles a conversation by its first question', () => {
    assert.equal(titleFor('  How long are invoices kept?\nmore'), 'How long are invoices kept?');
    assert.equal(titleFor('x'.repeat(100)).length, 58);
  });
});
