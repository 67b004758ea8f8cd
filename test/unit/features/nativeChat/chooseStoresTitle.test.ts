/**
 * The multi-store picker of `/store` and the chat's Several stores… says in plain words what it
 * chooses: the stores the chat and @docchat answer from. Here with a stubbed `vscode` whose quick
 * pick the test reads.
 */
import * as assert from 'node:assert/strict';
import { FakeEventEmitter, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

describe('choosing the stores of @docchat and the chat', () => {
  it('titles its picker "DocChat: Choose the Stores the Chat and @docchat Answer From"', async () => {
    const pickers: { title?: string; busy?: boolean; hide(): void }[] = [];
    const api: Record<string, unknown> = {
      ...Object.fromEntries(
        ['ThemeColor', 'Disposable', 'Range', 'Position', 'Uri', 'MarkdownString', 'ThemeIcon'].map((n) => [n, class {}]),
      ),
      window: {
        createQuickPick: () => {
          const hidden = new FakeEventEmitter<void>();
          const picker = {
            title: undefined as string | undefined,
            busy: false,
            items: [],
            selectedItems: [],
            activeItems: [],
            show: () => undefined,
            hide: () => hidden.fire(),
            dispose: () => undefined,
            onDidAccept: () => ({ dispose() {} }),
            onDidChangeSelection: () => ({ dispose() {} }),
            onDidChangeValue: () => ({ dispose() {} }),
            onDidHide: hidden.event,
          };
          pickers.push(picker);
          return picker;
        },
      },
    };
    const scope = useFakeVscode(fakeVscodeApi(api));
    try {
      const { ChosenStore } = scope.load<typeof import('../../../../src/features/nativeChat/chosenStore')>(
        require.resolve('../../../../src/features/nativeChat/chosenStore'),
      );
      const services = {
        connection: { documents: { listVectorStores: async () => ({ data: [], has_more: false }) } },
        recentStores: { list: () => [], sort: <T>(data: readonly T[]) => [...data], touch: async () => undefined },
        grounding: { choice: undefined, remember: async () => undefined },
      };
      const state = { get: () => undefined, update: async () => undefined };
      const chosen = new ChosenStore(services as never, state as never).choose();
      const picker = pickers[0]!;
      assert.equal(picker.title, 'DocChat: Choose the Stores the Chat and @docchat Answer From');
      picker.hide();
      assert.equal(await chosen, undefined, 'cancelled: nothing chosen');
    } finally {
      scope.dispose();
    }
  });
});
