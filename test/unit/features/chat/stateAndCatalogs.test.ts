import * as assert from 'node:assert/strict';
import { parseContextArgument } from '../../../../src/features/chat/contextArgument';
import { ConversationStore, MAX_CONVERSATIONS } from '../../../../src/features/chat/conversationStore';
import { DeltaCoalescer, type FlushScheduler } from '../../../../src/features/chat/deltaCoalescer';
import {
  type KeyValueStore,
  MODEL_LIST_TTL_MS,
  localModelOrigin,
  ModelCatalog,
  ModelRefusals,
  isLegacyModel,
  type UnavailableModel,
} from '../../../../src/chatCore/modelCatalog';
import type { AssistantMessage } from '../../../../src/chatCore/protocol';
import { MemoryState } from './fixtures';
import { StoreCatalog } from '../../../../src/features/chat/storeCatalog';

class ManualScheduler implements FlushScheduler {
  callbacks: Array<() => void> = [];
  schedule(callback: () => void) {
    this.callbacks.push(callback);
    return callback;
  }
  cancel(handle: unknown) {
    this.callbacks = this.callbacks.filter((c) => c !== handle);
  }
  fire() {
    const pending = this.callbacks;
    this.callbacks = [];
    pending.forEach((c) => c());
  }
}

describe('chat delta coalescing', () => {
  it('posts the first delta at once and everything else that arrived within a frame as one message', () => {
    const scheduler = new ManualScheduler();
    const posted: string[] = [];
    const coalescer = new DeltaCoalescer((t) => posted.push(t), 16, scheduler);
    ['a', 'b', 'c'].forEach((d) => coalescer.push(d));
    assert.deepEqual(posted, ['a'], 'the first token is not held for a frame');
    assert.equal(scheduler.callbacks.length, 1, 'one frame scheduled, not one per delta');
    scheduler.fire();
    assert.deepEqual(posted, ['a', 'bc']);
    coalescer.push('d');
    coalescer.push('');
    assert.deepEqual(posted, ['a', 'bc'], 'a frame that posted keeps the next delta for the following frame');
    scheduler.fire();
    assert.deepEqual(posted, ['a', 'bc', 'd']);
    scheduler.fire();
    assert.equal(scheduler.callbacks.length, 0, 'a quiet frame schedules nothing');
    coalescer.push('e');
    assert.deepEqual(posted, ['a', 'bc', 'd', 'e'], 'after a quiet frame the next delta goes out at once');
  });

  it('flushes at once before a terminal message and posts nothing after dispose', () => {
    const scheduler = new ManualScheduler();
    const posted: string[] = [];
    const coalescer = new DeltaCoalescer((t) => posted.push(t), 16, scheduler);
    coalescer.push('tail');
    coalescer.flush();
    assert.deepEqual(posted, ['tail']);
    assert.equal(scheduler.callbacks.length, 0);
    coalescer.dispose();
    coalescer.push('late');
    scheduler.fire();
    assert.deepEqual(posted, ['tail']);
  });
});

describe('chat conversations: persisted per workspace', () => {
  it('survives a reload (a new store over the same state) with messages, options and the active conversation', async () => {
    const state = new MemoryState();
    const first = new ConversationStore(state);
    const a = first.create({ model: 'alpha-5-mini', temperature: 0.2 });
    a.title = 'Retention';
    a.messages.push({ id: 'u', role: 'user', content: 'How long?', createdAt: 1 });
    a.messages.push({
      id: 'm',
      role: 'assistant',
      content: 'Ten years [1].',
      createdAt: 2,
      status: 'done',
      sources: [{ kind: 'passage', storeId: 'vs', fileId: 'f', content: 'Ten years.', number: 1 }],
    });
    const b = first.create({});
    b.messages.push({ id: 'u2', role: 'user', content: 'Other', createdAt: 3 });
    first.activate(a.id);
    await first.save();

    const reloaded = new ConversationStore(state);
    assert.deepEqual(reloaded.active(), a);
    assert.deepEqual(
      reloaded
        .summaries()
        .map((s) => s.id)
        .sort(),
      [a.id, b.id].sort(),
    );
  });

  it('writes saves asked for together once, after the send path, and flushes a pending one at once', async () => {
    const state = new MemoryState();
    let writes = 0;
    const counting: KeyValueStore = { get: (k) => state.get(k), update: (k, v) => (writes++, state.update(k, v)) };
    const store = new ConversationStore(counting);
    const c = store.create();
    c.messages.push({ id: 'u', role: 'user', content: 'Q', createdAt: 1 });
    const saves = [store.save(), store.save(), store.save()];
    assert.equal(writes, 0, 'nothing is written on the path of the question');
    await Promise.all(saves);
    assert.equal(writes, 1);
    assert.equal(new ConversationStore(state).active().messages.length, 1);
    c.messages.push({ id: 'u2', role: 'user', content: 'Q2', createdAt: 2 });
    const later = store.save();
    await store.flush();
    assert.equal(writes, 2);
    await later;
    assert.equal(new ConversationStore(state).active().messages.length, 2);
    await store.flush();
    assert.equal(writes, 2, 'nothing pending, nothing written');
  });

  it('marks an answer that was streaming during the reload as stopped, keeping its text', async () => {
    const state = new MemoryState();
    const store = new ConversationStore(state);
    const c = store.create();
    c.messages.push({ id: 'u', role: 'user', content: 'Q', createdAt: 1 });
    c.messages.push({ id: 'a', role: 'assistant', content: 'Half', createdAt: 2, status: 'streaming', requestId: 'r', thinking: true });
    await store.save();
    const answer = new ConversationStore(state).active().messages[1] as AssistantMessage;
    assert.equal(answer.status, 'stopped');
    assert.equal(answer.content, 'Half');
    assert.equal(answer.finishReason, 'interrupted');
    assert.equal(answer.requestId, undefined);
    assert.equal(answer.thinking, undefined, 'a model that was thinking when the window closed is not thinking now');
  });

  it('drops damaged entries instead of trusting them', async () => {
    const state = new MemoryState();
    await state.update('docchat.chat.conversations', { activeId: 'x', conversations: [{ id: 'x', title: 1 }, 'junk'] });
    const store = new ConversationStore(state);
    assert.deepEqual(store.summaries(), []);
    assert.equal(store.active().messages.length, 0);
    await state.update('docchat.chat.conversations', 'not even an object');
    assert.deepEqual(new ConversationStore(state).summaries(), []);
  });

  it('replaces an untouched empty conversation, keeps at most the newest conversations, and deletes', () => {
    let time = 0;
    const store = new ConversationStore(new MemoryState(), () => ++time);
    store.create();
    store.create();
    assert.equal(store.summaries().length, 1, 'empty conversations do not pile up');
    for (let i = 0; i < MAX_CONVERSATIONS + 5; i++) {
      store.active().messages.push({ id: `u${i}`, role: 'user', content: `Q${i}`, createdAt: i });
      store.create();
    }
    // The newest MAX_CONVERSATIONS stay: the new empty one, then Q(MAX+4) down to Q6.
    const firstQuestions = store.summaries().map((s) => store.get(s.id)!.messages[0]?.content ?? '(empty)');
    const expected = ['(empty)', ...Array.from({ length: MAX_CONVERSATIONS - 1 }, (_, i) => `Q${MAX_CONVERSATIONS + 4 - i}`)];
    assert.deepEqual(firstQuestions, expected);
    const active = store.active();
    store.delete(active.id);
    assert.equal(store.get(active.id), undefined);
  });
});

describe('chat model list: cached, refreshable, legacy models marked', () => {
  const lister = (ids: string[]) => {
    const calls = { count: 0 };
    return { calls, listCompletionModels: async () => (calls.count++, ids.map((id) => ({ id, object: 'model' }))) };
  };

  it('lists the gateway models plus the legacy inference models with the retirement date', async () => {
    const catalog = new ModelCatalog(new MemoryState());
    const state = await catalog.load(lister(['local-extractive', 'alpha-5-mini']), 'local', '');
    assert.deepEqual(
      state.models.filter((m) => m.kind === 'completion').map((m) => m.id),
      ['local-extractive', 'alpha-5-mini'],
    );
    const legacy = state.models.filter((m) => m.kind === 'legacy');
    assert.equal(legacy.length, 9);
    assert.ok(legacy.every((m) => m.retirement === 'December 17' && isLegacyModel(m.id)));
    assert.equal(state.defaultModel, 'local-extractive');
  });

  it('offers in Local mode only what its backend lists: no legacy model it cannot serve, and local-extractive until it lists', async () => {
    const catalog = new ModelCatalog(new MemoryState());
    const listed = await catalog.load(lister(['local-extractive', 'llama3.2']), 'local', '', false, 'local');
    assert.deepEqual(
      listed.models.map((m) => m.id),
      ['local-extractive', 'llama3.2'],
    );
    const offline = await new ModelCatalog(new MemoryState()).load(undefined, 'local', '', false, 'local');
    assert.deepEqual(
      offline.models.map((m) => m.id),
      ['local-extractive'],
      'not the gateway models before the backend answers',
    );
    assert.equal(offline.defaultModel, 'local-extractive');
  });

  it('uses the cache within an hour, fetches again after it or on refresh, and per gateway', async () => {
    let now = 1_000_000;
    const storage = new MemoryState();
    const source = lister(['alpha-5-mini']);
    const catalog = new ModelCatalog(storage, () => now);
    await catalog.load(source, 'remote-a', '');
    now += MODEL_LIST_TTL_MS - 1;
    await new ModelCatalog(storage, () => now).load(source, 'remote-a', '');
    assert.equal(source.calls.count, 1, 'served from the cache (also after a reload)');
    await catalog.load(source, 'remote-a', '', true);
    assert.equal(source.calls.count, 2, 'refresh fetches');
    now += MODEL_LIST_TTL_MS;
    await catalog.load(source, 'remote-a', '');
    assert.equal(source.calls.count, 3, 'stale after an hour');
    await catalog.load(source, 'remote-b', '');
    assert.equal(source.calls.count, 4, 'another gateway has its own list');
  });

  it('marks a model found unusable with its reason for the session, and keeps it as the default (nothing switches silently)', async () => {
    const unusable = new Map<string, UnavailableModel>();
    const refusals = new ModelRefusals();
    const catalog = new ModelCatalog(new MemoryState(), Date.now, unusable, refusals);
    const source = lister(['local-extractive', 'tiny-chat', 'whisper-1']);
    await catalog.load(source, 'local+http://127.0.0.1:8000/v1', 'whisper-1', false, 'local');
    const marked = catalog.markUnavailable('whisper-1', '"whisper-1" does not support chat');
    assert.deepEqual(
      marked.models.map((m) => [m.id, m.unavailable]),
      [
        ['local-extractive', undefined],
        ['tiny-chat', undefined],
        ['whisper-1', '"whisper-1" does not support chat'],
      ],
    );
    assert.equal(marked.defaultModel, 'whisper-1', 'the chosen model stays chosen, shown marked, until the user chooses another');
    assert.equal(
      refusals.reason('local+http://127.0.0.1:8000/v1', 'whisper-1'),
      '"whisper-1" does not support chat',
      'shared with "Use a Language Model…"',
    );
    const cached = await catalog.load(source, 'local+http://127.0.0.1:8000/v1', 'whisper-1', false, 'local');
    assert.equal(cached.models.find((m) => m.id === 'whisper-1')?.unavailable, '"whisper-1" does not support chat', 'for the session');
    const server = catalog.markUnavailable('tiny-chat', 'server not answering', true);
    assert.deepEqual(
      server.models.map((m) => m.unavailable),
      [undefined, 'server not answering', '"whisper-1" does not support chat'],
      "the whole server's models (a refused one keeps its reason); local-extractive always answers",
    );
    assert.equal(catalog.markAnswered('local-extractive'), false, 'local-extractive says nothing of the server');
    assert.equal(catalog.markAnswered('tiny-chat'), true);
    assert.deepEqual(
      catalog.state.models.map((m) => m.unavailable),
      [undefined, undefined, '"whisper-1" does not support chat'],
      'a model of the server answered: the server answers again; the refused model stays marked',
    );
    assert.equal(catalog.markAnswered('tiny-chat'), false, 'nothing more to drop');
    const refreshed = await catalog.load(source, 'local+http://127.0.0.1:8000/v1', 'whisper-1', true, 'local');
    assert.deepEqual(
      refreshed.models.map((m) => m.unavailable),
      [undefined, undefined, '"whisper-1" does not support chat'],
      'Refresh Model List asks whether the server answers; the refusal stays for the session',
    );
    assert.equal(unusable.size, 0);
  });

  it('remembers a refusal per server and model: kept when the server restarts and is listed again, not for another server, dropped by an answer', async () => {
    const refusals = new ModelRefusals();
    const catalog = new ModelCatalog(new MemoryState(), Date.now, new Map(), refusals);
    const vllm = localModelOrigin('http://127.0.0.1:8000/v1');
    const up = lister(['local-extractive', 'tiny-chat', 'whisper-1']);
    const stopped = {
      listCompletionModels: async () => [
        { id: 'local-extractive' },
        { id: 'tiny-chat', unavailable: 'server not answering' },
        { id: 'whisper-1', unavailable: 'server not answering' },
      ],
    };
    await catalog.load(up, vllm, 'tiny-chat', false, 'local');
    catalog.markUnavailable('whisper-1', '"whisper-1" does not support chat');
    const whisper = (state: { models: readonly { id: string; unavailable?: string }[] }) =>
      state.models.find((m) => m.id === 'whisper-1')?.unavailable;
    assert.equal(whisper(await catalog.load(stopped, vllm, 'tiny-chat', true, 'local')), '"whisper-1" does not support chat');
    const restarted = await catalog.load(up, vllm, 'tiny-chat', true, 'local');
    assert.equal(whisper(restarted), '"whisper-1" does not support chat', 'the server started again and was listed: still refused');
    assert.equal(restarted.models.find((m) => m.id === 'tiny-chat')?.unavailable, undefined);
    assert.equal(catalog.refusal('whisper-1'), '"whisper-1" does not support chat');

    const other = await catalog.load(up, localModelOrigin('http://127.0.0.1:11434/v1'), 'tiny-chat', false, 'local');
    assert.equal(whisper(other), undefined, "another server's whisper-1 was not refused");
    assert.equal(catalog.refusal('whisper-1'), undefined);

    await catalog.load(up, vllm, 'tiny-chat', false, 'local');
    assert.equal(catalog.markAnswered('whisper-1'), true, 'an answer from the model');
    assert.equal(whisper(catalog.state), undefined);
    assert.equal(refusals.reason(vllm, 'whisper-1'), undefined);
  });

  it('marks the models the backend lists as unavailable (a model server that stopped) with its reason', async () => {
    const source = {
      listCompletionModels: async () => [{ id: 'local-extractive' }, { id: 'tiny-chat', unavailable: 'server not answering' }],
    };
    const state = await new ModelCatalog(new MemoryState()).load(source, 'local', 'tiny-chat', true, 'local');
    assert.deepEqual(
      state.models.map((m) => [m.id, m.unavailable]),
      [
        ['local-extractive', undefined],
        ['tiny-chat', 'server not answering'],
      ],
    );
    assert.equal(state.defaultModel, 'tiny-chat', 'the chosen model stays chosen, shown marked: asking says the server does not answer');
    const unchosen = await new ModelCatalog(new MemoryState()).load(source, 'local', '', true, 'local');
    assert.equal(unchosen.defaultModel, 'local-extractive', 'with none chosen, one that answers');
  });

  it('keeps the last list (or the documented models) and shows the error when listing fails', async () => {
    const failing = { listCompletionModels: async () => Promise.reject(new Error('gateway down')) };
    const state = await new ModelCatalog(new MemoryState()).load(failing, 'x', 'beta-opus-4-1');
    assert.match(state.error ?? '', /gateway down/);
    assert.ok(state.models.some((m) => m.id === 'gamma-4-fast-reasoning'));
    assert.equal(state.defaultModel, 'beta-opus-4-1', 'the configured default wins');
  });
});

describe('chat vector store list', () => {
  it('lists stores recently used first and keeps the old list with the error when listing fails', async () => {
    const catalog = new StoreCatalog();
    const ok = {
      listVectorStores: async () => ({
        data: [
          { id: 'vs_a', name: 'alpha' },
          { id: 'vs_b', name: '' },
        ],
      }),
    };
    const state = await catalog.load(ok, (ids) => [...ids].reverse());
    assert.deepEqual(state.stores, [
      { id: 'vs_b', name: 'vs_b' },
      { id: 'vs_a', name: 'alpha' },
    ]);
    const failing = { listVectorStores: async () => Promise.reject(new Error('401')) };
    const after = await catalog.load(failing);
    assert.equal(after.stores.length, 2);
    assert.match(after.error ?? '', /401/);
  });
});

describe('chat vector store list follows the stores tree', () => {
  const lister = (data: Array<{ id: string; name: string }>, hasMore = false) => ({ listVectorStores: async () => ({ data, hasMore }) });

  it('shows a store created or renamed at once, and drops a deleted one, without listing again', async () => {
    const catalog = new StoreCatalog();
    await catalog.load(lister([{ id: 'vs_a', name: 'alpha' }]));
    assert.equal(catalog.upsert({ id: 'vs_new', name: 'fresh' }), true);
    assert.deepEqual(
      catalog.state.stores.map((s) => s.name),
      ['fresh', 'alpha'],
      'a new store comes first',
    );
    assert.equal(catalog.upsert({ id: 'vs_a', name: 'alpha-2' }), true);
    assert.deepEqual(
      catalog.state.stores.map((s) => s.name),
      ['fresh', 'alpha-2'],
      'a rename keeps its place',
    );
    assert.equal(catalog.upsert({ id: 'vs_a', name: 'alpha-2' }), false, 'nothing new: nothing to post');
    assert.equal(catalog.remove('vs_new'), true);
    assert.deepEqual(
      catalog.state.stores.map((s) => s.id),
      ['vs_a'],
    );
    assert.equal(catalog.isGone('vs_new'), true, 'a deleted store is known to be gone');
    assert.equal(catalog.isGone('vs_a'), false);
  });

  it("takes the tree's complete list (new, renamed, gone) and only the names from a partial one", async () => {
    const catalog = new StoreCatalog();
    await catalog.load(
      lister([
        { id: 'vs_a', name: 'alpha' },
        { id: 'vs_b', name: 'beta' },
      ]),
    );
    assert.equal(catalog.state.complete, true);
    const partial = catalog.follow([{ id: 'vs_a', name: 'renamed' }], false);
    assert.equal(partial, true);
    assert.deepEqual(
      catalog.state.stores.map((s) => s.name),
      ['renamed', 'beta'],
      'a first page removes nothing',
    );
    catalog.follow(
      [
        { id: 'vs_c', name: 'demo' },
        { id: 'vs_a', name: 'renamed' },
      ],
      true,
    );
    assert.deepEqual(
      catalog.state.stores.map((s) => s.id),
      ['vs_c', 'vs_a'],
    );
    assert.equal(catalog.isGone('vs_b'), true);
    assert.equal(
      catalog.follow(
        [
          { id: 'vs_c', name: 'demo' },
          { id: 'vs_a', name: 'renamed' },
        ],
        true,
      ),
      false,
      'unchanged',
    );
  });

  it('does not call a store gone that was created elsewhere after the last list, and does once a complete list drops it', async () => {
    const catalog = new StoreCatalog();
    await catalog.load(lister([{ id: 'vs_a', name: 'alpha' }]));
    // Another user made "travel"; the chat learnt of it from a picker that lists afresh.
    assert.equal(catalog.isGone('vs_travel'), false, 'never listed here is not gone: the service decides');
    catalog.follow([{ id: 'vs_a', name: 'alpha' }], true);
    assert.equal(catalog.isGone('vs_travel'), false, "a tree's list made before it was created does not make it gone");
    catalog.follow(
      [
        { id: 'vs_travel', name: 'travel' },
        { id: 'vs_a', name: 'alpha' },
      ],
      true,
    );
    catalog.follow([{ id: 'vs_a', name: 'alpha' }], true);
    assert.equal(catalog.isGone('vs_travel'), true, 'listed, then missing from a complete list');
    await catalog.load(
      lister([
        { id: 'vs_travel', name: 'travel' },
        { id: 'vs_a', name: 'alpha' },
      ]),
    );
    assert.equal(catalog.isGone('vs_travel'), false, 'listed again: not gone');
  });

  it('does not call a store gone while only a first page of stores is known', async () => {
    const catalog = new StoreCatalog();
    await catalog.load(lister([{ id: 'vs_a', name: 'alpha' }], true));
    assert.equal(catalog.state.complete, undefined);
    assert.equal(catalog.isGone('vs_elsewhere'), false);
  });
});

describe('chat context from the search quick pick (docchat.chat.addContext)', () => {
  it('accepts a search result as the quick pick passes it, or a list of them', () => {
    const result = {
      kind: 'passage',
      storeId: 'vs_1',
      storeName: 'policies',
      fileId: 'file-1',
      filename: 'a.md',
      content: 'Ten years.',
      score: 0.8,
    };
    assert.deepEqual(parseContextArgument(result), [
      { kind: 'passage', storeId: 'vs_1', storeName: 'policies', fileId: 'file-1', filename: 'a.md', content: 'Ten years.', score: 0.8 },
    ]);
    assert.equal(parseContextArgument([result, result])?.length, 2);
    assert.deepEqual(parseContextArgument({ vector_store_id: 'vs', file_id: 'f', content: 'x' }), [
      { kind: 'passage', storeId: 'vs', fileId: 'f', content: 'x' },
    ]);
  });

  it('rejects anything that is not a passage', () => {
    for (const bad of [undefined, null, 'text', {}, { storeId: 'vs', content: 'x' }, { storeId: 'vs', fileId: 'f', content: '' }, []]) {
      assert.equal(parseContextArgument(bad), undefined, JSON.stringify(bad));
    }
  });
});
