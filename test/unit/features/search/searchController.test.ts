import * as assert from 'node:assert/strict';
import type { SearchResult } from '../../../../src/api/documents/schemas';
import { RateLimitError } from '../../../../src/api/http/errors';
import { makeSnippet, queryTerms } from '../../../../src/chatCore/snippet';
import { SearchController, searchRequest, shownResults, type SearchState } from '../../../../src/features/search/searchController';
import { attachText, startTestBackend, type TestBackend } from '../backend';
import { ManualTimers, until } from '../manualTimers';

describe('search as you type', () => {
  let backend: TestBackend;
  let storeId: string;

  before(async () => {
    backend = await startTestBackend();
    storeId = (await backend.client.createVectorStore({ name: 'search' })).id;
    await attachText(backend.client, storeId, 'kubernetes.md', '# Deploying\nUse kubectl apply to deploy the service to the cluster.');
    await attachText(backend.client, storeId, 'coffee.md', '# Coffee\nThe espresso machine is on the third floor.');
  });
  after(async () => {
    await backend?.stop();
  });

  function harness(search?: (query: string, signal: AbortSignal) => Promise<SearchResult>) {
    const timers = new ManualTimers();
    const states: SearchState<SearchResult>[] = [];
    const calls: { query: string; signal: AbortSignal }[] = [];
    const controller = new SearchController<SearchResult>({
      timers,
      debounceMs: 250,
      search: (query, signal) => {
        calls.push({ query, signal });
        return search ? search(query, signal) : backend.client.search(storeId, { query }, { signal });
      },
      onState: (s) => states.push(s),
      retryAfterMs: (e) => (e instanceof RateLimitError ? (e.retryAfterMs ?? 1000) : undefined),
    });
    return { timers, states, calls, controller };
  }

  it('sends one request for a burst of keystrokes, after the debounce, for the last query', async () => {
    const { timers, states, calls, controller } = harness();
    for (const text of ['e', 'es', 'esp', 'espresso']) {
      controller.setQuery(text);
    }
    assert.equal(calls.length, 0, 'nothing is sent while typing');
    assert.deepEqual(timers.delays(), [250], 'one debounce timer, restarted on each keystroke');
    timers.fireAll();
    await until(() => states.at(-1)?.kind === 'results');
    assert.deepEqual(
      calls.map((c) => c.query),
      ['espresso'],
    );
    const last = states.at(-1) as Extract<SearchState<SearchResult>, { kind: 'results' }>;
    assert.equal(last.query, 'espresso');
    assert.ok(last.result.data.length > 0);
    assert.ok(last.result.data[0]!.content.includes('espresso'));
    controller.dispose();
  });

  it('aborts the request in flight when the query changes and never shows its answer', async () => {
    let releaseFirst!: () => void;
    const firstGate = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstAnswer: Promise<SearchResult> | undefined;
    const { timers, states, calls, controller } = harness((query, signal) => {
      if (query !== 'kubectl') return backend.client.search(storeId, { query }, { signal });
      // The slow, first request: it ignores the abort and answers after the second one.
      firstAnswer = firstGate.then(() => backend.client.search(storeId, { query }));
      return firstAnswer;
    });
    controller.setQuery('kubectl');
    timers.fireAll();
    await until(() => calls.length === 1);
    controller.setQuery('espresso');
    assert.equal(calls[0]!.signal.aborted, true, 'the first request is aborted as soon as the query changes');
    timers.fireAll();
    await until(() => states.some((s) => s.kind === 'results'));
    releaseFirst();
    // The controller awaited this answer before the test did, so it has handled it once this resolves.
    const stale = await firstAnswer!;
    assert.ok(
      stale.data.some((d) => d.content.includes('kubectl')),
      'the stale request did answer',
    );
    await new Promise((resolve) => setImmediate(resolve));
    const results = states.filter((s): s is Extract<SearchState<SearchResult>, { kind: 'results' }> => s.kind === 'results');
    assert.deepEqual(
      results.map((r) => r.query),
      ['espresso'],
      'only the current query ever shows results',
    );
    assert.ok(results[0]!.result.data.every((d) => !d.content.includes('kubectl')));
    controller.dispose();
  });

  it('goes idle on an empty query and ignores a repeated query', async () => {
    const { timers, states, calls, controller } = harness();
    controller.setQuery('espresso');
    controller.setQuery('espresso ');
    assert.equal(timers.count, 1);
    controller.setQuery('');
    assert.equal(timers.count, 0);
    assert.equal(states.at(-1)?.kind, 'idle');
    assert.equal(calls.length, 0);
    controller.dispose();
  });

  it('waits as long as a 429 asks and retries the same query', async () => {
    let attempts = 0;
    const { timers, states, calls, controller } = harness(async (query, signal) => {
      attempts++;
      if (attempts === 1) {
        throw new RateLimitError('Too many searches.', { retryAfterMs: 7000 });
      }
      return backend.client.search(storeId, { query }, { signal });
    });
    controller.setQuery('floor');
    timers.fireAll();
    await until(() => states.at(-1)?.kind === 'waiting');
    assert.deepEqual(states.at(-1), { kind: 'waiting', query: 'floor', waitMs: 7000 });
    assert.deepEqual(timers.delays(), [7000]);
    timers.fireAll();
    await until(() => states.at(-1)?.kind === 'results');
    assert.deepEqual(
      calls.map((c) => c.query),
      ['floor', 'floor'],
    );
    controller.dispose();
  });

  it('reports other errors (a query over the limit is refused before sending)', async () => {
    const { timers, states, controller } = harness();
    controller.setQuery('x'.repeat(10_001));
    timers.fireAll();
    await until(() => states.at(-1)?.kind === 'error');
    const last = states.at(-1) as Extract<SearchState<SearchResult>, { kind: 'error' }>;
    assert.match(String((last.error as Error).message), /10,000/);
    controller.dispose();
  });

  it("restricts to chosen files: the quick pick's request, through the controller and the real service", async () => {
    // The quick pick (searchPicker.ts) needs VS Code; what it sends is searchRequest(), used here
    // as the picker uses it, for a query both files match.
    const files = await backend.client.listVectorStoreFiles(storeId);
    const names = new Map((await backend.client.listFiles()).data.map((f) => [f.id, f.filename]));
    const coffee = files.data.find((f) => names.get(f.id) === 'coffee.md')!;
    const { timers, states, controller } = harness((query, signal) =>
      backend.client.search(storeId, searchRequest(query, 10, [{ id: coffee.id }]), { signal }),
    );
    controller.setQuery('deploy espresso');
    timers.fireAll();
    await until(() => states.at(-1)?.kind === 'results');
    const restricted = (states.at(-1) as Extract<SearchState<SearchResult>, { kind: 'results' }>).result;
    assert.deepEqual([...new Set(restricted.data.map((d) => d.file_id))], [coffee.id]);
    const unrestricted = await backend.client.search(storeId, searchRequest('deploy espresso', 10, []));
    assert.equal(new Set(unrestricted.data.map((d) => d.file_id)).size, 2, 'without a restriction both files match');
    controller.dispose();
  });
});

describe('result snippets', () => {
  it('centres the excerpt on the first matching term and marks the match', () => {
    const content = `${'lorem ipsum '.repeat(40)}the espresso machine is on the third floor ${'dolor sit '.repeat(40)}`;
    const s = makeSnippet(content, 'Espresso machine', 80);
    assert.ok(s.text.startsWith('…') && s.text.endsWith('…'));
    assert.ok(s.match);
    assert.equal(s.text.slice(s.match.start, s.match.end), 'espresso');
    assert.ok(s.text.length <= 82);
  });

  it('collapses whitespace and truncates when nothing matches', () => {
    const s = makeSnippet('a\n\n  b\tc', 'zzz');
    assert.equal(s.text, 'a b c');
    assert.equal(s.match, undefined);
    assert.deepEqual(queryTerms('How to deploy a service?'), ['service', 'deploy', 'how', 'to']);
  });
});

describe('search quick pick rows', () => {
  const row = (file_id: string, content: string, score: number) => ({ file_id, content, score });

  it('shows a passage returned twice once, and leaves out the matches far below the best, saying how many', () => {
    const { shown, hidden } = shownResults([
      row('f1', 'Sync a folder with DocChat: Sync Folder.', 0.62),
      row('f1', 'Sync a folder with  DocChat: Sync Folder.\n', 0.61),
      row('f2', 'Attach files from the Explorer.', 0.48),
      row('f3', '| VS Code | 1.104 | 1.139 |', 0.1),
    ]);
    assert.deepEqual(
      shown.map((r) => r.file_id),
      ['f1', 'f2'],
    );
    assert.equal(hidden, 1);
  });

  it('shows two overlapping passages of one file once when their rows would read the same, keeping the better', () => {
    // Chunks of one section repeat the end of the previous chunk: a match inside that overlap
    // gives both the same excerpt.
    const overlap = [
      '| `docchat.chat.defaultModel` | empty | the model a new chat starts with |',
      '| `docchat.search.maxResults` | `10` | how many results a search asks for |',
      '| `docchat.sync.exclude` | empty | globs a folder sync leaves out, beside .gitignore |',
      '| `docchat.sync.watch` | `false` | re-sync a followed folder when its files are saved |',
    ].join('\n');
    const first = `## Settings\n\nEvery setting of DocChat, its default and what it does.\n\n${overlap}`;
    const second = `${overlap}\n\n## Troubleshooting\n\nWhat to do when something goes wrong.`;
    const { shown } = shownResults([row('f1', first, 0.76), row('f1', second, 0.49), row('f2', overlap, 0.45)], 'maxResults');
    assert.deepEqual(
      shown.map((r) => [r.file_id, r.score]),
      [
        ['f1', 0.76],
        ['f2', 0.45],
      ],
    );
    const other = shownResults([row('f1', first, 0.76), row('f1', second, 0.49)], 'Every setting');
    assert.equal(other.shown.length, 2, 'rows that read differently both stay');
  });

  it('judges the scores relative to the best of the search, whatever their scale', () => {
    const scaled = (k: number) => shownResults([row('a', 'x', 0.62 * k), row('b', 'y', 0.48 * k), row('c', 'z', 0.1 * k)]);
    for (const k of [1, 10, 0.01]) {
      assert.deepEqual(
        scaled(k).shown.map((r) => r.file_id),
        ['a', 'b'],
        `scores times ${k}`,
      );
    }
    assert.equal(shownResults([row('a', 'x', 0.1), row('b', 'y', 0.09)]).hidden, 0, 'a weak search keeps its close matches');
  });
});
