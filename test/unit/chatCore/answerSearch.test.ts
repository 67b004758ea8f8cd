/** "Search the Documents" of an answer: the words and the store it searched, named even once the store is gone. */
import * as assert from 'node:assert/strict';
import { answerSearch } from '../../../src/chatCore/conversationStores';
import type { Conversation } from '../../../src/chatCore/protocol';

function conversation(
  answer: Partial<Extract<Conversation['messages'][number], { role: 'assistant' }>>,
  options: Conversation['options'] = {},
) {
  return {
    options,
    messages: [
      { id: 'u1', role: 'user', content: 'How do I book a meeting room?', createdAt: 1 },
      {
        id: 'a1',
        role: 'assistant',
        content: 'The documents in “notes” do not cover this question.',
        createdAt: 2,
        status: 'done',
        ...answer,
      },
    ],
  } as Pick<Conversation, 'messages' | 'options'>;
}

describe('answerSearch (Search the Documents of an answer)', () => {
  it('searches the words the answer searched for, in the store it searched, named as the store list names it', () => {
    const c = conversation({ searchQuery: 'book meeting room', storeIds: ['vs_notes'] });
    assert.deepEqual(
      answerSearch(c, 'a1', (id) => (id === 'vs_notes' ? 'team notes' : undefined)),
      { query: 'book meeting room', store: { id: 'vs_notes', name: 'team notes' } },
    );
  });

  it('names a store deleted since (gone from the store list) as the conversation does, not by its id', () => {
    const c = conversation({ storeIds: ['vs_notes'] }, { vectorStoreId: 'vs_notes', vectorStoreName: 'notes' });
    assert.deepEqual(
      answerSearch(c, 'a1', () => undefined),
      {
        query: 'How do I book a meeting room?',
        store: { id: 'vs_notes', name: 'notes' },
      },
    );
    const several = conversation(
      { storeIds: ['vs_b'] },
      {
        vectorStoreId: 'vs_a',
        vectorStoreName: 'a',
        vectorStores: [
          { id: 'vs_a', name: 'a' },
          { id: 'vs_b', name: 'b' },
        ],
      },
    );
    assert.equal(answerSearch(several, 'a1', () => undefined)?.store?.name, 'b');
  });

  it('falls back to the id only when nothing names the store', () => {
    const c = conversation({ storeIds: ['vs_x'] }, { vectorStoreId: 'vs_other', vectorStoreName: 'other' });
    assert.deepEqual(answerSearch(c, 'a1', () => undefined)?.store, { id: 'vs_x', name: 'vs_x' });
  });

  it('names no store when the answer searched several (the picker offers the words as a search of each)', () => {
    const c = conversation({ storeIds: ['vs_a', 'vs_b'] });
    assert.deepEqual(
      answerSearch(c, 'a1', () => 'a'),
      { query: 'How do I book a meeting room?' },
    );
  });

  it('is undefined for a question, an unknown message or an answer with no words to search', () => {
    const c = conversation({ storeIds: ['vs_a'] });
    assert.equal(
      answerSearch(c, 'u1', () => 'a'),
      undefined,
    );
    assert.equal(
      answerSearch(c, 'nope', () => 'a'),
      undefined,
    );
    assert.equal(
      answerSearch(conversation({ searchQuery: '  ' }), 'a1', () => 'a'),
      undefined,
    );
  });
});
