/**
 * The metadata editor's Save item: how many pairs, and "unchanged" only where there is something
 * that stays as it was (editing the metadata of a store or file, not creating a store). Here with
 * a fake `vscode` whose quick pick the test reads and answers.
 */
import * as assert from 'node:assert/strict';
import { FakeEventEmitter, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

type Item = { label: string; description?: string; action?: { kind: string } };

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
  readonly onDidChangeValue = new FakeEventEmitter<string>().event;
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
