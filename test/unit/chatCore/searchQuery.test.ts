import * as assert from 'node:assert/strict';
import { GatewayClient } from '../../../src/api/gateway/client';
import {
  cleanRewrite,
  conversationGrounded,
  followUpQuery,
  gatewayRewriteModel,
  isFollowUp,
  looksEnglish,
  QueryRewriter,
  type QueryTurn,
  type RewriteModel,
  rewritePrompt,
  ruleQuery,
  sinceStoresChanged,
  standsAlone,
} from '../../../src/chatCore/searchQuery';
import type { PromptMessage } from '../../../src/chatCore/promptBuilder';
import { chatChunk, ScriptServer, sendChunked, sendJson, sseBody } from '../../support/servers/scriptServer';

const FIRST: QueryTurn[] = [
  { role: 'user', content: 'How do I configure the rate limiter of the documents service?' },
  { role: 'assistant', content: 'Set the per-minute limits in the service settings [1].' },
];

/** A model that answers with `reply` (or fails), recording the prompts it was sent. */
class ScriptedModel implements RewriteModel {
  readonly id = 'alpha-5-mini';
  readonly prompts: PromptMessage[][] = [];
  constructor(private readonly reply: (signal: AbortSignal) => Promise<string>) {}
  complete(messages: PromptMessage[], signal: AbortSignal): Promise<string> {
    this.prompts.push(messages);
    return this.reply(signal);
  }
}

/** Resolves only when aborted (a model that never answers in time), then rejects like fetch does. */
function untilAborted(signal: AbortSignal): Promise<string> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
}

describe('search query of a turn: the deterministic follow-up rule', () => {
  it('takes a question that stands on its own as it is', () => {
    assert.equal(isFollowUp('How do I configure the rate limiter of the documents service?'), false);
    assert.deepEqual(followUpQuery(FIRST, 'Which file formats can the converter read?'), {
      text: 'Which file formats can the converter read?',
      by: 'question',
    });
  });

  it('carries the subject into a follow-up with a pronoun', () => {
    const query = followUpQuery(FIRST, 'And what are its limits?');
    assert.equal(query.by, 'rule');
    assert.equal(query.text, 'And what are its limits? configure rate limiter documents service');
  });

  it('carries the subject into an elliptical follow-up ("On Windows?")', () => {
    assert.equal(isFollowUp('On Windows?'), true);
    assert.equal(ruleQuery('install DocChat Linux', 'On Windows?'), 'On Windows? install DocChat Linux');
  });

  it('carries only the words the follow-up does not already have', () => {
    assert.equal(
      ruleQuery('rate limiter documents service', 'how is that limiter reset?'),
      'how is that limiter reset? rate documents service',
    );
  });

  it('follows a chain of follow-ups through the previous message and the topic, never the queries the answers recorded', () => {
    const history: QueryTurn[] = [
      ...FIRST,
      { role: 'user', content: 'And its defaults?' },
      { role: 'assistant', content: '60 per minute.', searchQuery: 'rate limiter defaults per minute' },
    ];
    assert.equal(
      followUpQuery(history, 'Can they be changed?').text,
      'Can they be changed? defaults configure rate limiter documents service',
    );
  });

  it('carries nothing into a question that names its own subject', () => {
    const history: QueryTurn[] = [
      { role: 'user', content: 'How is enterprise value calculated?' },
      { role: 'assistant', content: 'Market capitalisation plus debt minus cash.' },
    ];
    assert.deepEqual(followUpQuery(history, 'What is WACC?'), { text: 'What is WACC?', by: 'question' });
    assert.deepEqual(followUpQuery(history, 'Do the Arizona Cardinals play abroad?'), {
      text: 'Do the Arizona Cardinals play abroad?',
      by: 'question',
    });
    // A follow-up without a name of its own still gets the subject.
    assert.equal(followUpQuery(history, 'And what about its limits?').by, 'rule');
  });

  it('carries nothing into a question that names a file or quotes an identifier, however few its words', () => {
    const history: QueryTurn[] = [
      { role: 'user', content: 'How many years is the retention period for ledger 4?' },
      { role: 'assistant', content: 'The retention period for ledger 4 is 9 years [1].' },
    ];
    for (const question of ['What is in budget.xlsx?', 'What does `retries` do?', 'What is "Sync now"?']) {
      assert.equal(isFollowUp(question), false, question);
      assert.deepEqual(followUpQuery(history, question), { text: question, by: 'question' });
    }
    // The file's question is the subject the next follow-up leans on.
    assert.equal(
      followUpQuery([...history, { role: 'user', content: 'What is in budget.xlsx?' }], 'And its totals?').text,
      'And its totals? budget.xlsx',
    );
    // Without a name, one word of its own is still elliptical.
    assert.equal(followUpQuery(history, 'Which budgets?').by, 'rule');
  });

  it("searches a later question that names its own subject with the previous answer's words too, once the documents answered", () => {
    const grounded: QueryTurn[] = [
      { role: 'user', content: 'How is enterprise value calculated?' },
      {
        role: 'assistant',
        content: 'Market capitalisation plus debt minus cash.',
        sources: [{ kind: 'passage', storeId: 'vs_1', fileId: 'file-valuation' }],
      },
    ];
    for (const question of ['What is WACC?', 'Do the Arizona Cardinals play abroad?']) {
      const query = followUpQuery(grounded, question);
      // Its query, what "Searched for" shows, carries nothing of the conversation.
      assert.equal(query.text, question);
      assert.equal(query.by, 'question');
      assert.deepEqual(query.followUp, { message: question, withAnswer: `${question} Market capitalisation plus debt minus cash` });
    }
  });

  it('never lets the carried words grow across five follow-ups, as the chat records each query', () => {
    const history: QueryTurn[] = [
      { role: 'user', content: 'How long are invoices retained in the archive?' },
      { role: 'assistant', content: 'Ten years.', searchQuery: 'How long are invoices retained in the archive?' },
    ];
    const carried: string[][] = [];
    for (const subject of ['contracts', 'payslips', 'receipts', 'emails', 'backups']) {
      const message = `And ${subject}?`;
      const query = followUpQuery(history, message);
      carried.push(query.text.slice(message.length).trim().split(' '));
      history.push({ role: 'user', content: message }, { role: 'assistant', content: 'Six years.', searchQuery: query.text });
    }
    assert.deepEqual(carried[0], ['long', 'invoices', 'retained', 'archive']);
    // Each later turn: the previous message's subject and the topic, never the ones before.
    for (const words of carried.slice(1)) assert.equal(words.length, 5, words.join(' '));
    assert.deepEqual(carried[4], ['emails', 'long', 'invoices', 'retained', 'archive']);
  });

  it("marks a follow-up of a conversation whose answers cited documents, and searches it with the previous answer's words", () => {
    const cited: QueryTurn[] = [FIRST[0]!, { ...FIRST[1]!, sources: [{ kind: 'passage', storeId: 'vs_1', fileId: 'file-limits' }] }];
    const query = followUpQuery(cited, 'And what are its defaults?');
    assert.equal(conversationGrounded(cited), true);
    assert.equal(query.followUp?.message, 'And what are its defaults?');
    assert.equal(query.followUp?.withAnswer, 'And what are its defaults? Set per-minute limits service settings 1');
    assert.equal(conversationGrounded(FIRST), false);
  });

  it('recomputes the chain by the rule when answers recorded nothing (older conversations, @docchat)', () => {
    const history: QueryTurn[] = [...FIRST, { role: 'user', content: 'And its defaults?' }, { role: 'assistant', content: '60.' }];
    assert.equal(
      followUpQuery(history, 'Can they be changed?').text,
      'Can they be changed? defaults configure rate limiter documents service',
    );
  });

  it('has nothing to carry on the first question', () => {
    assert.deepEqual(followUpQuery([], 'And its limits?'), { text: 'And its limits?', by: 'question' });
  });
});

describe('search query of a turn: the conversation since the stores changed', () => {
  const turn = (content: string, storeIds?: string[]): QueryTurn =>
    storeIds ? { role: 'assistant', content, storeIds } : { role: 'assistant', content };
  const ask = (content: string): QueryTurn => ({ role: 'user', content });

  it('keeps the turns after the last answer grounded in other stores', () => {
    const history = [ask('a'), turn('A', ['vs_1']), ask('b'), turn('B', ['vs_2']), ask('c'), turn('C', ['vs_2'])];
    assert.deepEqual(sinceStoresChanged(history, ['vs_2']), history.slice(2));
    assert.deepEqual(sinceStoresChanged(history, ['vs_3']), []);
  });

  it('compares the stores as a set, and keeps answers that record none', () => {
    const history = [ask('a'), turn('A', ['vs_1', 'vs_2']), ask('b'), turn('B')];
    assert.deepEqual(sinceStoresChanged(history, ['vs_2', 'vs_1']), history);
    assert.deepEqual(sinceStoresChanged(history, ['vs_1']), history.slice(2));
  });
});

describe('search query of a turn: the rewrite request', () => {
  it('asks with the conversation and the last message, and uses the cleaned reply', async () => {
    const model = new ScriptedModel(async () => '"Search query: documents service rate limiter limits"\n');
    const query = await new QueryRewriter().queryFor(FIRST, 'And what are its limits?', model);
    assert.deepEqual(query, { text: 'documents service rate limiter limits', by: 'model' });
    const [system, user] = model.prompts[0]!;
    assert.equal(system!.role, 'system');
    assert.match(system!.content, /search query/i);
    assert.match(user!.content, /User: How do I configure the rate limiter/);
    assert.match(user!.content, /Assistant: Set the per-minute limits/);
    assert.match(user!.content, /Last message: And what are its limits\?/);
  });

  it('does not ask on the first question of a conversation', async () => {
    const model = new ScriptedModel(async () => 'never');
    assert.deepEqual(await new QueryRewriter().queryFor([], 'What is DocChat?', model), { text: 'What is DocChat?', by: 'question' });
    assert.equal(model.prompts.length, 0);
  });

  it('does not ask when an English question names the conversation’s subject itself and refers back to nothing', async () => {
    const model = new ScriptedModel(async () => 'never');
    const question = 'How do I reset the rate limiter of the documents service?';
    assert.deepEqual(await new QueryRewriter().queryFor(FIRST, question, model), { text: question, by: 'question' });
    assert.equal(model.prompts.length, 0);
  });

  it('still asks for a message that may lean on the conversation', async () => {
    const asked: string[] = [];
    const model = new ScriptedModel(async () => 'documents service rate limiter');
    for (const question of [
      'And what are its limits?', // a pronoun, an opening connective
      'Reset how?', // elliptical
      'Which ports are probed?', // names no subject of the conversation: a new subject or an omitted one
      'Welche Grenzen hat der Rate Limiter dort?', // German: the English markers tell nothing
      'Quelles sont les limites du rate limiter là-bas ?', // French
      '文档服务的 rate limiter 有什么限制？', // Chinese
    ]) {
      const before = model.prompts.length;
      await new QueryRewriter().queryFor(FIRST, question, model);
      if (model.prompts.length > before) asked.push(question);
    }
    assert.equal(asked.length, 6, `asked for: ${asked.join(' | ')}`);
  });

  it('tells English from other languages by its common words and letters', () => {
    assert.equal(looksEnglish('How do I reset the rate limiter of the documents service?'), true);
    assert.equal(looksEnglish('Which setting lists extra certificate authorities to trust?'), true);
    assert.equal(looksEnglish('Rate limiter reset?'), false, 'too few common words to tell');
    assert.equal(looksEnglish('Wie setze ich den Rate Limiter in den Einstellungen zurück?'), false);
    assert.equal(looksEnglish('Hoe stel ik de rate limiter in de instellingen in?'), false);
    assert.equal(looksEnglish('Was ist das?'), false);
    assert.equal(looksEnglish('レート制限はどこで設定しますか'), false);
    assert.equal(looksEnglish(''), false);
  });

  it('takes only the first question, or a marker-free English one on the same subject, as standing alone', () => {
    assert.equal(standsAlone([], 'Und die Grenzen?'), true, 'the first question has nothing to lean on');
    assert.equal(standsAlone(FIRST, 'Where are the rate limiter settings of the documents service?'), true);
    assert.equal(standsAlone(FIRST, 'Where are those settings of the documents service?'), false);
    assert.equal(standsAlone(FIRST, 'Where are the settings for the converter?'), false);
  });

  it('asks once per turn: the same turn again comes from the cache', async () => {
    const model = new ScriptedModel(async () => 'rate limiter limits');
    const rewriter = new QueryRewriter();
    await rewriter.queryFor(FIRST, 'And what are its limits?', model);
    const again = await rewriter.queryFor(FIRST, 'And what are its limits?', model);
    assert.deepEqual(again, { text: 'rate limiter limits', by: 'model' });
    assert.equal(model.prompts.length, 1);
    await rewriter.queryFor(FIRST, 'And its defaults?', model);
    assert.equal(model.prompts.length, 2, 'another turn asks again');
  });

  it('falls back to the rule when the request fails, and says so only in the log', async () => {
    const logged: string[] = [];
    const model = new ScriptedModel(async () => {
      throw new Error('HTTP 503');
    });
    const query = await new QueryRewriter({ log: (m) => logged.push(m) }).queryFor(FIRST, 'And what are its limits?', model);
    assert.deepEqual(query, followUpQuery(FIRST, 'And what are its limits?'));
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /HTTP 503/);
  });

  it('falls back to the rule when the budget runs out, and aborts the request', async () => {
    const logged: string[] = [];
    let aborted = false;
    const model = new ScriptedModel((signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      return untilAborted(signal);
    });
    const rewriter = new QueryRewriter({ budgetMs: 10, log: (m) => logged.push(m) });
    const query = await rewriter.queryFor(FIRST, 'And what are its limits?', model);
    assert.equal(query.by, 'rule');
    assert.ok(aborted, 'the request was aborted');
    assert.match(logged[0]!, /longer than 10 ms/);
    // A failure is not cached: the next try asks again.
    await rewriter.queryFor(FIRST, 'And what are its limits?', model);
    assert.equal(model.prompts.length, 2);
  });

  it('stops at once when the answer is cancelled, without a log line', async () => {
    const logged: string[] = [];
    const abort = new AbortController();
    const model = new ScriptedModel((signal) => {
      queueMicrotask(() => abort.abort());
      return untilAborted(signal);
    });
    const query = await new QueryRewriter({ log: (m) => logged.push(m) }).queryFor(FIRST, 'And its limits?', model, abort.signal);
    assert.equal(query.by, 'rule');
    assert.deepEqual(logged, []);
  });

  it('ignores a reply that is not a query', async () => {
    assert.equal(cleanRewrite('\n\n'), undefined);
    assert.equal(cleanRewrite('x'.repeat(400)), undefined);
    assert.equal(cleanRewrite('  `rate limits`  \nbecause…'), 'rate limits');
    const model = new ScriptedModel(async () => '   ');
    assert.equal((await new QueryRewriter().queryFor(FIRST, 'And its limits?', model)).by, 'rule');
  });

  it('keeps the transcript short: the last messages, each cut to a few hundred characters', () => {
    const long: QueryTurn[] = Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `message ${i} ${'word '.repeat(400)}`,
    }));
    const [, user] = rewritePrompt(long, 'and then?');
    assert.doesNotMatch(user!.content, /message 3 /);
    assert.match(user!.content, /message 4 /);
    assert.ok(user!.content.length < 6 * 620 + 200, `short: ${user!.content.length}`);
  });

  describe('on the gateway', () => {
    let server: ScriptServer;
    let gateway: GatewayClient;
    before(async () => {
      server = await ScriptServer.start();
      gateway = new GatewayClient({ baseUrl: server.url, token: 'key', rateLimits: false, transport: { maxRetries: 0 } });
    });
    afterEach(() => server.reset());
    after(async () => {
      await gateway.close();
      await server.close();
    });

    it('sends one small deterministic completion request and reads its first line', async () => {
      server.on('POST', '/v1/chat/completions', (_req, res) =>
        sendChunked(res, sseBody([chatChunk('rate limiter '), chatChunk('limits\nExplanation: …')])),
      );
      const query = await new QueryRewriter().queryFor(FIRST, 'And its limits?', gatewayRewriteModel(gateway, 'alpha-5-mini'));
      assert.deepEqual(query, { text: 'rate limiter limits', by: 'model' });
      const request = server.requests.find((r) => r.path === '/v1/chat/completions')!.json;
      assert.equal(request.model, 'alpha-5-mini');
      assert.equal(request.temperature, 0);
      assert.equal(request.max_completion_tokens, 64);
      assert.equal(request.messages.length, 2);
    });

    it('falls back to the rule on a gateway error', async () => {
      server.on('POST', '/v1/chat/completions', (_req, res) => sendJson(res, 500, { error: { message: 'boom', type: 'server_error' } }));
      const logged: string[] = [];
      const query = await new QueryRewriter({ log: (m) => logged.push(m) }).queryFor(
        FIRST,
        'And its limits?',
        gatewayRewriteModel(gateway, 'alpha-5-mini'),
      );
      assert.equal(query.by, 'rule');
      assert.equal(logged.length, 1);
    });
  });
});
