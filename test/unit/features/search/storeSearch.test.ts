/**
 * The search of one store in the quick pick: what it sends the picker on the way from a keystroke
 * to the results (each assignment is a message to the workbench, which draws the list again), and
 * what it asks the documents service besides the search. A fake `vscode`, a fake client.
 */
import * as assert from 'node:assert/strict';
import { fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

type Item = { label: string; description?: string; detail?: string; iconPath?: { id?: string } };

/** Records every assignment of `items` and `busy`, as the extension host would send each one on. */
class RecordingPicker {
  readonly sent: string[] = [];
  private _items: Item[] = [];
  private _busy = false;
  get items(): Item[] {
    return this._items;
  }
  set items(items: Item[]) {
    this._items = items;
    // A status row's icon is its iconPath, never `$(…)` in the label a screen reader speaks.
    this.sent.push(`items: ${items.map((i) => (i.iconPath?.id ? `[${i.iconPath.id}] ` : '') + (i.description || i.label)).join(' | ')}`);
  }
  get busy(): boolean {
    return this._busy;
  }
  set busy(busy: boolean) {
    this._busy = busy;
    this.sent.push(`busy: ${busy}`);
  }
}

/** Settles once `holds` is true, checking after each turn of the event loop. */
function until(holds: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => (holds() ? resolve() : setImmediate(check));
    check();
  });
}

const store = { id: 'vs_demo', name: 'demo', created_at: 0, status: 'completed' };

describe('store search in the quick pick', () => {
  let scope: ReturnType<typeof useFakeVscode>;
  let StoreSearch: typeof import('../../../../src/features/search/storeSearch').StoreSearch;

  before(() => {
    scope = useFakeVscode(
      fakeVscodeApi({
        ThemeIcon: class {
          constructor(readonly id: string) {}
        },
      }),
    );
    ({ StoreSearch } = scope.load<typeof import('../../../../src/features/search/storeSearch')>(
      require.resolve('../../../../src/features/search/storeSearch'),
    ));
  });
  after(() => scope.dispose());

  /** `listed`: the files the files list holds; `lost`: retrievals that fail before one succeeds. */
  function services(options: { listed?: boolean; lost?: number } = {}) {
    const { listed = true } = options;
    let lost = options.lost ?? 0;
    const calls = { search: 0, listFiles: 0, retrieveFile: 0 };
    const documents = {
      search: async (_id: string, request: { query: string }) => {
        calls.search++;
        return { data: [{ file_id: 'file-1', filename: 'file-1', score: 0.9, content: `About ${request.query}.` }] };
      },
      listFiles: async () => {
        calls.listFiles++;
        return listed
          ? { data: [{ id: 'file-1', filename: 'retention.md' }], hasMore: false, lastId: 'file-1' }
          : { data: [], hasMore: false, lastId: null };
      },
      retrieveFile: async (id: string) => {
        calls.retrieveFile++;
        if (lost-- > 0) throw new Error('connection reset');
        return { id, filename: 'retention.md' };
      },
    };
    const value = {
      connection: { documents },
      config: { current: { searchMaxResults: 10 } },
      rateLimits: { secondsLeft: () => 0, report: () => undefined, onDidChange: () => ({ dispose() {} }) },
      log: { warn: () => undefined, error: () => undefined },
    };
    return { value: value as never, calls };
  }

  const results = (picker: RecordingPicker) => picker.items.some((i) => i.description?.startsWith('retention.md'));

  it('sends the picker the "Searching…" row once per query, not again when the search starts, and busy only when it changes', async () => {
    const s = services();
    const picker = new RecordingPicker();
    const search = new StoreSearch(
      s.value,
      picker as never,
      store as never,
      () => [],
      () => false,
    );
    search.setQuery('invoices');
    assert.deepEqual(picker.sent, ['busy: true', 'items: [loading~spin] Searching for "invoices"…']);
    await until(() => results(picker));
    assert.deepEqual(picker.sent.slice(2), ['busy: false', 'items: [file] retention.md · score 0.90']);
    search.dispose();
  });

  it('names the files of the results without listing the files again at the next search of the same connection', async () => {
    const s = services();
    for (const query of ['invoices', 'contracts']) {
      const picker = new RecordingPicker();
      const search = new StoreSearch(
        s.value,
        picker as never,
        store as never,
        () => [],
        () => false,
      );
      search.setQuery(query);
      await until(() => results(picker));
      search.dispose();
    }
    assert.equal(s.calls.search, 2);
    assert.equal(s.calls.listFiles, 1, 'the files list is read once for the connection');
    assert.equal(s.calls.retrieveFile, 0);
  });

  it('asks again, at the next search, for a file name it could not get before', async () => {
    const s = services({ listed: false, lost: 1 });
    const shown: string[] = [];
    for (const query of ['invoices', 'contracts']) {
      const picker = new RecordingPicker();
      const search = new StoreSearch(
        s.value,
        picker as never,
        store as never,
        () => [],
        () => false,
      );
      search.setQuery(query);
      await until(() => picker.items.some((i) => i.description?.includes('score')));
      shown.push(picker.items[0]!.description!);
      search.dispose();
    }
    assert.deepEqual(shown, ['file-1 · score 0.90', 'retention.md · score 0.90']);
  });
});
