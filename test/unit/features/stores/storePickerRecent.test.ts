/**
 * Store pickers show the recently used stores as VS Code's Command Palette shows recent commands:
 * first, under one "recently used" separator, the others under "other stores"; no store carries a
 * "recently used" label of its own. Here with a fake `vscode` whose quick pick the test reads.
 */
import * as assert from 'node:assert/strict';
import { fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';
import { FakeQuickPick } from './fakeQuickPick';

const SEPARATOR = -1;

const STORES = [
  { id: 'vs_demo', name: 'demo', object: 'vector_store', created_at: 1_700_000_000 },
  { id: 'vs_walk', name: 'walk46', object: 'vector_store', created_at: 1_700_000_000 },
  { id: 'vs_old', name: 'archive', object: 'vector_store', created_at: 1_700_000_000 },
];

describe('recently used stores in the store pickers', () => {
  let scope: ReturnType<typeof useFakeVscode>;
  let pickers: typeof import('../../../../src/features/stores/storePicker');
  let picker: FakeQuickPick;

  before(() => {
    scope = useFakeVscode(
      fakeVscodeApi({
        QuickPickItemKind: { Separator: SEPARATOR, Default: 0 },
        window: { createQuickPick: () => (picker = new FakeQuickPick()) },
      }),
    );
    pickers = scope.load<typeof import('../../../../src/features/stores/storePicker')>(
      require.resolve('../../../../src/features/stores/storePicker'),
    );
  });
  after(() => scope.dispose());

  /** Services whose recently used stores are `recent` (newest first). */
  const services = (recent: string[]) =>
    ({
      connection: { documents: { listVectorStores: async () => ({ object: 'list', data: STORES, has_more: false }) } },
      recentStores: {
        list: () => recent,
        sort: <T extends { id: string }>(data: readonly T[]) =>
          [...data].sort((a, b) => (recent.indexOf(a.id) + 1 || 99) - (recent.indexOf(b.id) + 1 || 99)),
        touch: async () => undefined,
      },
    }) as never;

  /** What the picker lists: a separator as `-- label --`, a store by its name. */
  async function listed(open: () => Promise<unknown>): Promise<string[]> {
    const result = open();
    await new Promise<void>((resolve) => {
      const check = () => (picker && !picker.busy ? resolve() : setImmediate(check));
      setImmediate(check);
    });
    const rows = picker.items.map((item) => (item.kind === SEPARATOR ? `-- ${item.label} --` : item.store ? item.store.name : item.label));
    assert.ok(
      picker.items.every((item) => !/recently used/.test(item.description ?? '')),
      'no store carries a "recently used" label',
    );
    picker.hide();
    await result;
    return rows;
  }

  it('groups the recent stores under one "recently used" separator, the others under "other stores"', async () => {
    const rows = await listed(() => pickers.pickStore(services(['vs_walk', 'vs_demo']), { title: 'Attach' }));
    assert.deepEqual(rows, ['-- recently used --', 'walk46', 'demo', '-- other stores --', 'archive']);
  });

  it('has no separator when no store was used recently, and keeps Create Vector Store… apart from the groups', async () => {
    assert.deepEqual(await listed(() => pickers.pickStore(services([]), { title: 'Attach' })), ['demo', 'walk46', 'archive']);
    const withCreate = await listed(() =>
      pickers.pickStore(services(['vs_demo', 'vs_walk', 'vs_old']), { title: 'Attach', create: async () => undefined }),
    );
    assert.deepEqual(withCreate, ['-- recently used --', 'demo', 'walk46', 'archive', '--  --', '$(add) Create Vector Store…']);
  });

  it('groups them the same way in the multi-select picker', async () => {
    const rows = await listed(() => pickers.pickStores(services(['vs_old']), { title: 'Choose', selected: ['vs_old'] }));
    assert.deepEqual(rows, ['-- recently used --', 'archive', '-- other stores --', 'demo', 'walk46']);
    assert.deepEqual(
      picker.selectedItems.map((item) => item.store?.id),
      ['vs_old'],
    );
  });
});
