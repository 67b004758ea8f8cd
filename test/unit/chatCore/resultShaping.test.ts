import * as assert from 'node:assert/strict';
import { shapeResults, type ShapedHit } from '../../../src/chatCore/resultShaping';

const hit = (fileId: string, content: string, score?: number): ShapedHit => ({
  fileId,
  content,
  ...(score === undefined ? {} : { score }),
});
const shape = (hits: ShapedHit[], query?: string) => shapeResults(hits, (h) => h, query);

describe('search result shaping (quick pick and /search)', () => {
  it('collapses passages of one file whose text is the same or one of which holds the other, keeping the first', () => {
    const section = '## Benchmarks\n\nRetrieval: recall@5 of 0.91 on the demo questions.';
    const { shown } = shape([
      hit('bench', section, 0.8),
      hit('bench', 'Retrieval: recall@5 of 0.91 on the demo questions.', 0.7),
      hit('bench', `${section}\n\nLatency: 40 ms per search.`, 0.6),
      hit('other', section, 0.55),
      hit('bench', 'Latency: 40 ms per search.', 0.5),
    ]);
    assert.deepEqual(
      shown.map((h) => [h.fileId, h.score]),
      [
        ['bench', 0.8],
        ['other', 0.55],
        ['bench', 0.5],
      ],
    );
  });

  it('reads the texts as plain text: the same words under other marks are the same passage', () => {
    const { shown } = shape([
      hit('f', '**Attach** a folder with [Sync Folder](x.md).', 0.9),
      hit('f', 'Attach a folder with Sync Folder.', 0.8),
    ]);
    assert.equal(shown.length, 1);
  });

  it('never collapses a passage with no text into the others', () => {
    const { shown } = shape([hit('f', 'Attach a folder.', 0.9), hit('f', '```\n```', 0.8)]);
    assert.equal(shown.length, 2);
  });

  it('leaves out the hits far below the best, never the best, and counts them', () => {
    const { shown, hidden } = shape([hit('a', 'one', 0.4), hit('b', 'two', 0.3), hit('c', 'three', 0.12), hit('d', 'four', 0.1)]);
    assert.deepEqual(
      shown.map((h) => h.fileId),
      ['a', 'b'],
    );
    assert.equal(hidden, 2);
    assert.equal(shape([hit('a', 'only', 0.01)]).shown.length, 1);
  });
});
