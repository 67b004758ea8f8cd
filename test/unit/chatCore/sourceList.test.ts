import * as assert from 'node:assert/strict';
import { fuseRankings } from '../../../src/chatCore/grounding';
import { joinNeighbours } from '../../../src/chatCore/passageBudget';
import type { ChatSource, ContextItem, PassageSource } from '../../../src/chatCore/protocol';
import { quotedHeading } from '../../../src/chatCore/quotedSection';
import { shownScores, sourceExcerpt } from '../../../src/chatCore/sourceList';
import { mergeByRank } from '../../../src/chatCore/storeMerge';

const passage = (chunkIndex: number, score: number, content = `Passage ${chunkIndex}.`, fileId = 'readme'): PassageSource => ({
  kind: 'passage',
  storeId: 'demo',
  fileId,
  filename: 'README.md',
  content,
  score,
  chunkIndex,
});
const numbered = (items: readonly ContextItem[]): ChatSource[] => items.map((item, i) => ({ ...item, number: i + 1 }));

describe('the scores of the chat Sources list: shown only when they read in the list order', () => {
  it('shows the scores of one search, best first, as the search gave them', () => {
    const sources = numbered([passage(1, 0.89), passage(7, 0.87), passage(3, 0.87), passage(9, 0.5)]);
    assert.deepEqual(shownScores(sources), [0.89, 0.87, 0.87, 0.5]);
  });

  it('shows no score for the sources of a follow-up, whose fused order is not the order of any one search’s scores', () => {
    // The follow-up's searches: the carried query, the message, and the message with the previous answer's words.
    const query = [passage(1, 0.89), passage(2, 0.87), passage(3, 0.81), passage(4, 0.8), passage(6, 0.58), passage(7, 0.49)];
    const message = [passage(3, 0.9), passage(7, 0.88), passage(8, 0.79), passage(1, 0.6), passage(9, 0.5)];
    const withAnswer = [passage(7, 0.93), passage(8, 0.85), passage(3, 0.8), passage(2, 0.7)];
    const fused = fuseRankings([query, message, withAnswer]);
    const sources = numbered(fused);
    const firstScores = sources.map((s) => (s.kind === 'passage' ? s.score : undefined));
    assert.ok(
      firstScores.some((score, i) => i > 0 && score! > firstScores[i - 1]!),
      `the fused list's scores are out of order: ${firstScores.join(', ')}`,
    );
    assert.deepEqual(
      shownScores(sources),
      sources.map(() => undefined),
    );
    // The sources keep their order and numbers: only what the list shows changes.
    assert.deepEqual(
      sources.map((s) => s.number),
      fused.map((_, i) => i + 1),
    );
  });

  it('shows the scores of one search whose neighbouring chunks were joined: a joined source has its best chunk’s score', () => {
    // Chunk 5 ranks first; chunk 4, its neighbour, ranks low: joined, they take chunk 5's place and score.
    const joined = joinNeighbours([passage(5, 0.89), passage(12, 0.8), passage(4, 0.49)]);
    assert.equal(joined.length, 2);
    assert.deepEqual(shownScores(numbered(joined)), [0.89, 0.8]);
  });

  it('shows no score for sources of several stores interleaved by rank, each on its own scale', () => {
    const travel = (chunk: number, score: number) => ({ ...passage(chunk, score, `Travel ${chunk}.`, 'travel'), storeId: 'travel' });
    const merged = mergeByRank([
      [passage(1, 0.9), passage(2, 0.85)],
      [travel(1, 12.5), travel(2, 11)],
    ]);
    assert.deepEqual(
      merged.map((p) => p.score),
      [0.9, 12.5, 0.85, 11],
    );
    assert.deepEqual(shownScores(numbered(merged)), [undefined, undefined, undefined, undefined]);
  });

  it('shows the scores of search passages after the context the user attached, which has none', () => {
    const selection: ContextItem = {
      kind: 'selection',
      label: 'retention.ts',
      uri: 'file:///retention.ts',
      range: { startLine: 0, startCharacter: 0, endLine: 2, endCharacter: 0 },
      content: 'const years = 10;',
    };
    const sources = numbered([selection, passage(1, 0.7), passage(2, 0.6)]);
    assert.deepEqual(shownScores(sources), [undefined, 0.7, 0.6]);
  });
});

// A README's Search section, short, runs on into its Folder sync section; the two chunks are
// neighbours found by one search and joined into one source under the first chunk's heading.
const SEARCH_CHUNK = [
  '### Search',
  '',
  '**Search Vector Store…** shows results as you type, each with its file, score and a snippet around',
  'the match. Pick one to open the passage highlighted, add it to the chat as context, or reveal the',
  'file in the tree. The quick pick opens at once, and what you type goes into it while DocChat connects.',
].join('\n');
const SYNC_CHUNK = [
  '### Folder sync',
  '',
  '**Sync Folder to Vector Store…** keeps a store in step with a workspace folder: it shows the plan',
  '(new, changed, renamed, removed files) before it acts, never uploads a file twice, resumes after a',
  'crash, and can follow the folder as you save. Explorer badges say what is synced, changed or failed.',
].join('\n');

function joinedSource(): ChatSource {
  const [joined] = joinNeighbours([
    { ...passage(6, 0.87, SYNC_CHUNK), heading: 'DocChat > What it does > Folder sync' },
    { ...passage(5, 0.5, SEARCH_CHUNK), heading: 'DocChat > What it does > Search' },
  ]);
  assert.ok(joined?.content.startsWith('### Search'), 'the joined source starts with the Search chunk');
  return { ...joined, number: 2 };
}

describe('the excerpt of a source in the chat Sources list', () => {
  it('shows a cited source at the sentence the answer quoted, where its section name and highlight are', () => {
    const source = joinedSource();
    const answer =
      'To sync a folder: "Sync Folder to Vector Store… keeps a store in step with a workspace folder: it shows the plan (new, changed, renamed, removed files) before it acts" [2].';
    assert.equal(quotedHeading(answer, 2, 2, source as PassageSource), 'DocChat > What it does > Folder sync');
    const excerpt = sourceExcerpt(answer, source, 2, 'sync a folder', 160);
    assert.match(excerpt, /^…Sync Folder to Vector Store… keeps a store in step with a workspace folder/);
    assert.doesNotMatch(excerpt, /shows results as you type/);
    assert.ok(excerpt.length <= 162, excerpt);
    assert.match(excerpt, /\s\S+…$/, `cut after a whole word: ${excerpt}`);
  });

  it('starts a quote of a sentence’s middle at the sentence when it is near, else at the quote', () => {
    const source = joinedSource();
    assert.match(
      sourceExcerpt('It keeps a store in step with a workspace folder [2].', source, 2, '', 120),
      /^…Sync Folder to Vector Store… keeps a store in step/,
    );
    assert.match(sourceExcerpt('- "resumes after a crash" [2]', source, 2, '', 80), /^…resumes after a crash, and can follow/);
  });

  it('places a statement in the answer’s own words at the sentence that holds most of its words', () => {
    const source = joinedSource();
    const answer = 'Explorer badges tell what is synced, changed or failed [2].';
    const excerpt = sourceExcerpt(answer, source, 2, '', 120);
    assert.equal(excerpt, '…Explorer badges say what is synced, changed or failed.', 'from the quoted sentence, at the end of the passage');
  });

  it('shows a source the answer does not quote at its best match for the query, as search results do', () => {
    const source = joinedSource();
    const answer = 'Search results show as you type [1].';
    const excerpt = sourceExcerpt(answer, source, 2, 'sync a folder', 120);
    assert.match(excerpt, /^…\S.*Folder/);
    assert.doesNotMatch(excerpt, /^Search Search/);
    // Without a query to match, its start.
    assert.match(sourceExcerpt(answer, source, 2, '', 120), /^Search Search Vector Store… shows results as you type/);
  });

  it('shows a cited source whose quote cannot be found at its best match for the query', () => {
    const source = joinedSource();
    const answer = 'Bananas are yellow [2].';
    assert.match(sourceExcerpt(answer, source, 2, 'folder sync', 120), /Folder sync/);
  });
});
