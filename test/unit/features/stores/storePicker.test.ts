/**
 * The multi-select store picker ("Choose a Store"): Enter with nothing ticked and nothing
 * highlighted does not silently choose no store. Here with a fake `vscode` whose quick pick the
 * test drives as a user would.
 */
import * as assert from 'node:assert/strict';
import { fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';
import { FakeQuickPick } from './fakeQuickPick';

const STORES: Array<{ id: string; name: string; object: string; created_at: number; file_counts?: { total: number } }> = [
  { id: 'vs_handbook', name: 'handbook', object: 'vector_store', created_at: 1_700_000_000 },
  { id: 'vs_notes', name: 'notes', object: 'vector_store', created_at: 1_700_000_000 },
];

describe('choosing stores in the multi-select picker', () => {
  let scope: ReturnType<typeof useFakeVscode>;
  let pickStores: typeof import('../../../../src/features/stores/storePicker').pickStores;
  let picker: FakeQuickPick;
  let listed: () => void;
  let stores: typeof STORES;

  before(() => {
    scope = useFakeVscode(
      fakeVscodeApi({
        window: {
          createQuickPick: () => (picker = new FakeQuickPick()),
        },
      }),
    );
    ({ pickStores } = scope.load<typeof import('../../../../src/features/stores/storePicker')>(
      require.resolve('../../../../src/features/stores/storePicker'),
    ));
  });
  after(() => scope.dispose());

  const services = () =>
    ({
      connection: {
        documents: {
          listVectorStores: async () => {
            listed();
            return { object: 'list', data: stores, has_more: false };
          },
        },
      },
      recentStores: { list: () => [], sort: <T>(data: readonly T[]) => [...data], touch: async () => undefined },
    }) as never;

  /** Opens the picker; resolves (with what the picker will resolve) once it lists the stores. */
  async function open(selected: string[]): Promise<{ result: Promise<Array<{ id: string }> | undefined> }> {
    const shown = new Promise<void>((resolve) => (listed = resolve));
    const result = pickStores(services(), { title: 'Choose', selected });
    await shown;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(picker.busy, false, 'the stores are listed');
    return { result };
  }

  for (const count of [1, 2]) {
    it(`stays open and says how to tick a store on Enter with nothing ticked or highlighted (${count} store${count > 1 ? 's' : ''})`, async () => {
      stores = STORES.slice(0, count);
      // The chat's store was deleted: nothing is ticked, and a multi-select picker highlights nothing.
      const { result } = await open(['vs_deleted']);
      const settled = { done: false };
      void result.then(() => (settled.done = true));
      picker.accept.fire();
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(settled.done, false, 'Enter did not choose "no store"');
      assert.equal(picker.visible, true);
      assert.match(picker.title ?? '', /^Nothing is ticked: press Down, then Space to tick a store, then Enter$/);
      assert.equal(picker.placeholder, '', 'the hint is said once (screen readers read the placeholder and the title)');
      // The user ticks a store, then presses Enter.
      picker.selectedItems = [picker.items[0]!];
      picker.accept.fire();
      assert.deepEqual(
        (await result)?.map((s) => s.id),
        ['vs_handbook'],
      );
    });
  }

  it('says how to tick a store in the title, which filter text does not hide (it hides the placeholder), and keeps the text', async () => {
    stores = STORES;
    const { result } = await open(['vs_deleted']);
    assert.equal(picker.title, 'Choose');
    // The user types to find a store, then presses Enter without ticking it.
    picker.value = 'hand';
    picker.accept.fire();
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(picker.visible, true);
    assert.equal(picker.title, 'Nothing is ticked: press Down, then Space to tick a store, then Enter');
    assert.equal(picker.value, 'hand', 'the typed text stays');
    // Ticking a store brings the picker's own title and placeholder back; Enter then takes it.
    picker.tick(picker.items[0]!);
    assert.equal(picker.title, 'Choose');
    assert.equal(picker.placeholder, 'Press Down, then Space to tick each store to search, then Enter');
    picker.accept.fire();
    assert.deepEqual(
      (await result)?.map((s) => s.id),
      ['vs_handbook'],
    );
  });

  const NO_MATCH = (text: string) => `No store matches “${text}”: clear the filter text to list every store`;

  it('says when the filter text matches no store, naming the text and how to list them again', async () => {
    stores = STORES;
    const { result } = await open([]);
    picker.type('zzz');
    assert.equal(picker.title, NO_MATCH('zzz'));
    assert.equal(picker.placeholder, 'Press Down, then Space to tick each store to search, then Enter', 'the placeholder is kept');
    picker.type('  zzz q ');
    assert.equal(picker.title, NO_MATCH('zzz q'), 'the text as VS Code filters by it (trimmed)');
    // Text VS Code's filter matches: part of a name in any case, a wildcard, the description.
    for (const text of ['HAND', 'oTe', 'h*k', new Date(1_700_000_000_000).getFullYear().toString()]) {
      picker.type(text);
      assert.equal(picker.title, 'Choose', text);
    }
    // Long text is cut short, so that what to do next still shows in a narrow window.
    picker.type('a store name nobody ever gave to any store');
    assert.equal(picker.title, NO_MATCH('a store name nobody eve…'));
    picker.type('zzz');
    picker.type('');
    assert.equal(picker.title, 'Choose', 'clearing the text brings the title back');
    picker.hide();
    await result;
  });

  it('says so for text typed while the stores are still listed, once they are', async () => {
    stores = STORES;
    let listedNow = () => undefined as void;
    const held = new Promise<void>((resolve) => (listedNow = resolve));
    const slow = {
      connection: {
        documents: {
          listVectorStores: async () => {
            await held;
            return { object: 'list', data: stores, has_more: false };
          },
        },
      },
      recentStores: { list: () => [], sort: <T>(data: readonly T[]) => [...data], touch: async () => undefined },
    } as never;
    const result = pickStores(slow, { title: 'Choose', selected: [] });
    picker.type('zzz');
    assert.equal(picker.title, 'Choose', 'no stores listed yet: nothing to say');
    listedNow();
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(picker.busy, false);
    assert.equal(picker.title, NO_MATCH('zzz'));
    picker.hide();
    await result;
  });

  it('puts "no store matches" before "nothing is ticked", and says the latter once the text is cleared', async () => {
    stores = STORES;
    const { result } = await open(['vs_deleted']);
    picker.type('zzz');
    picker.accept.fire();
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(picker.visible, true);
    assert.equal(picker.title, NO_MATCH('zzz'), 'nothing to tick among the stores shown');
    picker.type('');
    assert.equal(picker.title, 'Nothing is ticked: press Down, then Space to tick a store, then Enter');
    picker.tick(picker.items[1]!);
    assert.equal(picker.title, 'Choose');
    picker.accept.fire();
    assert.deepEqual(
      (await result)?.map((s) => s.id),
      ['vs_notes'],
    );
  });

  it('tells stores apart by how many files they hold, when the service counts them', async () => {
    stores = [
      { ...STORES[0]!, file_counts: { total: 12 } },
      { ...STORES[1]!, file_counts: { total: 1 } },
      { id: 'vs_old', name: 'old', object: 'vector_store', created_at: 1_700_000_000 },
    ];
    const { result } = await open([]);
    const described = picker.items.filter((item) => item.store).map((item) => item.description ?? '');
    const date = described[2]!;
    assert.match(date, /^\d{4}-\d{2}-\d{2}$/, 'a store without counts shows its date only');
    assert.deepEqual(described, [`12 files · ${date}`, `1 file · ${date}`, date]);
    picker.hide();
    await result;
  });

  it('takes the highlighted store on Enter with nothing ticked', async () => {
    stores = STORES;
    const { result } = await open([]);
    picker.activeItems = [picker.items[1]!];
    picker.accept.fire();
    assert.deepEqual(
      (await result)?.map((s) => s.id),
      ['vs_notes'],
    );
  });

  it('takes no store when the user unticked the ones ticked at first', async () => {
    stores = STORES;
    const { result } = await open(['vs_notes']);
    assert.deepEqual(
      picker.selectedItems.map((i) => i.store?.id),
      ['vs_notes'],
    );
    picker.selectedItems = [];
    picker.accept.fire();
    assert.deepEqual(await result, []);
  });

  it('changes nothing on Escape', async () => {
    stores = STORES;
    const { result } = await open([]);
    picker.hide();
    assert.equal(await result, undefined);
  });
});
