import * as assert from 'node:assert/strict';
import { GatewayClient } from '../../../src/api/gateway/client';
import type { AnswerResult } from '../../../src/features/chat/answerStream';
import { citedSources } from '../../../src/chatCore/citations';
import { FileNameCache, type GroundingStore } from '../../../src/chatCore/grounding';
import type { ChatErrorInfo, ChatMessage, ChatSource } from '../../../src/chatCore/protocol';
import { attachText, startTestBackend, TOKEN, type TestBackend } from '../features/backend';
import { runAnswer } from '../features/chat/runAnswer';

// Grounding that follows the conversation, says no, and spans stores — against the embedded
// backend and its local-extractive model.

const RETENTION = [
  '# Retention policy',
  '',
  'Invoices are kept for ten years after the end of the fiscal year. Employment contracts are kept for six years after the employee leaves. Records in dispute are kept until the dispute is settled, whatever their age.',
  '',
  'Exceptions to the retention policy are approved by the finance director.',
].join('\n');
const SECURITY = '# Security policy\n\nExceptions are approved by the CISO.';
const PAGER = '# Pager\n\nConfigure the pager app before your first shift.';
const RUNBOOK = '# Deployments\n\nDeployment logs are kept for ninety days, then deleted.';

describe('grounding that follows the conversation (embedded backend)', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let gateway: GatewayClient;
  let policies: GroundingStore;
  let runbooks: GroundingStore;

  before(async () => {
    backend = await startTestBackend();
    gateway = new GatewayClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
    policies = { id: (await backend.client.createVectorStore({ name: 'policies' })).id, name: 'policies' };
    runbooks = { id: (await backend.client.createVectorStore({ name: 'runbooks' })).id, name: 'runbooks' };
    await attachText(backend.client, policies.id, 'retention.md', RETENTION);
    await attachText(backend.client, policies.id, 'security.md', SECURITY);
    await attachText(backend.client, policies.id, 'pager.md', PAGER);
    await attachText(backend.client, runbooks.id, 'deployments.md', RUNBOOK);
  });
  after(async () => {
    await gateway?.close();
    await backend?.stop();
  });

  async function ask(question: string, stores: GroundingStore[], history: ChatMessage[] = [], searchQuery?: string) {
    let sources: ChatSource[] = [];
    let query: string | undefined;
    let text = '';
    let result: AnswerResult | undefined;
    let failure: ChatErrorInfo | undefined;
    await runAnswer(
      {
        question,
        history,
        context: [],
        model: 'local-extractive',
        legacy: false,
        projectCode: 'NA',
        stores,
        maxResults: 5,
        ...(searchQuery ? { searchQuery } : {}),
      },
      { gateway, documents: backend.client, fileNames: new FileNameCache() },
      {
        status: () => undefined,
        start: (s, q) => {
          sources = s;
          query = q;
        },
        delta: (t) => (text += t),
        done: (r) => (result = r),
        error: (e) => (failure = e),
      },
      new AbortController().signal,
    );
    assert.equal(failure, undefined, failure?.message);
    return { sources, query, text, result };
  }

  const fileOf = (s: ChatSource | undefined) => (s?.kind === 'passage' ? s.filename : undefined);

  it('answers a follow-up that only makes sense after the first question from the right passages', async () => {
    const first = await ask('What does the retention policy say?', [policies]);
    assert.equal(fileOf(first.sources[0]), 'retention.md');
    const history: ChatMessage[] = [
      { id: 'u1', role: 'user', content: 'What does the retention policy say?', createdAt: 1 },
      { id: 'a1', role: 'assistant', content: first.text, createdAt: 2, status: 'done', searchQuery: first.query! },
    ];
    const followUp = await ask('Who approves exceptions to it?', [policies], history);
    assert.match(followUp.query!, /retention policy/, 'the query carries the subject');
    assert.equal(fileOf(followUp.sources[0]), 'retention.md', JSON.stringify(followUp.sources.map(fileOf)));
    assert.match(followUp.text, /finance director/);

    // The same follow-up searched as it stands finds the other policy first.
    const asItStands = await ask('Who approves exceptions to it?', [policies], [], 'Who approves exceptions to it?');
    assert.equal(fileOf(asItStands.sources[0]), 'security.md');
  });

  it('searches a short question on a new subject as it stands (two words of its own are not an ellipsis)', async () => {
    const first = await ask('What does the retention policy say?', [policies]);
    const history: ChatMessage[] = [
      { id: 'u1', role: 'user', content: 'What does the retention policy say?', createdAt: 1 },
      { id: 'a1', role: 'assistant', content: first.text, createdAt: 2, status: 'done', searchQuery: first.query! },
    ];
    const next = await ask('Configure the pager?', [policies], history);
    assert.equal(next.query, 'Configure the pager?');
    assert.equal(fileOf(next.sources[0]), 'pager.md', JSON.stringify(next.sources.map(fileOf)));
  });

  it('answers from the message’s own words when the subject carried into its query finds nothing', async () => {
    const first = await ask('What is the capital of Australia?', [policies]);
    assert.deepEqual(first.sources, [], 'not covered');
    const history: ChatMessage[] = [
      { id: 'u1', role: 'user', content: 'What is the capital of Australia?', createdAt: 1 },
      { id: 'a1', role: 'assistant', content: first.text, createdAt: 2, status: 'done', searchQuery: first.query! },
    ];
    // One word: an ellipsis, so the rule carries "capital Australia" into the query, which nothing covers.
    const next = await ask('Pager?', [policies], history);
    assert.equal(next.query, 'Pager?', 'Searched for shows the query that found the passages');
    assert.equal(fileOf(next.sources[0]), 'pager.md', JSON.stringify(next.sources.map(fileOf)));
    assert.doesNotMatch(next.text, /do not cover/);

    // A query the user edited is searched as it is: finding nothing, it says so.
    const edited = await ask('Pager?', [policies], history, 'xylophone zeppelin');
    assert.equal(edited.query, 'xylophone zeppelin');
    assert.deepEqual(edited.sources, []);
    assert.match(edited.text, /do not cover/);
  });

  it('says the documents do not cover a question the store cannot answer, and cites nothing', async () => {
    const { sources, text, result } = await ask('How do I configure Kubernetes ingress controllers?', [policies]);
    assert.deepEqual(sources, []);
    assert.match(text, /The documents in “policies” do not cover this question/);
    assert.deepEqual(citedSources(text, 10), []);
    assert.deepEqual(result?.nextSteps, ['searchDocuments', 'chooseStore', 'attachFiles', 'useLanguageModel']);
  });

  it('grounds a conversation in two stores and cites both, each source naming its store', async () => {
    const { sources, text } = await ask('How long are invoices and deployment logs kept?', [policies, runbooks]);
    const stores = new Set(sources.map((s) => (s.kind === 'passage' ? s.storeName : '')));
    assert.deepEqual([...stores].sort(), ['policies', 'runbooks']);
    const cited = citedSources(text, sources.length).map((n) => sources[n - 1]);
    const citedStores = new Set(cited.map((s) => (s?.kind === 'passage' ? s.storeName : '')));
    assert.ok(citedStores.has('policies') && citedStores.has('runbooks'), `cites both stores: ${text}`);
  });
});
