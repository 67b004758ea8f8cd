import * as assert from 'node:assert/strict';
import { FileNameCache, findPassages, fuseRankings, type GroundingDocuments, groundTurn } from '../../../src/chatCore/grounding';
import { QueryRewriter, type QueryTurn } from '../../../src/chatCore/searchQuery';
import type { PassageSource } from '../../../src/chatCore/protocol';

// A follow-up searched as DocChat's method makes it: the conversation-aware query, the message as
// written and the message with the previous answer's words, fused by reciprocal rank.

const passage = (fileId: string, content: string): PassageSource => ({ kind: 'passage', storeId: 'vs_1', fileId, content, score: 1 });

/** A documents service whose search answers each query with a fixed ranking (scores falling from 1). */
function scriptedDocuments(rankings: Record<string, { fileId: string; content: string }[]>): GroundingDocuments & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    async search(_storeId, body) {
      queries.push(body.query);
      const ranking = rankings[body.query] ?? [];
      return {
        data: ranking.map((hit, i) => ({ file_id: hit.fileId, content: hit.content, score: 1 - i * 0.05, filename: `${hit.fileId}.md` })),
      };
    },
    async retrieveFile(fileId) {
      return { filename: `${fileId}.md` };
    },
  };
}

describe('follow-up searches fused by reciprocal rank', () => {
  it('ranks what several searches agree on first and keeps each search’s best hit', () => {
    const conversation = [passage('a', 'A'), passage('b', 'B'), passage('c', 'C')];
    const message = [passage('x', 'X'), passage('b', 'B')];
    const fused = fuseRankings([conversation, message]).map((p) => p.fileId);
    assert.equal(fused[0], 'b');
    assert.deepEqual(fused.slice(1, 3).sort(), ['a', 'x']);
  });

  it("keeps the message's own best hit among the passages of a follow-up", async () => {
    const query = 'And who approves exceptions to it? retention policy invoices';
    const documents = scriptedDocuments({
      [query]: [
        { fileId: 'retention', content: 'The retention policy keeps invoices for ten years.' },
        { fileId: 'archive', content: 'Invoices are archived under the retention policy.' },
      ],
      'And who approves exceptions to it?': [
        { fileId: 'exceptions', content: 'Exceptions to the retention policy are approved by the finance director.' },
      ],
    });
    const found = await findPassages(
      documents,
      {
        query,
        question: 'And who approves exceptions to it?',
        stores: [{ id: 'vs_1', name: 'policies' }],
        maxResults: 5,
        followUp: { message: 'And who approves exceptions to it?' },
        grounded: true,
      },
      new FileNameCache(),
    );
    assert.ok(documents.queries.includes('And who approves exceptions to it?'), 'the message as written is searched too');
    assert.ok(
      found.passages.some((p) => p.fileId === 'exceptions'),
      JSON.stringify(found.passages.map((p) => p.fileId)),
    );
    assert.equal(found.query, query, '"Searched for" shows the conversation-aware query');
  });

  it('uses the files the previous answer cited: a later question of a grounded conversation asks less of its own words', async () => {
    const question = 'When did invoices retention archive scanning start?';
    const documents = scriptedDocuments({
      [question]: [
        { fileId: 'scanning', content: 'Invoices are scanned into the archive.' },
        { fileId: 'contracts', content: 'Contracts are signed by the director.' },
        { fileId: 'pager', content: 'The pager app needs setting up.' },
      ],
    });
    const earlier = (sources: QueryTurn['sources']): QueryTurn[] => [
      { role: 'user', content: 'How long are invoices kept?' },
      { role: 'assistant', content: 'Ten years.', ...(sources ? { sources } : {}) },
    ];
    const ground = (history: QueryTurn[]) =>
      groundTurn(
        documents,
        { question, history, stores: [{ id: 'vs_1', name: 'policies' }], maxResults: 5, rewriter: new QueryRewriter() },
        new FileNameCache(),
      );
    assert.deepEqual((await ground(earlier(undefined))).passages, [], 'nothing cited before: not covered');
    const grounded = await ground(earlier([{ kind: 'passage', storeId: 'vs_1', fileId: 'retention' }]));
    assert.equal(grounded.passages[0]?.fileId, 'scanning');
  });
});
