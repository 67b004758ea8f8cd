/**
 * The search quick pick shows before the search itself loads: at the first search that load is
 * dist/first-use.js (the API clients, zod, the search), tens of milliseconds on the extension host
 * during which keys typed after the command would still reach the editor. Here the search module's
 * load is watched: the quick pick must already be shown, listing the stores, when it starts, and
 * the show sent: the extension host sends its requests to the window on its next timer, so a load
 * in the same turn would hold the quick pick back.
 */
import * as assert from 'node:assert/strict';
import Module from 'node:module';
import { anyStub, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

interface Picker {
  shown: boolean;
  /** The show reached the window: VS Code's extension host sends its requests on its next timer. */
  sent: boolean;
  title?: string;
  busy?: boolean;
  items: { label: string; iconPath?: unknown }[];
}

/** Settles once `holds` is true, checking after each turn of the event loop. */
function until(holds: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => (holds() ? resolve() : setImmediate(check));
    check();
  });
}

describe('search command', () => {
  it('shows its quick pick, busy and titled, and lets the show reach the window before it loads the search module', async () => {
    const pickers: Picker[] = [];
    const handlers = new Map<string, (...args: unknown[]) => unknown>();
    const stub = anyStub;
    const api: Record<string, unknown> = {
      // What the modules build when they load (esbuild's interop reads only these own keys).
      ...Object.fromEntries(['ThemeColor', 'Disposable', 'Range', 'Position', 'Uri', 'MarkdownString'].map((name) => [name, class {}])),
      ThemeIcon: class {
        constructor(readonly id: string) {}
      },
      ...Object.fromEntries(
        ['TextEditorRevealType', 'OverviewRulerLane', 'DecorationRangeBehavior', 'ViewColumn', 'QuickPickItemKind', 'ProgressLocation'].map(
          (name) => [name, stub],
        ),
      ),
      ...Object.fromEntries(['workspace', 'languages', 'env', 'extensions', 'chat', 'lm'].map((name) => [name, stub])),
      window: {
        createTextEditorDecorationType: () => stub,
        onDidChangeActiveTextEditor: () => ({ dispose() {} }),
        onDidChangeTextEditorSelection: () => ({ dispose() {} }),
        onDidChangeVisibleTextEditors: () => ({ dispose() {} }),
        createQuickPick: () => {
          const picker = {
            shown: false,
            sent: false,
            items: [],
            show: () => {
              picker.shown = true;
              // Like VS Code's protocol writer: what the extension host asks is sent on a timer.
              setTimeout(() => (picker.sent = true), 0);
            },
            hide: () => (picker.shown = false),
            dispose: () => undefined,
            onDidChangeValue: () => ({ dispose() {} }),
            onDidAccept: () => ({ dispose() {} }),
            onDidTriggerButton: () => ({ dispose() {} }),
            onDidTriggerItemButton: () => ({ dispose() {} }),
            onDidHide: () => ({ dispose() {} }),
          };
          pickers.push(picker);
          return picker;
        },
      },
      commands: {
        registerCommand: (id: string, run: (...args: unknown[]) => unknown) => {
          handlers.set(id, run);
          return { dispose() {} };
        },
        getCommands: async () => [],
        executeCommand: async () => undefined,
      },
    };
    const scope = useFakeVscode(fakeVscodeApi(api));
    const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
    const load = loader._load;
    const whenLoaded: (Picker | undefined)[] = [];
    loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
      if (request === './searchPicker') whenLoaded.push(pickers[0] && { ...pickers[0], items: [...pickers[0].items] });
      return load.call(this, request, ...rest);
    };
    try {
      const search = scope.load<typeof import('../../../../src/features/search')>(require.resolve('../../../../src/features/search'));
      const never = new Promise<void>(() => undefined);
      const services = new Proxy(
        {
          connection: { use: () => never, documents: undefined, onDidChange: () => ({ dispose() {} }) },
          errors: { report: () => undefined },
        },
        { get: (target, key: string) => (key in target ? (target as Record<string, unknown>)[key] : stub) },
      );
      search.register({ subscriptions: [] } as never, services as never);
      void handlers.get('docchat.search')!();
      assert.equal(pickers[0]?.shown, true, 'the quick pick is shown as the command runs');
      await until(() => whenLoaded.length > 0);
      assert.equal(whenLoaded.length, 1, 'the search module loads at the first search');
      const picker = whenLoaded[0];
      assert.ok(picker?.shown, 'the quick pick is shown before the search module loads');
      assert.ok(picker.sent, 'the show has left for the window before the search module loads (it blocks the extension host)');
      assert.equal(picker.busy, true);
      assert.equal(picker.title, 'DocChat: Search a Vector Store');
      // The spinner is the row's icon, not `$(…)` in the label a screen reader speaks.
      assert.deepEqual(
        picker.items.map((i) => [(i.iconPath as { id?: string } | undefined)?.id, i.label]),
        [['loading~spin', 'Listing the vector stores…']],
      );
      assert.equal(pickers.length, 1, 'one quick pick: the search goes on in the one shown');
    } finally {
      loader._load = load;
      scope.dispose();
    }
  });
});
