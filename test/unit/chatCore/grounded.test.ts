import * as assert from 'node:assert/strict';
import { GatewayClient } from '../../../src/api/gateway/client';
import type { AnswerResult } from '../../../src/features/chat/answerStream';
import { runAnswer } from '../features/chat/runAnswer';
import { citedSources } from '../../../src/chatCore/citations';
import { FileNameCache } from '../../../src/chatCore/grounding';
import { ModelCatalog, type KeyValueStore } from '../../../src/chatCore/modelCatalog';
import type { ChatErrorInfo, ChatSource } from '../../../src/chatCore/protocol';
import { attachText, startTestBackend, TOKEN, type TestBackend } from '../features/backend';

// The whole grounding path against the embedded backend: the store is searched, the passages go
// into the prompt as numbered sources, and the local extractive model answers by quoting them
// with [n] citations that map back to those sources.

const RETENTION = [
  '# Retention policy',
  '',
  'Invoices are kept for ten years after the end of the fiscal year.',
  '',
  'Employment contracts are kept for six years after the employee leaves.',
].join('\n');
const ONCALL = 'The pager rotation changes every Monday at noon. Incidents are handed over in the team channel.';

class MemoryState implements KeyValueStore {
  private readonly data = new Map<string, unknown>();
  get<T>(key: string) {
    return this.data.get(key) as T | undefined;
  }
  async update(key: string, value: unknown) {
    this.data.set(key, value);
  }
}

describe('chat grounding against the embedded backend', function () {
  this.timeout(60_000);
  let backend: TestBackend;
  let gateway: GatewayClient;
  let storeId: string;

  before(async () => {
    backend = await startTestBackend();
    gateway = new GatewayClient({ baseUrl: backend.url, token: TOKEN, rateLimits: false, transport: { maxRetries: 0 } });
    const store = await backend.client.createVectorStore({ name: 'policies' });
    storeId = store.id;
    await attachText(backend.client, storeId, 'retention.md', RETENTION);
    await attachText(backend.client, storeId, 'oncall.md', ONCALL);
  });
  after(async () => {
    await gateway?.close();
    await backend?.stop();
  });

  it('lists local-extractive as the default model, with the legacy models after it', async () => {
    const state = await new ModelCatalog(new MemoryState()).load(gateway, 'local', '');
    assert.equal(state.defaultModel, 'local-extractive');
    assert.equal(state.error, undefined);
    assert.ok(state.models.some((m) => m.kind === 'legacy' && m.id === 'o3-mini'));
  });

  it('answers a grounded question with citations that map to the searched passages', async () => {
    let sources: ChatSource[] = [];
    let text = '';
    let result: AnswerResult | undefined;
    let failure: ChatErrorInfo | undefined;
    await runAnswer(
      {
        question: 'How long are invoices kept?',
        history: [],
        context: [],
        model: 'local-extractive',
        legacy: false,
        projectCode: 'NA',
        stores: [{ id: storeId, name: 'policies' }],
        maxResults: 5,
      },
      { gateway, documents: backend.client, fileNames: new FileNameCache() },
      {
        status: () => undefined,
        start: (s) => (sources = s),
        delta: (t) => (text += t),
        done: (r) => (result = r),
        error: (e) => (failure = e),
      },
      new AbortController().signal,
    );
    assert.equal(failure, undefined, failure?.message);
    assert.equal(result?.stopped, false);
    assert.ok(result?.usage && result.usage.completionTokens > 0, 'usage reported');
    assert.ok(sources.length >= 1, 'the search found passages');
    const invoice = sources.find((s) => /Invoices are kept for ten years/.test(s.content));
    assert.ok(invoice, `a source holds the invoice rule: ${JSON.stringify(sources)}`);
    assert.equal(invoice.kind === 'passage' && invoice.filename, 'retention.md');
    assert.match(text, /Invoices are kept for ten years/);
    const cited = citedSources(text, sources.length);
    assert.ok(cited.includes(invoice.number), `the answer cites [${invoice.number}]: ${text}`);
  });

  async function answerOf(job: { question: string; model: string; stores?: { id: string; name: string }[] }) {
    let sources: ChatSource[] | undefined;
    let text = '';
    let result: AnswerResult | undefined;
    let failure: ChatErrorInfo | undefined;
    await runAnswer(
      { history: [], context: [], legacy: false, projectCode: 'NA', maxResults: 5, ...job },
      { gateway, documents: backend.client, fileNames: new FileNameCache() },
      {
        status: () => undefined,
        start: (s) => (sources = s),
        delta: (t) => (text += t),
        done: (r) => (result = r),
        error: (e) => (failure = e),
      },
      new AbortController().signal,
    );
    assert.equal(failure, undefined, failure?.message);
    return { sources, text, result };
  }

  it('answers local-extractive without a store in one sentence with the ways forward, not a paragraph', async () => {
    const { sources, text, result } = await answerOf({ question: 'What does npm test run?', model: 'local-extractive' });
    assert.deepEqual(sources, []);
    assert.equal(text.split(/(?<=\.)\s+/).length, 1, `one sentence: ${text}`);
    assert.match(text, /not grounded in a vector store/);
    assert.doesNotMatch(text, /--upstream|I am local-extractive/);
    assert.deepEqual(result?.nextSteps, ['chooseStore', 'attachFiles', 'useLanguageModel']);
    assert.equal(result?.usage, undefined, 'the backend model was not asked');
  });

  /** local-extractive's answer to `question`, grounded in the policies store. */
  const askPolicies = (question: string) => answerOf({ question, model: 'local-extractive', stores: [{ id: storeId, name: 'policies' }] });

  it('says so when a grounded question finds no passage, and offers the ways forward', async () => {
    const { sources, text, result } = await askPolicies('xylophone quartz zeppelin');
    assert.deepEqual(sources, []);
    assert.match(text, /The documents in “policies” do not cover this question/);
    // A search that finds nothing at all names no word: there is no passage to compare with.
    assert.doesNotMatch(text, /No passage it found/);
    // The search of the same words comes first: the documents were searched, in other words than the question's perhaps.
    assert.deepEqual(result?.nextSteps, ['searchDocuments', 'chooseStore', 'attachFiles', 'useLanguageModel']);
  });

  it("names the words of the question that none of the passages found holds, so the asker can try the documents' words", async () => {
    const { sources, text, result } = await askPolicies('How long are invoices kept in the SAML archive?');
    assert.deepEqual(sources, []);
    assert.equal(
      text,
      'The documents in “policies” do not cover this question, so local-extractive has nothing to quote. ' +
        'No passage it found mentions “SAML” or “archive”: the documents may use other words for it.',
    );
    assert.deepEqual(result?.nextSteps, ['searchDocuments', 'chooseStore', 'attachFiles', 'useLanguageModel']);
  });

  it('says a store with no files holds none yet, and how to attach some, rather than that its documents do not cover the question', async () => {
    const empty = await backend.client.createVectorStore({ name: 'new-team' });
    const { sources, text, result } = await answerOf({
      question: 'How do I delete a store?',
      model: 'local-extractive',
      stores: [{ id: empty.id, name: 'new-team' }],
    });
    assert.deepEqual(sources, []);
    assert.equal(text, 'The vector store “new-team” holds no files yet: attach some with Attach Files, or choose another store.');
    assert.deepEqual(result?.nextSteps, ['attachFiles', 'chooseStore']);
    // With a store that has files among those searched, the documents just do not cover it.
    const both = await answerOf({
      question: 'xylophone quartz zeppelin',
      model: 'local-extractive',
      stores: [
        { id: empty.id, name: 'new-team' },
        { id: storeId, name: 'policies' },
      ],
    });
    assert.match(both.text, /The documents in “new-team”, “policies” do not cover this question/);
  });

  it('offers no buttons when a grounded question finds passages', async () => {
    const { result, sources } = await answerOf({
      question: 'How long are invoices kept?',
      model: 'local-extractive',
      stores: [{ id: storeId, name: 'policies' }],
    });
    assert.ok(sources && sources.length > 0);
    assert.equal(result?.nextSteps, undefined);
  });
});
