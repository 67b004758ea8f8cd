import * as assert from 'node:assert/strict';
import { mergeByRank } from '../../../src/chatCore/storeMerge';
import { groundingStores, setGroundingStores } from '../../../src/chatCore/conversationStores';
import type { ConversationOptions } from '../../../src/chatCore/protocol';

describe('merging several stores’ results', () => {
  it('interleaves by rank whatever each store’s score scale', () => {
    const handbook = [
      { id: 'h1', score: 31 },
      { id: 'h2', score: 12 },
      { id: 'h3', score: 4 },
    ];
    const specs = [
      { id: 's1', score: 0.42 },
      { id: 's2', score: 0.4 },
    ];
    assert.deepEqual(
      mergeByRank([handbook, specs]).map((p) => p.id),
      ['h1', 's1', 's2', 'h2', 'h3'],
    );
  });

  it('keeps a single store’s order', () => {
    const only = [
      { id: 'a', score: 1 },
      { id: 'b', score: 2 },
    ];
    assert.deepEqual(
      mergeByRank([only]).map((p) => p.id),
      ['a', 'b'],
    );
  });
});

describe('a conversation’s grounding stores', () => {
  it('reads conversations saved with one store', () => {
    assert.deepEqual(groundingStores({ vectorStoreId: 'vs_1', vectorStoreName: 'Handbook' }), [{ id: 'vs_1', name: 'Handbook' }]);
    assert.deepEqual(groundingStores({}), []);
  });

  it('writes several stores with the first also in the old field, and clears both for none', () => {
    const options: ConversationOptions = { model: 'm' };
    setGroundingStores(options, [
      { id: 'vs_1', name: 'Handbook' },
      { id: 'vs_2', name: 'Specs' },
    ]);
    assert.equal(options.vectorStoreId, 'vs_1');
    assert.deepEqual(
      groundingStores(options).map((s) => s.id),
      ['vs_1', 'vs_2'],
    );
    setGroundingStores(options, []);
    assert.deepEqual(options, { model: 'm' });
  });
});
