/**
 * The metadata editor's Save item: how many pairs, and "unchanged" only where there is something
 * that stays as it was (editing the metadata of a store or file, not creating a store). Here with
 * a fake `vscode` whose quick pick the test reads and answers.
 */
import * as assert from 'node:assert/strict';
import { FakeEventEmitter, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

type Item = { label: string; description?: string; detail?: string; action?: { kind: string } };

class FakeQuickPick {
  title: string | undefined;
  placeholder: string | undefined;
  items: Item[] = [];
  selectedItems: Item[] = [];
  activeItems: Item[] = [];
  matchOnDescription = false;
  ignoreFocusOut = false;
  readonly accept = new FakeEventEmitter<void>();
  readonly hide_ = new FakeEventEmitter<void>();
  readonly changeValue = new FakeEventEmitter<string>();
  readonly onDidChangeValue = this.changeValue.event;
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hide_.event;
  readonly onDidTriggerItemButton = new FakeEventEmitter<unknown>().event;
  constructor(private readonly shown: (picker: FakeQuickPick) => void) {}
  show() {
    this.shown(this);
  }
  hide() {
    this.hide_.fire();
  }
  dispose() {}
}

function fakeVscode(onShow: (picker: FakeQuickPick) => void) {
  return fakeVscodeApi({
    ThemeIcon: class {
      constructor(readonly id: string) {}
    },
    QuickPickItemKind: { Separator: -1 },
    window: { createQuickPick: () => new FakeQuickPick(onShow), showInformationMessage: async () => undefined },
  });
}

describe('metadata editor: the Save item', () => {
  let scope: ReturnType<typeof useFakeVscode>;
  let editMetadata: typeof import('../../../../src/features/stores/metadataEditor').editMetadata;
  let shownItems: Item[] = [];

  before(() => {
    // Every list shown is read, then its Save item accepted.
    scope = useFakeVscode(
      fakeVscode((picker) => {
        shownItems = picker.items;
        picker.selectedItems = [picker.items.find((item) => item.action?.kind === 'save')!];
        queueMicrotask(() => picker.accept.fire());
      }),
    );
    ({ editMetadata } = scope.load<typeof import('../../../../src/features/stores/metadataEditor')>(
      require.resolve('../../../../src/features/stores/metadataEditor'),
    ));
  });
  after(() => scope.dispose());

  const saveItem = () => shownItems.find((item) => item.action?.kind === 'save')!;
  const options = { title: 't', saveLabel: 'Save', save: async () => undefined, onSaveError: () => undefined };

  it('says "unchanged" when editing metadata that stays as it was', async () => {
    await editMetadata({ ...options, initial: { team: 'docs' } });
    assert.equal(saveItem().description, '1 of 16 pairs, unchanged');
  });

  it('does not say "unchanged" when creating a store: there is nothing yet to leave unchanged', async () => {
    await editMetadata({ ...options, saveLabel: 'Create "reports"', initial: {}, creates: true });
    assert.equal(saveItem().description, '0 of 16 pairs');
  });
});

describe('metadata editor: text typed in the list', () => {
  let scope: ReturnType<typeof useFakeVscode>;
  let editMetadata: typeof import('../../../../src/features/stores/metadataEditor').editMetadata;
  let onShow: (picker: FakeQuickPick) => void = () => undefined;

  before(() => {
    scope = useFakeVscode(fakeVscode((picker) => onShow(picker)));
    ({ editMetadata } = scope.load<typeof import('../../../../src/features/stores/metadataEditor')>(
      require.resolve('../../../../src/features/stores/metadataEditor'),
    ));
  });
  after(() => scope.dispose());

  /** Types `text` into the list and presses Enter: on the active item, as the quick pick does. */
  function typeAndEnter(picker: FakeQuickPick, text: string) {
    picker.changeValue.fire(text);
    picker.selectedItems = [];
    picker.accept.fire();
  }

  it('says why text that is not a pair cannot be added, and Enter on it saves nothing', async () => {
    const saved: Record<string, string>[] = [];
    const lists: Item[][] = [];
    onShow = (picker) => {
      lists.push(picker.items);
      if (lists.length === 1) {
        typeAndEnter(picker, 'vendor: Acme');
        const reason = picker.items[0]!;
        assert.equal(reason.label, '$(error) Cannot add "vendor: Acme"');
        assert.match(reason.detail ?? '', /key=value/);
        assert.deepEqual(picker.activeItems, [reason], 'the reason, not Save, is what Enter is on');
        // Enter did nothing: the list is still open; the pair is typed as the reason says.
        typeAndEnter(picker, 'vendor=Acme');
        return;
      }
      picker.selectedItems = [picker.items.find((item) => item.action?.kind === 'save')!];
      picker.accept.fire();
    };
    const result = await editMetadata({
      title: 't',
      saveLabel: 'Save',
      initial: { team: 'docs' },
      save: async (metadata) => void saved.push(metadata),
      onSaveError: () => undefined,
    });
    assert.deepEqual(saved, [{ team: 'docs', vendor: 'Acme' }]);
    assert.deepEqual(result, { team: 'docs', vendor: 'Acme' });
    assert.equal(lists.length, 2, 'the list reopened once, after the pair was added');
  });

  it('lets text that finds a pair filter to it, with the reason it is no pair below', async () => {
    let items: Item[] = [];
    let active: Item[] = [];
    onShow = (picker) => {
      picker.changeValue.fire('tea');
      items = picker.items;
      active = picker.activeItems;
      picker.hide();
    };
    await editMetadata({
      title: 't',
      saveLabel: 'Save',
      initial: { team: 'docs' },
      save: async () => undefined,
      onSaveError: () => undefined,
    });
    assert.equal(items.at(-1)!.label, '$(error) Cannot add "tea"');
    assert.ok(
      items.some((item) => item.label === 'team'),
      'the pair stays in the list to be picked',
    );
    assert.deepEqual(active, [], 'the quick pick puts Enter on the first match, not on the reason');
  });
});
