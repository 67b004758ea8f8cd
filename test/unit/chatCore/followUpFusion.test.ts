import * as assert from 'node:assert/strict';
import {
  FileNameCache,
  findPassages,
  followUpSearches,
  FUSION_DEPTH,
  fuseRankings,
  type GroundingDocuments,
  groundTurn,
} from '../../../src/chatCore/grounding';
import { QueryRewriter, type QueryTurn } from '../../../src/chatCore/searchQuery';
import { MAX_SEARCH_RESULTS } from '../../../src/chatCore/passageBudget';
import type { PassageSource } from '../../../src/chatCore/protocol';

// A follow-up searched as DocChat's method makes it: the conversation-aware query, the message as
// written and the message with the previous answer's words, fused by reciprocal rank.

const passage = (fileId: string, content: string): PassageSource => ({ kind: 'passage', storeId: 'vs_1', fileId, content, score: 1 });

/** A documents service whose search answers each query with a fixed ranking (scores falling from 1). */
function scriptedDocuments(
  rankings: Record<string, { fileId: string; content: string; score?: number }[]>,
): GroundingDocuments & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    async search(_storeId, body) {
      queries.push(body.query);
      const ranking = rankings[body.query] ?? [];
      return {
        data: ranking.map((hit, i) => ({
          file_id: hit.fileId,
          content: hit.content,
          score: hit.score ?? 1 - i * 0.05,
          filename: `${hit.fileId}.md`,
        })),
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

  it('ranks a passage by every search that finds it, kept when one search ranks it above its floor', async () => {
    const message = 'And who approves exceptions to it?';
    const query = `${message} retention policy`;
    const documents = scriptedDocuments({
      [query]: [
        { fileId: 'retention', content: 'The retention policy keeps invoices for ten years.', score: 1 },
        { fileId: 'archive', content: 'Invoices are archived under the retention policy.', score: 0.9 },
        // Below this search's floor, but the message's own search ranks it first.
        { fileId: 'exceptions', content: 'Exceptions to the retention policy are approved by the finance director.', score: 0.2 },
      ],
      [message]: [
        { fileId: 'exceptions', content: 'Exceptions to the retention policy are approved by the finance director.', score: 1 },
        // Below the floor of the only search that finds it: not relevant.
        { fileId: 'security', content: 'Security exceptions are approved by the CISO.', score: 0.2 },
      ],
    });
    const found = await findPassages(
      documents,
      { query, question: message, stores: [{ id: 'vs_1', name: 'policies' }], maxResults: 5, followUp: { message }, grounded: true },
      new FileNameCache(),
    );
    assert.deepEqual(
      found.passages.map((p) => p.fileId),
      ['exceptions', 'retention', 'archive'],
    );
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

  it("searches a question naming its own subject as written and with the previous answer's words, its own best hit first", async () => {
    const question = 'What is WACC?';
    const answer = 'Market capitalisation plus debt minus cash.';
    const documents = scriptedDocuments({
      [question]: [
        { fileId: 'wacc', content: 'WACC is the weighted average cost of capital.' },
        { fileId: 'glossary', content: 'WACC, EBITDA and other terms of finance.' },
      ],
      [`${question} Market capitalisation plus debt minus cash`]: [
        {
          fileId: 'discounting',
          content: 'Discounting free cash flows at the WACC gives the enterprise value: equity plus debt minus cash.',
        },
        { fileId: 'wacc', content: 'WACC is the weighted average cost of capital.' },
      ],
    });
    const history: QueryTurn[] = [
      { role: 'user', content: 'How is enterprise value calculated?' },
      { role: 'assistant', content: answer, sources: [{ kind: 'passage', storeId: 'vs_1', fileId: 'valuation' }] },
    ];
    const found = await groundTurn(
      documents,
      { question, history, stores: [{ id: 'vs_1', name: 'finance' }], maxResults: 5, rewriter: new QueryRewriter() },
      new FileNameCache(),
    );
    assert.equal(found.query, question, '"Searched for" shows the message: nothing carried into it');
    assert.equal(found.passages[0]?.fileId, 'wacc');
    assert.deepEqual(found.passages.map((p) => p.fileId).sort(), ['discounting', 'glossary', 'wacc']);
  });
  it('weighs each ranking by its weight: a ranking counted twice outranks one counted once', () => {
    const own = [passage('x', 'X'), passage('p', 'P'), passage('q', 'Q')];
    const answer = [passage('a', 'A'), passage('b', 'B')];
    assert.deepEqual(
      fuseRankings([own, answer]).map((p) => p.fileId),
      ['x', 'a', 'p', 'b', 'q'],
    );
    assert.deepEqual(
      fuseRankings([own, answer], [2, 1]).map((p) => p.fileId),
      ['x', 'p', 'q', 'a', 'b'],
    );
  });

  it('counts each of the three searches once: a message that is its own query weighs twice the previous answer', () => {
    const message = 'What is WACC?';
    assert.deepEqual(followUpSearches(message, { message, withAnswer: `${message} enterprise value` }), [
      { text: message, weight: 2 },
      { text: `${message} enterprise value`, weight: 1 },
    ]);
    const query = 'And who approves exceptions to it? retention policy';
    const leaning = 'And who approves exceptions to it?';
    assert.deepEqual(followUpSearches(query, { message: leaning, withAnswer: `${leaning} finance director` }), [
      { text: query, weight: 1 },
      { text: leaning, weight: 1 },
      { text: `${leaning} finance director`, weight: 1 },
    ]);
  });

  it("ranks a question naming its own subject by its own words before the previous answer's", async () => {
    const question = 'What is the WACC of a company?';
    const withAnswer = `${question} Enterprise value equity plus debt`;
    const wacc = (id: string) => ({ fileId: id, content: `The WACC of a company (${id}) weighs its cost of debt and equity.` });
    const documents = scriptedDocuments({
      [question]: [wacc('own-1'), wacc('own-2'), wacc('own-3')],
      [withAnswer]: [wacc('answer-1'), wacc('answer-2')],
    });
    const history: QueryTurn[] = [
      { role: 'user', content: 'How is enterprise value calculated?' },
      {
        role: 'assistant',
        content: 'Enterprise value is equity plus debt.',
        sources: [{ kind: 'passage', storeId: 'vs_1', fileId: 'ev' }],
      },
    ];
    const found = await groundTurn(
      documents,
      { question, history, stores: [{ id: 'vs_1', name: 'finance' }], maxResults: 3, rewriter: new QueryRewriter() },
      new FileNameCache(),
    );
    assert.ok(documents.queries.includes(withAnswer), JSON.stringify(documents.queries));
    assert.equal(found.query, question);
    assert.deepEqual(
      found.passages.map((p) => p.fileId),
      ['own-1', 'own-2', 'own-3'],
    );
  });
});

describe('follow-up searches fused over their whole depth', () => {
  it('asks each fused search for as many results as the service gives, so agreement further down counts', async () => {
    const message = 'And who approves exceptions to it?';
    const query = `${message} retention policy`;
    const withAnswer = `${message} finance director`;
    const hit = (id: string) => ({
      fileId: id,
      content: `Exceptions to the retention policy (${id}) are approved by the finance director.`,
    });
    const others = (prefix: string) => Array.from({ length: 24 }, (_, i) => hit(`${prefix}-${i + 1}`));
    // All three searches find `agreed`: the answer's words first, the other two only at rank 25.
    const rankings: Record<string, ReturnType<typeof hit>[]> = {
      [query]: [...others('query'), hit('agreed')],
      [message]: [...others('message'), hit('agreed')],
      [withAnswer]: [hit('agreed'), ...others('answer')],
    };
    const asked: number[] = [];
    const documents: GroundingDocuments = {
      async search(_storeId, body) {
        asked.push(body.max_num_results ?? 0);
        // As the service does: at most max_num_results, best first.
        const ranking = (rankings[body.query] ?? []).slice(0, body.max_num_results);
        return { data: ranking.map((h) => ({ file_id: h.fileId, content: h.content, score: 1, filename: `${h.fileId}.md` })) };
      },
      async retrieveFile(fileId) {
        return { filename: `${fileId}.md` };
      },
    };
    const found = await findPassages(
      documents,
      {
        query,
        question: message,
        stores: [{ id: 'vs_1', name: 'policies' }],
        maxResults: 5,
        followUp: { message, withAnswer },
        grounded: true,
      },
      new FileNameCache(),
    );
    assert.deepEqual(asked, [FUSION_DEPTH, FUSION_DEPTH, FUSION_DEPTH]);
    assert.equal(FUSION_DEPTH, MAX_SEARCH_RESULTS);
    assert.equal(found.passages[0]?.fileId, 'agreed');
  });
});

describe('the conversation after a change of vector stores', () => {
  const medical: QueryTurn[] = [
    { role: 'user', content: "What is the patient's diagnosis in the medical report?" },
    {
      role: 'assistant',
      content: 'The medical report gives the patient diagnosis as type 2 diabetes [1].',
      searchQuery: "What is the patient's diagnosis in the medical report?",
      sources: [{ kind: 'passage', storeId: 'vs_medical', fileId: 'report' }],
      storeIds: ['vs_medical'],
    },
  ];
  const question = 'Which columns does it have?';
  const carriedOld = (query: string) => /patient|diagnosis|medical|diabetes/i.test(query);

  async function searched(history: QueryTurn[], storeId: string, asked = question): Promise<string[]> {
    const documents = scriptedDocuments({});
    await groundTurn(
      documents,
      { question: asked, history, stores: [{ id: storeId, name: storeId }], maxResults: 5, rewriter: new QueryRewriter() },
      new FileNameCache(),
    );
    return documents.queries;
  }

  for (const asked of [question, 'What is in the spreadsheet?']) {
    it(`carries nothing of the old store’s conversation into "${asked}" asked of another store`, async () => {
      const queries = await searched(medical, 'vs_sheets', asked);
      assert.ok(queries.length > 0);
      assert.deepEqual(queries.filter(carriedOld), [], `searched ${JSON.stringify(queries)}`);
    });
  }

  it('still carries the subject while the stores stay the same', async () => {
    const queries = await searched(medical, 'vs_medical');
    assert.ok(queries.some(carriedOld), `searched ${JSON.stringify(queries)}`);
  });

  it('carries the subject of the turns asked of the new store', async () => {
    const history: QueryTurn[] = [
      ...medical,
      { role: 'user', content: 'What is in the budget spreadsheet?' },
      { role: 'assistant', content: 'The budget spreadsheet lists costs per quarter [1].', storeIds: ['vs_sheets'] },
    ];
    const queries = await searched(history, 'vs_sheets');
    assert.equal(queries.filter(carriedOld).length, 0, `searched ${JSON.stringify(queries)}`);
    assert.ok(
      queries.some((q) => /budget/.test(q)),
      `searched ${JSON.stringify(queries)}`,
    );
  });
});
