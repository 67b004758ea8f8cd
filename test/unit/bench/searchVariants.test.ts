import assert from 'node:assert/strict';
import { StoreIndex } from '../../../src/backend/search/storeIndex';
import { CandidateIndex, type FeedbackOptions } from '../../bench/searchVariants/candidateIndex';

/** Text files of a small store: the search-variants bench compares the candidate with the backend on such files. */
const FILES: Record<string, string[]> = {
  turbine: ['The turbine blade cracked after the vibration test; the gearbox was inspected.', 'Blade fatigue follows vibration.'],
  gearbox: ['Gearbox lubrication keeps vibration low and blade loads even.'],
  bakery: ['Sourdough bread needs a starter, flour, water and salt.'],
  pastry: ['Croissant dough is laminated with butter; bread flour works too.'],
  report: ['Quarterly report: turbine output rose 4th quarter, gearbox downtime fell.'],
};

function fill<T extends { addFile(fileId: string, chunks: { text: string; heading: string }[], vectors: undefined, title: string): void }>(
  index: T,
): T {
  for (const [fileId, texts] of Object.entries(FILES)) {
    index.addFile(
      fileId,
      texts.map((text) => ({ text, heading: '' })),
      undefined,
      fileId,
    );
  }
  return index;
}

const FEEDBACK: FeedbackOptions = { docs: 2, terms: 6, originalWeight: 0.8 };

describe('search variants bench: the candidate keyword index', () => {
  it('with no setting ranks and scores exactly as the backend does (so the bench compares against the product)', () => {
    const backend = fill(new StoreIndex());
    const candidate = fill(new CandidateIndex());
    for (const query of ['turbine blade', 'vibration gearbox blade', 'bread flour', 'quarter 4', 'nothing matches this']) {
      assert.deepEqual(candidate.search(query, { maxResults: 10 }), backend.search(query, { maxResults: 10 }), query);
    }
  });

  it('pseudo-relevance feedback finds a passage that shares the best passages’ words but none of the query’s', () => {
    const candidate = fill(new CandidateIndex());
    const plain = candidate.search('cracked', { maxResults: 10 }).map((h) => h.fileId);
    assert.deepEqual([...new Set(plain)], ['turbine'], 'only the passage holding the word');
    const expanded = candidate.search('cracked', { maxResults: 10, feedback: FEEDBACK });
    assert.equal(expanded[0]!.fileId, 'turbine', 'the query’s own words still rank first');
    assert.ok(
      expanded.some((h) => h.fileId === 'gearbox'),
      'the gearbox passage (vibration, blade) comes in through the expansion words',
    );
    assert.ok(!expanded.some((h) => h.fileId === 'bakery'), 'nothing unrelated comes in');
    for (const hit of expanded) assert.ok(hit.score > 0 && hit.score <= 1);
  });

  it('leaves a query longer than maxQueryTerms as the plain search ranks it', () => {
    const candidate = fill(new CandidateIndex());
    const query = 'cracked turbine';
    const limited = candidate.search(query, { maxResults: 10, feedback: { ...FEEDBACK, maxQueryTerms: 1 } });
    assert.deepEqual(limited, candidate.search(query, { maxResults: 10 }));
    assert.notDeepEqual(candidate.search(query, { maxResults: 10, feedback: FEEDBACK }), limited);
  });

  it('BM25’s k1 and b are settings: b = 0 stops favouring the short passage', () => {
    const short = new CandidateIndex();
    const flat = new CandidateIndex({ b: 0 });
    for (const index of [short, flat]) {
      index.addFile('long', [{ text: 'valve '.concat('filler words here and there '.repeat(20)), heading: '' }], undefined, '');
      index.addFile('brief', [{ text: 'valve', heading: '' }], undefined, '');
    }
    const [a, b] = short.search('valve', { maxResults: 2 });
    assert.equal(a!.fileId, 'brief');
    assert.ok(a!.score > b!.score);
    const [c, d] = flat.search('valve', { maxResults: 2 });
    assert.equal(c!.score, d!.score, 'no length normalisation: one occurrence scores the same');
  });
});
