/**
 * Creating a store says so in a notification, except when the store is created as a step of a
 * folder's sync: that toast would cover the sync's progress notification and its Cancel button,
 * and the sync's plan and summary name the store. Here with a fake `vscode` whose name box and
 * metadata quick pick the test answers.
 */
import * as assert from 'node:assert/strict';
import { FakeEventEmitter, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

type Item = { label: string; action?: { kind: string } };

class FakeQuickPick {
  title: string | undefined;
  placeholder: string | undefined;
  items: Item[] = [];
  selectedItems: Item[] = [];
  activeItems: Item[] = [];
  readonly accept = new FakeEventEmitter<void>();
  readonly hidden = new FakeEventEmitter<void>();
  readonly onDidChangeValue = new FakeEventEmitter<string>().event;
  readonly onDidAccept = this.accept.event;
  readonly onDidHide = this.hidden.event;
  readonly onDidTriggerItemButton = new FakeEventEmitter<unknown>().event;
  show() {
    // The user accepts the metadata as it is: the Save ("Create …") item.
    this.selectedItems = [this.items.find((item) => item.action?.kind === 'save')!];
    queueMicrotask(() => this.accept.fire());
  }
  hide() {
    this.hidden.fire();
  }
  dispose() {}
}

describe('creating a vector store', () => {
  let scope: ReturnType<typeof useFakeVscode>;
  let createStoreInteractive: typeof import('../../../../src/features/stores/createStore').createStoreInteractive;
  const notifications: string[] = [];
  const created: string[] = [];
  /** What the name box says of each of `typed`. */
  const typed: string[] = [];
  const validations: Array<string | undefined> = [];

  before(() => {
    scope = useFakeVscode(
      fakeVscodeApi({
        ThemeIcon: class {
          constructor(readonly id: string) {}
        },
        QuickPickItemKind: { Separator: -1 },
        window: {
          createQuickPick: () => new FakeQuickPick(),
          showInputBox: async (options: { value?: string; validateInput?: (value: string) => string | undefined }) => {
            validations.push(...typed.map((value) => options.validateInput?.(value)));
            return options.value;
          },
          showInformationMessage: async (message: string) => {
            notifications.push(message);
            return undefined;
          },
        },
      }),
    );
    ({ createStoreInteractive } = scope.load<typeof import('../../../../src/features/stores/createStore')>(
      require.resolve('../../../../src/features/stores/createStore'),
    ));
  });
  after(() => scope.dispose());
  beforeEach(() => {
    notifications.length = 0;
    created.length = 0;
    typed.length = 0;
    validations.length = 0;
  });

  const services = () =>
    ({
      connection: {
        documents: {
          createVectorStore: async ({ name }: { name: string }) => {
            created.push(name);
            return { id: `vs_${name}`, name, object: 'vector_store', created_at: 1_700_000_000 };
          },
        },
      },
      log: { info: () => undefined },
      recentStores: { touch: async () => undefined },
      documentsEvents: { storeChanged: () => undefined },
      errors: { report: (error: unknown) => assert.fail(String(error)) },
    }) as never;

  it('says "created the vector store" when the store is created on its own', async () => {
    const store = await createStoreInteractive(services(), 'handbook');
    assert.equal(store?.name, 'handbook');
    assert.deepEqual(notifications, ['DocChat: created the vector store "handbook".']);
  });

  it('shows no notification when the store is created for a folder sync (announce: false)', async () => {
    const store = await createStoreInteractive(services(), 'docs', { announce: false });
    assert.deepEqual(created, ['docs'], 'the store is created');
    assert.equal(store?.name, 'docs');
    assert.deepEqual(notifications, [], 'no toast over the sync progress notification');
  });

  it('names the limit a name breaks and, when only its characters break it, offers a name like it', async () => {
    typed.push('team handbook', 'Été 2026', 'handbook', '', '!!!', 'x'.repeat(64));
    await createStoreInteractive(services(), 'handbook');
    assert.deepEqual(validations, [
      'The name may contain only letters, digits, hyphens (-) and underscores (_). For example: team-handbook',
      'The name may contain only letters, digits, hyphens (-) and underscores (_). For example: Ete-2026',
      undefined,
      'The name must be 1 to 63 characters long (it has 0).',
      'The name may contain only letters, digits, hyphens (-) and underscores (_).',
      `The name must be 1 to 63 characters long (it has 64). For example: ${'x'.repeat(63)}`,
    ]);
  });
});
