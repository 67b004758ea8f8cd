/**
 * The search quick pick shows at once, before DocChat connects or lists the stores, so what the
 * user types right after the command goes into it; the store is chosen inside the same quick pick.
 * Here with a fake `vscode` and a fake documents client whose answers the test releases.
 */
import * as assert from 'node:assert/strict';
import { FakeEventEmitter, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

type Item = { label: string; detail?: string; store?: { id: string; name: string } };

class FakeQuickPick {
  title: string | undefined;
  placeholder: string | undefined;
  step: number | undefined;
  totalSteps: number | undefined;
  busy = false;
  items: Item[] = [];
  buttons: unknown[] = [];
  selectedItems: Item[] = [];
  activeItems: Item[] = [];
  matchOnDescription = false;
  matchOnDetail = false;
  ignoreFocusOut = false;
  shown = false;
  private _value = '';
  readonly valueChanged = new FakeEventEmitter<string>();
  readonly accept = new FakeEventEmitter<void>();
  readonly hide_ = new FakeEventEmitter<void>();
  readonly onDidChangeValue = this.valueChanged.event;
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hide_.event;
  readonly button = new FakeEventEmitter<unknown>();
  readonly onDidTriggerButton = this.button.event;
  readonly onDidTriggerItemButton = new FakeEventEmitter<unknown>().event;
  get value() {
    return this._value;
  }
  set value(value: string) {
    this._value = value;
  }
  /** What the user types: the value changes and the picker hears it. */
  type(text: string) {
    this._value += text;
    this.valueChanged.fire(this._value);
  }
  show() {
    this.shown = true;
  }
  hide() {
    if (!this.shown) return;
    this.shown = false;
    this.hide_.fire();
  }
  dispose() {}
}

/** A promise and the function that settles it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const BACK = { iconPath: 'back' };

/** Settles once `holds` is true, checking after each turn of the event loop. */
function until(holds: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => (holds() ? resolve() : setImmediate(check));
    check();
  });
}

function fakeVscode(pickers: FakeQuickPick[]) {
  return fakeVscodeApi({
    ThemeIcon: class {
      constructor(readonly id: string) {}
    },
    QuickInputButtons: { Back: BACK },
    window: {
      createQuickPick: () => {
        const picker = new FakeQuickPick();
        pickers.push(picker);
        return picker;
      },
      setStatusBarMessage: () => ({ dispose() {} }),
    },
    commands: { getCommands: async () => [], executeCommand: async () => undefined },
  });
}

const demo = { id: 'vs_demo', name: 'demo', created_at: 0, status: 'completed' };
const handbook = { id: 'vs_hb', name: 'handbook', created_at: 0, status: 'completed' };

describe('search quick pick', () => {
  const pickers: FakeQuickPick[] = [];
  let scope: ReturnType<typeof useFakeVscode>;
  let showSearchPicker: typeof import('../../../../src/features/search/searchPicker').showSearchPicker;

  before(() => {
    scope = useFakeVscode(fakeVscode(pickers));
    ({ showSearchPicker } = scope.load<typeof import('../../../../src/features/search/searchPicker')>(
      require.resolve('../../../../src/features/search/searchPicker'),
    ));
  });
  after(() => scope.dispose());
  beforeEach(() => (pickers.length = 0));

  /** Services whose connection and store list wait until the test releases them (or fail as it says). */
  function services(
    stores: (typeof demo)[],
    failures: { connect?: Error; list?: (Error | undefined)[]; search?: Map<string, Error> } = {},
  ) {
    const connected = deferred<void>();
    const listed = deferred<void>();
    const reported: { failure: string; error: unknown; retry?: () => unknown }[] = [];
    const searched = deferred<string>();
    const documents = {
      listVectorStores: async () => {
        await listed.promise;
        const failure = failures.list?.shift();
        if (failure) throw failure;
        return { data: stores, hasMore: false };
      },
      search: async (id: string, request: { query: string }) => {
        const failure = failures.search?.get(id);
        if (failure) throw failure;
        searched.resolve(request.query);
        return { data: [] };
      },
      listFiles: async () => ({ data: [], hasMore: false }),
    };
    const value = {
      connection: {
        documents,
        use: async () => {
          await connected.promise;
          const failure = failures.connect;
          failures.connect = undefined;
          if (failure) throw failure;
        },
      },
      config: { current: { searchMaxResults: 10 } },
      recentStores: { list: () => [], sort: <T>(items: T[]) => items, touch: async () => undefined },
      rateLimits: { secondsLeft: () => 0, report: () => undefined, onDidChange: () => ({ dispose() {} }) },
      log: { warn: () => undefined, error: () => undefined },
      errors: {
        report: (error: unknown, failure: string, options: { retry?: () => unknown } = {}) =>
          reported.push({ error, failure, ...(options.retry ? { retry: options.retry } : {}) }),
      },
    };
    return { value: value as never, connected, listed, searched, reported };
  }

  it('shows at once, before connecting or listing, and searches the only store for what was typed meanwhile', async () => {
    const s = services([demo]);
    const done = showSearchPicker(s.value, {} as never, {});
    const picker = pickers[0]!;
    assert.equal(picker.shown, true, 'shown before anything is awaited');
    assert.equal(picker.busy, true);
    assert.equal(picker.title, 'DocChat: Search a Vector Store');
    picker.type('folder sync');
    s.connected.resolve();
    s.listed.resolve();
    assert.equal(await s.searched.promise, 'folder sync');
    assert.equal(picker.title, 'Search "demo"');
    assert.equal(picker.step, undefined, 'no store to choose: no steps');
    assert.equal(pickers.length, 1, 'one quick pick throughout');
    picker.hide();
    await done;
  });

  it('lists stores by name, and shows an id only to tell apart stores that share a name', async () => {
    const other = { id: 'vs_demo2', name: 'demo', created_at: 0, status: 'completed' };
    const s = services([handbook, demo, other]);
    const done = showSearchPicker(s.value, {} as never, {});
    const picker = pickers[0]!;
    s.connected.resolve();
    s.listed.resolve();
    await until(() => picker.step === 1);
    const rows = picker.items.filter((i) => i.store).map((i) => [i.store!.id, i.detail ?? '']);
    assert.deepEqual(
      rows.map(([id]) => id),
      ['vs_hb', 'vs_demo', 'vs_demo2'],
    );
    assert.ok(!rows[0]![1]!.includes('vs_hb'), `a store with a name of its own shows no id: ${rows[0]![1]}`);
    assert.ok(rows[1]![1]!.includes('vs_demo') && rows[2]![1]!.includes('vs_demo2'), 'two stores named "demo" are told apart by their ids');
    picker.hide();
    await done;
  });

  it('with several stores, lists them in the same quick pick (step 1 of 2), and searches the one chosen for the typed text', async () => {
    const s = services([handbook, demo]);
    const done = showSearchPicker(s.value, {} as never, {});
    const picker = pickers[0]!;
    picker.type('folder sync');
    s.connected.resolve();
    s.listed.resolve();
    await until(() => picker.step === 1);
    assert.equal(picker.totalSteps, 2);
    assert.deepEqual(
      picker.items.map((i) => i.detail),
      ['Search “handbook” for “folder sync”', 'Search “demo” for “folder sync”'],
    );
    picker.selectedItems = [picker.items[1]!];
    picker.accept.fire();
    assert.equal(await s.searched.promise, 'folder sync');
    assert.equal(picker.title, 'Search "demo"');
    assert.equal(picker.step, 2);
    assert.ok(picker.buttons.includes(BACK), 'Back returns to the stores');
    assert.equal(pickers.length, 1, 'one quick pick throughout');
    picker.hide();
    await done;
  });

  it('a store that no longer exists (an old answer names it) leads to the list of the others, saying so, with the words kept', async () => {
    const { NotFoundError } = scope.load<typeof import('../../../../src/api/http/errors')>(
      require.resolve('../../../../src/api/http/errors'),
    );
    const s = services([handbook, demo], { search: new Map([['vs_old', new NotFoundError("No vector store with id 'vs_old'")]]) });
    const done = showSearchPicker(s.value, {} as never, { store: { id: 'vs_old', name: 'old notes' }, value: 'folder sync' });
    const picker = pickers[0]!;
    s.connected.resolve();
    s.listed.resolve();
    await until(() => picker.step === 1 || picker.items.some((i) => i.label.includes("No vector store with id 'vs_old'")));
    assert.equal(picker.step, 1, `the list of stores, not the search's error: ${picker.items.map((i) => i.label).join(' | ')}`);
    assert.equal(picker.value, 'folder sync', 'the words are kept');
    assert.deepEqual(
      picker.items.map((i) => [i.label, i.detail]),
      [
        ['The vector store "old notes" no longer exists', 'Pick another vector store to search.'],
        ['$(database) handbook', 'Search “handbook” for “folder sync”'],
        ['$(database) demo', 'Search “demo” for “folder sync”'],
      ],
    );
    assert.equal(s.reported.length, 0, 'no error with a Retry that could only fail again');
    picker.selectedItems = [picker.items[2]!];
    picker.accept.fire();
    assert.equal(await s.searched.promise, 'folder sync');
    assert.equal(picker.title, 'Search "demo"');
    picker.hide();
    await done;
  });

  it('when connecting fails, closes with the error and a Retry that reopens it with the text typed so far', async () => {
    const s = services([demo], { connect: new Error('The local backend did not start.') });
    const done = showSearchPicker(s.value, {} as never, {});
    const picker = pickers[0]!;
    picker.type('folder sync');
    s.connected.resolve();
    await done;
    assert.equal(picker.shown, false, 'the picker closes');
    assert.deepEqual(
      s.reported.map((r) => [r.failure, (r.error as Error).message]),
      [['DocChat: could not search.', 'The local backend did not start.']],
    );
    s.listed.resolve();
    const again = s.reported[0]!.retry!() as Promise<void>;
    const reopened = pickers[1]!;
    assert.equal(reopened.shown, true);
    assert.equal(reopened.value, 'folder sync', 'Retry reopens it with the text typed before the failure');
    assert.equal(await s.searched.promise, 'folder sync', 'and searches for it');
    assert.equal(reopened.title, 'Search "demo"');
    reopened.hide();
    await again;
  });

  it('when listing the stores fails, Retry reopens the list of stores (step 1 of 2) with the text', async () => {
    const s = services([handbook, demo], { list: [new Error('The documents service is unreachable.')] });
    const done = showSearchPicker(s.value, {} as never, {});
    const picker = pickers[0]!;
    picker.type('attach a folder');
    s.connected.resolve();
    s.listed.resolve();
    await done;
    assert.equal(picker.shown, false);
    assert.equal(s.reported.length, 1);
    const again = s.reported[0]!.retry!() as Promise<void>;
    const reopened = pickers[1]!;
    assert.equal(reopened.value, 'attach a folder');
    await until(() => reopened.step === 1);
    assert.deepEqual(
      reopened.items.map((i) => i.detail),
      ['Search “handbook” for “attach a folder”', 'Search “demo” for “attach a folder”'],
    );
    reopened.hide();
    await again;
  });

  it('when Back cannot list the stores again, Retry reopens the list of stores with the text searched for', async () => {
    const s = services([handbook, demo], { list: [undefined, new Error('The documents service is unreachable.')] });
    const done = showSearchPicker(s.value, {} as never, {});
    const picker = pickers[0]!;
    s.connected.resolve();
    s.listed.resolve();
    await until(() => picker.step === 1);
    picker.selectedItems = [picker.items[1]!];
    picker.accept.fire();
    picker.type('folder sync');
    assert.equal(await s.searched.promise, 'folder sync');
    assert.equal(picker.step, 2);
    picker.button.fire(BACK);
    await done;
    assert.equal(picker.shown, false);
    assert.deepEqual(
      s.reported.map((r) => r.failure),
      ['DocChat: could not list the vector stores.'],
    );
    const again = s.reported[0]!.retry!() as Promise<void>;
    const reopened = pickers[1]!;
    assert.equal(reopened.value, 'folder sync');
    await until(() => reopened.step === 1);
    assert.deepEqual(
      reopened.items.map((i) => i.detail),
      ['Search “handbook” for “folder sync”', 'Search “demo” for “folder sync”'],
    );
    reopened.hide();
    await again;
  });
});
