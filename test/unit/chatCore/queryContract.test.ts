/**
 * The exact behaviour of the query and relevance code at its edges: what a model's rewrite reply
 * becomes, what the rewrite request is sent, what the cache keeps, what a cancelled or unusable
 * rewrite leaves behind; which passages a search keeps at the floor; how words are compared;
 * which earlier answer a follow-up draws on; how a conversation's stores are saved.
 */
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { groundingStores, setGroundingStores } from '../../../src/chatCore/conversationStores';
import type { PromptMessage } from '../../../src/chatCore/promptBuilder';
import type { ConversationOptions } from '../../../src/chatCore/protocol';
import { matchRoot } from '../../../src/common/terms';
import { aboveFloor, matchTerms, phrasedInEnglish, sharesWords, weightedCoverage } from '../../../src/chatCore/relevance';
import {
  answerWords,
  citedFiles,
  cleanRewrite,
  followUpQuery,
  gatewayRewriteModel,
  MAX_REWRITTEN_QUERY,
  QueryRewriter,
  rewritePrompt,
  ruleQuery,
  type QueryTurn,
  type RewriteGateway,
  type RewriteModel,
} from '../../../src/chatCore/searchQuery';

const FIRST: QueryTurn[] = [
  { role: 'user', content: 'How do I configure the rate limiter of the documents service?' },
  { role: 'assistant', content: 'Set the per-minute limits in the service settings [1].' },
];

/** A model that answers each request with the next of `replies`, counting requests. */
function countingModel(replies: (signal: AbortSignal) => Promise<string>): RewriteModel & { calls: number } {
  const model = {
    id: 'alpha-5-mini',
    calls: 0,
    complete(_messages: PromptMessage[], signal: AbortSignal) {
      model.calls++;
      return replies(signal);
    },
  };
  return model;
}

describe('query and relevance at their edges', () => {
  describe("a model's rewrite reply", () => {
    it('is its first non-blank line, unquoted, without a "Search query:" label, its spaces collapsed', () => {
      assert.equal(cleanRewrite('   \nrate limits\nbecause'), 'rate limits');
      assert.equal(cleanRewrite('\n\nrate limits'), 'rate limits');
      assert.equal(cleanRewrite('"""rate limits"""'), 'rate limits');
      assert.equal(cleanRewrite('“rate limits”'), 'rate limits');
      assert.equal(cleanRewrite('"  Query: rate limits"'), 'rate limits');
      assert.equal(cleanRewrite('Search  query: rate limits'), 'rate limits');
      assert.equal(cleanRewrite('Query : rate limits'), 'rate limits');
      assert.equal(cleanRewrite('Query:rate limits'), 'rate limits');
      assert.equal(cleanRewrite('rate \t  limits'), 'rate limits');
    });

    it('keeps quotes and labels inside the query', () => {
      assert.equal(cleanRewrite('rate "limits" per minute'), 'rate "limits" per minute');
      assert.equal(cleanRewrite("limits of the 'search' operation"), "limits of the 'search' operation");
      assert.equal(cleanRewrite('rate limits query: documents'), 'rate limits query: documents');
    });

    it(`takes a query of up to ${MAX_REWRITTEN_QUERY} characters`, () => {
      const longest = 'a'.repeat(MAX_REWRITTEN_QUERY);
      assert.equal(cleanRewrite(longest), longest);
      assert.equal(cleanRewrite(`${longest}a`), undefined);
    });
  });

  describe('the rewrite request', () => {
    it('sends the recent non-blank messages, one line each, cut past 600 characters, and the trimmed question', () => {
      const exactly600 = 'b'.repeat(600);
      const history: QueryTurn[] = [
        { role: 'user', content: '  What   is\n the  rate limit? ' },
        { role: 'assistant', content: '   ' },
        { role: 'assistant', content: exactly600 },
        { role: 'user', content: 'c'.repeat(601) },
      ];
      const [system, user] = rewritePrompt(history, '  and for search?  ');
      assert.equal(system!.role, 'system');
      assert.deepEqual(user, {
        role: 'user',
        content: `Conversation:\nUser: What is the rate limit?\nAssistant: ${exactly600}\nUser: ${'c'.repeat(600)}…\n\nLast message: and for search?\n\nSearch query:`,
      });
    });

    it('streams one short deterministic completion with the caller’s signal, and stops reading at the end of the first line', async () => {
      for (const [chunks, pulledAtMost] of [
        [['x\n', 'more text\n', 'and more\n'], 1],
        [['\n', 'x\n', 'more text\n', 'and more\n'], 2],
        [['rate ', 'limits \n', 'Because…\n', 'more\n'], 2],
      ] as const) {
        const seen: { request?: Record<string, unknown>; signal?: AbortSignal; pulled: number } = { pulled: 0 };
        const gateway: RewriteGateway = {
          async *streamChatCompletion(request, options) {
            seen.request = request;
            seen.signal = options?.signal;
            for (const content of chunks) {
              seen.pulled++;
              yield { content };
            }
          },
        };
        const signal = new AbortController().signal;
        const reply = await gatewayRewriteModel(gateway, 'alpha-5-mini').complete([{ role: 'user', content: 'q' }], signal);
        assert.equal(seen.pulled, pulledAtMost, `stops after the first line of ${JSON.stringify(chunks)}`);
        assert.equal(reply, chunks.slice(0, pulledAtMost).join(''));
        assert.deepEqual(seen.request, {
          model: 'alpha-5-mini',
          messages: [{ role: 'user', content: 'q' }],
          temperature: 0,
          max_completion_tokens: 64,
          stream: true,
        });
        assert.equal(seen.signal, signal);
      }
    });
  });

  describe('QueryRewriter', () => {
    it('asks the model once per turn, whatever spaces surround the question', async () => {
      const model = countingModel(async () => 'rate limiter limits');
      const logged: string[] = [];
      const rewriter = new QueryRewriter({ log: (m) => logged.push(m) });
      assert.deepEqual(await rewriter.queryFor(FIRST, 'And its limits?', model), { text: 'rate limiter limits', by: 'model' });
      assert.deepEqual(await rewriter.queryFor(FIRST, ' And its limits?  ', model), { text: 'rate limiter limits', by: 'model' });
      assert.equal(model.calls, 1);
      assert.deepEqual(logged, [], 'a usable rewrite is not worth a log line');
    });

    it('remembers as many turns as its cache size, forgetting the oldest first', async () => {
      const model = countingModel(async () => 'a rewrite');
      const rewriter = new QueryRewriter({ cacheSize: 2 });
      await rewriter.queryFor(FIRST, 'And its limits?', model);
      await rewriter.queryFor(FIRST, 'And its defaults?', model);
      await rewriter.queryFor(FIRST, 'And its limits?', model);
      assert.equal(model.calls, 2, 'two turns fit a cache of two');
      await rewriter.queryFor(FIRST, 'And its errors?', model);
      await rewriter.queryFor(FIRST, 'And its defaults?', model);
      assert.equal(model.calls, 3, 'the newer turn is still remembered');
      await rewriter.queryFor(FIRST, 'And its limits?', model);
      assert.equal(model.calls, 4, 'the oldest turn was forgotten');
    });

    it('logs a reply that holds no query, and searches with the rule', async () => {
      const logged: string[] = [];
      const query = await new QueryRewriter({ log: (m) => logged.push(m) }).queryFor(
        FIRST,
        'And its limits?',
        countingModel(async () => '""'),
      );
      assert.equal(query.by, 'rule');
      assert.deepEqual(logged, ["Query rewrite returned no usable query; searched with the rule's query."]);
    });

    it('gives up at once, silently, when the turn is cancelled, even if the model does not listen', async () => {
      const logged: string[] = [];
      const abort = new AbortController();
      const model = countingModel(() => {
        queueMicrotask(() => abort.abort());
        return new Promise<string>(() => undefined);
      });
      const query = await new QueryRewriter({ budgetMs: 15_000, log: (m) => logged.push(m) }).queryFor(
        FIRST,
        'And its limits?',
        model,
        abort.signal,
      );
      assert.equal(query.by, 'rule');
      assert.deepEqual(logged, []);
    });

    it("leaves no listener on the caller's signal", async () => {
      const signal = new AbortController().signal;
      await new QueryRewriter().queryFor(
        FIRST,
        'And its limits?',
        countingModel(async () => 'rate limits'),
        signal,
      );
      assert.equal(getEventListeners(signal, 'abort').length, 0);
    });
  });

  describe('the follow-up rule', () => {
    it('carries each missing word of the earlier query once, at most eight', () => {
      assert.equal(ruleQuery('rate limiter limits', 'And its limits?'), 'And its limits? rate limiter');
      assert.equal(
        ruleQuery('alpha beta gamma delta epsilon zeta theta iota kappa lambda', 'And its limits?'),
        'And its limits? alpha beta gamma delta epsilon zeta theta iota',
      );
    });

    it('searches a question that stands on its own as the user wrote it, trimmed', () => {
      assert.deepEqual(followUpQuery(FIRST, '  Which file formats can the converter read?  '), {
        text: 'Which file formats can the converter read?',
        by: 'question',
      });
      assert.equal(ruleQuery(undefined, '  Which formats?  '), 'Which formats?');
    });

    it("draws on the latest answer's words and citations, not an earlier answer's", () => {
      const history: QueryTurn[] = [
        { role: 'user', content: 'How long are invoices kept?' },
        {
          role: 'assistant',
          content: 'invoices retention',
          sources: [{ kind: 'passage', storeId: 'vs_1', fileId: 'file-old' }],
        },
        { role: 'user', content: 'And deployment logs?' },
        {
          role: 'assistant',
          content: 'deployment logs',
          sources: [
            { kind: 'passage', storeId: 'vs_2', fileId: 'file-a' },
            { kind: 'passage', storeId: 'vs_2', fileId: 'file-b' },
            { kind: 'passage', storeId: 'vs_2', fileId: 'file-a' },
            { kind: 'web' },
            { kind: 'passage', storeId: 'vs_2' },
          ],
        },
      ];
      assert.deepEqual(answerWords(history, 'and?'), ['deployment', 'logs']);
      assert.deepEqual(citedFiles(history), [
        { storeId: 'vs_2', fileId: 'file-a' },
        { storeId: 'vs_2', fileId: 'file-b' },
      ]);
      // A question after the answer is not an answer.
      assert.deepEqual(answerWords([...history, { role: 'user', content: 'kubernetes clusters' }], 'and?'), ['deployment', 'logs']);
      assert.deepEqual(citedFiles([...history, { role: 'user', content: 'q' }]), citedFiles(history));
      // Before any answer there is nothing to draw on.
      assert.deepEqual(answerWords([{ role: 'user', content: 'How long are invoices kept?' }], 'and?'), []);
    });
  });

  describe('relevance', () => {
    const scored = (...scores: (number | undefined)[]) => scores.map((score, i) => ({ score, content: `p${i}` }));

    it('keeps a passage exactly at the floor, and drops one below it', () => {
      assert.deepEqual(
        aboveFloor(scored(1, 0.35, 0.34)).map((p) => p.content),
        ['p0', 'p1'],
      );
    });

    it('keeps every passage of a search whose scores are all zero', () => {
      assert.deepEqual(
        aboveFloor(scored(0, 0, 0)).map((p) => p.content),
        ['p0', 'p1', 'p2'],
      );
    });

    it('reads scores that are not finite numbers as no score', () => {
      assert.deepEqual(
        aboveFloor(scored(Number.NaN, 1, 0.1, Number.POSITIVE_INFINITY)).map((p) => p.content),
        ['p0', 'p1', 'p3'],
      );
    });

    it('compares words by their root: plurals and -ing, -ed, -e endings of long enough words', () => {
      assert.equal(matchRoot('limits'), 'limit');
      assert.equal(matchRoot('caching'), 'cach');
      assert.equal(matchRoot('cached'), 'cach');
      assert.equal(matchRoot('cache'), 'cach');
      assert.equal(matchRoot('setting'), 'set');
      assert.equal(matchRoot('stopping'), 'stop');
      assert.equal(matchRoot('bellowing'), 'bellow');
      assert.equal(matchRoot('bring'), 'bring');
      assert.equal(matchRoot('note'), 'note');
    });

    it('drops single letters but keeps single digits', () => {
      assert.deepEqual([...matchTerms('x db 5 v2 a')], ['db', '5', 'v2']);
      assert.deepEqual([...matchTerms('x-ray b-tree')], ['ray', 'tree']);
    });

    it('counts a query of no distinctive words as covered and shared', () => {
      assert.equal(weightedCoverage(new Map(), { content: 'anything' }), 1);
      assert.equal(sharesWords('the of and', { content: 'unrelated text' }), true);
    });

    it('takes a passage sharing half of the query’s distinctive words as sharing them', () => {
      assert.equal(sharesWords('invoices retention', { content: 'invoices only' }), true);
      assert.equal(sharesWords('invoices retention schedule', { content: 'invoices only' }), false);
    });

    it('reads English phrasing only: English letters, a common English word, no other language’s function word', () => {
      assert.equal(phrasedInEnglish('How long are invoices kept?'), true);
      assert.equal(phrasedInEnglish(''), false);
      assert.equal(phrasedInEnglish('How big is the Größe?'), false);
      assert.equal(phrasedInEnglish('Was bedeutet die Einstellung?'), false);
      assert.equal(phrasedInEnglish('Combien de temps les factures sont-elles gardées?'), false);
    });
  });

  describe("a conversation's stores", () => {
    const store = (id: string) => ({ id, name: `Store ${id}` });

    it('saves one store in the old fields only, several in both, none as no grounding', () => {
      const options: ConversationOptions = { vectorStores: [store('a'), store('b')] } as ConversationOptions;
      setGroundingStores(options, [store('a')]);
      assert.deepEqual(options, { vectorStoreId: 'a', vectorStoreName: 'Store a' });
      assert.deepEqual(groundingStores(options), [store('a')]);

      setGroundingStores(options, [{ ...store('a'), extra: true } as never, store('b')]);
      assert.deepEqual(options, { vectorStoreId: 'a', vectorStoreName: 'Store a', vectorStores: [store('a'), store('b')] });
      assert.deepEqual(groundingStores(options), [store('a'), store('b')]);

      setGroundingStores(options, []);
      assert.deepEqual(options, {});
      assert.deepEqual(groundingStores(options), []);
    });
  });
});
