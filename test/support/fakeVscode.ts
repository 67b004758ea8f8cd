/**
 * Loads extension code that imports `vscode` in a plain Node test: until `dispose`, `vscode`
 * resolves to the given fake (modules loaded later at first use see it too). The modules loaded
 * meanwhile are forgotten afterwards, so no other test gets a copy bound to this fake.
 */
import Module from 'node:module';

export interface FakeVscodeScope {
  /** Loads a module (by absolute path or one `require.resolve` finds from this folder) with the fake in place. */
  load<T>(modulePath: string): T;
  dispose(): void;
}

export function useFakeVscode(fake: unknown): FakeVscodeScope {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  const before = new Set(Object.keys(require.cache));
  loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fake : original.call(this, request, ...rest);
  };
  return {
    load: <T>(modulePath: string) => require(modulePath) as T,
    dispose: () => {
      loader._load = original;
      for (const key of Object.keys(require.cache)) {
        if (!before.has(key)) delete require.cache[key];
      }
    },
  };
}

/**
 * Loads one module afresh (by absolute path) with `vscode` faked, then takes the fake away: code
 * that reads `vscode` only while loading, or holds the module's own import, sees the fake.
 */
export function loadWithFakeVscode<T>(fake: unknown, modulePath: string): T {
  const scope = useFakeVscode(fake);
  try {
    delete require.cache[modulePath];
    return scope.load<T>(modulePath);
  } finally {
    scope.dispose();
  }
}

/** `vscode.EventEmitter` as the fakes need it: listeners called in order, disposable. */
export class FakeEventEmitter<T> {
  private readonly listeners = new Set<(e: T) => void>();
  readonly event = (listener: (e: T) => void) => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };
  fire(e: T) {
    for (const listener of [...this.listeners]) listener(e);
  }
  dispose() {
    this.listeners.clear();
  }
}

/** `vscode.l10n.t` as the fakes need it: `{0}`, `{1}` … filled in. */
export function fillL10n(message: string, ...args: unknown[]): string {
  return message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
}

/** A value that can be read, called and constructed to any depth, and is never a thenable. */
export const anyStub: object = new Proxy(function () {} as unknown as object, {
  get: (_target, key) => (key === 'then' ? undefined : anyStub),
  construct: () => anyStub,
  apply: () => anyStub,
});

/**
 * A `vscode` fake for a plain Node test: the members given, `l10n.t` and `EventEmitter` as above,
 * and for every other name `anyStub`.
 */
export function fakeVscodeApi(members: Record<string, unknown>): unknown {
  const stub = anyStub;
  const api: Record<string, unknown> = { l10n: { t: fillL10n }, EventEmitter: FakeEventEmitter, ...members };
  return new Proxy(api, { get: (target, key: string) => (key in target ? target[key] : stub) });
}
