import * as assert from 'node:assert/strict';
import { accessibleAnswerText } from '../../../src/features/chat/accessibleView';
import type { AssistantMessage, ChatMessage, Conversation } from '../../../src/chatCore/protocol';
import { Settings } from '../../../src/common/constants';
import { normaliseSettings } from '../../../src/services/settingsModel';

const T = 1_763_000_000_000;

function conversation(messages: ChatMessage[]): Conversation {
  return { id: 'c1', title: 'Retention', createdAt: T, updatedAt: T, options: { model: 'm' }, messages, pendingContext: [] };
}

const answer = (extra: Partial<AssistantMessage>): AssistantMessage => ({
  id: 'a',
  role: 'assistant',
  content: '',
  createdAt: T,
  status: 'done',
  ...extra,
});

describe('Accessible View of the last chat answer', () => {
  it('gives the last answer with its question and its sources as plain text', () => {
    const text = accessibleAnswerText(
      conversation([
        { id: 'u1', role: 'user', content: 'First?', createdAt: T },
        answer({ id: 'a1', content: 'An earlier answer.' }),
        { id: 'u2', role: 'user', content: 'How long are invoices kept?', createdAt: T },
        answer({
          id: 'a2',
          model: 'local-extractive',
          content: 'Ten years [1].\n\n```ts\nconst years = 10;\n```\n',
          sources: [
            { kind: 'passage', number: 1, storeId: 'vs_1', storeName: 'handbook', fileId: 'f1', filename: 'retention.md', content: 'x' },
            { kind: 'web', number: 2, url: 'https://example.com/p', title: 'Policy page', content: '' },
          ],
        }),
      ]),
    );
    assert.equal(
      text,
      [
        'Question: How long are invoices kept?',
        '',
        'Answer (local-extractive):',
        '',
        'Ten years [1].',
        '',
        '```ts',
        'const years = 10;',
        '```',
        '',
        'Sources:',
        '[1] retention.md (in handbook)',
        '[2] Policy page (https://example.com/p)',
        '',
      ].join('\n'),
    );
  });

  it('says when the answer is still streaming, stopped or failed, and gives nothing without an answer', () => {
    assert.equal(accessibleAnswerText(conversation([])), undefined);
    assert.equal(accessibleAnswerText(conversation([{ id: 'u1', role: 'user', content: 'Q', createdAt: T }])), undefined);
    assert.match(
      accessibleAnswerText(conversation([answer({ content: 'Half', status: 'streaming' })]))!,
      /Half\n\nThe answer is still being written/,
    );
    assert.match(accessibleAnswerText(conversation([answer({ content: 'Half', status: 'stopped' })]))!, /The answer was stopped\./);
    assert.match(
      accessibleAnswerText(
        conversation([
          answer({ status: 'error', error: { kind: 'auth', message: 'The gateway rejected the API key (401).', actions: [] } }),
        ]),
      )!,
      /\(no text\)\n\nError: The gateway rejected the API key \(401\)\.\n$/,
    );
  });
});

describe('docchat.chat.announceAnswers', () => {
  it('reads as they stream by default; takes whenDone and off; anything else falls back', () => {
    const read = (value: unknown) => normaliseSettings({ docchat: { [Settings.announceAnswers]: value } }).announceAnswers;
    assert.equal(read(undefined), 'asTheyStream');
    assert.equal(read('whenDone'), 'whenDone');
    assert.equal(read('off'), 'off');
    assert.equal(read('loud'), 'asTheyStream');
  });
});
