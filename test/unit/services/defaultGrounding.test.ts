import * as assert from 'node:assert/strict';
import { defaultGrounding, GroundingMemory, participantStores, type GroundingChoice } from '../../../src/services/defaultGrounding';
import { localUpstream } from '../../../src/services/localUpstream';

// The one rule the chat panel and @docchat follow for a new chat's grounding.

const handbook = { id: 'vs_1', name: 'handbook' };
const specs = { id: 'vs_2', name: 'specs' };
const remembered = (store: { id: string; name: string }): GroundingChoice => ({ kind: 'store', store });

class MemoryState {
  readonly data = new Map<string, unknown>();
  get<T>(key: string) {
    return this.data.get(key) as T | undefined;
  }
  async update(key: string, value: unknown) {
    this.data.set(key, value);
  }
}

describe('default grounding rule', () => {
  it('grounds in the only store when nothing was chosen in this workspace', () => {
    assert.deepEqual(defaultGrounding(undefined, [handbook]), handbook);
  });

  it('grounds in nothing when there are several stores and nothing was chosen', () => {
    assert.equal(defaultGrounding(undefined, [handbook, specs]), undefined);
    assert.equal(defaultGrounding(undefined, []), undefined);
  });

  it('grounds in the store chosen last, among several', () => {
    assert.deepEqual(defaultGrounding(remembered(specs), [handbook, specs]), specs);
  });

  it('keeps the store chosen last while the list is not known', () => {
    assert.deepEqual(defaultGrounding(remembered(specs), undefined), specs);
    assert.equal(defaultGrounding(undefined, undefined), undefined);
  });

  it('takes the listed name of the remembered store (it may have been renamed)', () => {
    assert.deepEqual(defaultGrounding(remembered({ id: 'vs_2', name: 'old name' }), [handbook, specs]), specs);
  });

  it('falls back to the only store when the remembered one is gone', () => {
    assert.deepEqual(defaultGrounding(remembered({ id: 'vs_gone', name: 'gone' }), [handbook]), handbook);
    assert.equal(defaultGrounding(remembered({ id: 'vs_gone', name: 'gone' }), [handbook, specs]), undefined);
  });

  it('falls back to the most recently used store that still exists when the remembered one is gone', () => {
    const demo = { id: 'vs_3', name: 'demo' };
    // The chat's store was deleted; demo and specs remain, demo used more recently than specs.
    assert.deepEqual(
      defaultGrounding(remembered({ id: 'vs_gone', name: 'gone' }), [specs, handbook, demo], ['vs_gone', 'vs_3', 'vs_2']),
      demo,
    );
    // Recently used stores that are gone too are skipped; none left: the only store.
    assert.deepEqual(defaultGrounding(remembered({ id: 'vs_gone', name: 'gone' }), [handbook], ['vs_gone', 'vs_old']), handbook);
    // Several stores, none of them used recently: the user picks.
    assert.equal(defaultGrounding(remembered({ id: 'vs_gone', name: 'gone' }), [handbook, specs], ['vs_gone']), undefined);
    // No store left at all: no grounding.
    assert.equal(defaultGrounding(remembered({ id: 'vs_gone', name: 'gone' }), [], ['vs_gone', 'vs_1']), undefined);
  });

  it('takes the most recently used store when nothing was chosen in this workspace, the remembered one otherwise', () => {
    assert.deepEqual(defaultGrounding(undefined, [handbook, specs], ['vs_2', 'vs_1']), specs);
    assert.deepEqual(defaultGrounding(remembered(handbook), [handbook, specs], ['vs_2', 'vs_1']), handbook);
    // While the list is not known, a recently used store cannot be told to exist.
    assert.equal(defaultGrounding(undefined, undefined, ['vs_2']), undefined);
  });

  it('respects "No grounding" chosen last, even with a single store', () => {
    assert.equal(defaultGrounding({ kind: 'none' }, [handbook, specs], ['vs_2']), undefined);
    assert.equal(defaultGrounding({ kind: 'none' }, [handbook]), undefined);
  });

  it('remembers the choice per workspace memento, "No grounding" included', async () => {
    const state = new MemoryState();
    const memory = new GroundingMemory(state);
    assert.equal(memory.choice, undefined);
    assert.deepEqual(memory.resolve([handbook]), handbook);
    await memory.remember(specs);
    assert.deepEqual(memory.resolve([handbook, specs]), specs);
    // The remembered store deleted since: the most recently used one left.
    assert.deepEqual(memory.resolve([handbook], ['vs_2', 'vs_1']), handbook);
    await memory.remember(undefined);
    assert.deepEqual(memory.choice, { kind: 'none' });
    assert.equal(memory.resolve([handbook]), undefined);
    // Another workspace (another memento) does not see it.
    assert.deepEqual(new GroundingMemory(new MemoryState()).resolve([handbook]), handbook);
    // A damaged entry is ignored, not trusted.
    state.data.set('docchat.grounding.lastChoice', { kind: 'store', store: { id: 42 } });
    assert.equal(memory.choice, undefined);
  });
});

describe('local backend upstream', () => {
  const settings = { embeddingModel: '' };
  const server = { url: 'http://127.0.0.1:11434/v1', key: 'k' };

  it('forwards chat to the chosen language-model server when Local mode serves the gateway', () => {
    assert.deepEqual(localUpstream('local', settings, server), { url: server.url, key: 'k' });
    assert.deepEqual(localUpstream('local', settings, { url: server.url }), { url: server.url });
  });

  it('has no upstream without a chosen server', () => {
    assert.equal(localUpstream('local', settings, undefined), undefined);
  });

  it('keeps the company gateway (hybrid search) when one is configured beside Local mode', () => {
    assert.deepEqual(localUpstream({ url: 'https://llm.example.com', token: 't' }, settings, server), {
      url: 'https://llm.example.com',
      key: 't',
      embeddingModel: 'text-embed-3-small',
      embedPath: '/embed',
    });
  });
});

describe('the stores @docchat answers from', () => {
  const runbooks = { id: 'vs_3', name: 'runbooks' };

  it("answers from the DocChat chat's current stores, even with several stores and nothing remembered", () => {
    assert.deepEqual(participantStores([specs], undefined, [], [handbook, specs]), [specs]);
    assert.deepEqual(participantStores([specs, handbook], handbook, [handbook], [handbook, specs]), [specs, handbook]);
  });

  it("takes the chat's names from a fresh list, and leaves out the chat's stores a known list no longer has", () => {
    assert.deepEqual(participantStores([{ id: 'vs_2', name: 'old name' }], undefined, [], [specs]), [specs]);
    assert.deepEqual(participantStores([runbooks, specs], undefined, [], [handbook, specs]), [specs]);
    assert.deepEqual(participantStores([runbooks], undefined, [], undefined), [runbooks], 'an unknown list keeps them');
  });

  it('falls back to the default-grounding rule when the chat has no store (not used, no grounding, or its stores are gone)', () => {
    assert.deepEqual(participantStores(undefined, handbook, [], [handbook, specs]), [handbook]);
    assert.deepEqual(participantStores([], handbook, [], [handbook, specs]), [handbook]);
    assert.deepEqual(participantStores([runbooks], handbook, [], [handbook, specs]), [handbook]);
    assert.deepEqual(participantStores(undefined, undefined, [], [handbook, specs]), []);
  });

  it('keeps the stores chosen with /store while the rule still starts with them', () => {
    assert.deepEqual(participantStores(undefined, handbook, [handbook, specs], [handbook, specs]), [handbook, specs]);
    assert.deepEqual(participantStores(undefined, specs, [handbook, specs], [handbook, specs]), [specs]);
  });
});
