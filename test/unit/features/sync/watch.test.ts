/**
 * `docchat.sync.watch` follows only folders whose plan the user confirmed: a sync cancelled at its
 * plan or at its conversion question leaves the folder unwatched, and the log does not say it is
 * watched.
 */
import * as assert from 'node:assert/strict';
import type { Follow } from '../../../../src/features/sync/follows';
import type * as Watch from '../../../../src/features/sync/watch';
import { FakeEventEmitter, fakeVscodeApi, useFakeVscode } from '../../../support/fakeVscode';

class FakeUri {
  private constructor(private readonly url: string) {}
  static parse(value: string) {
    return new FakeUri(value);
  }
  get path() {
    return new URL(this.url).pathname;
  }
  toString() {
    return this.url;
  }
}

describe('folder sync: watching followed folders (fake vscode)', () => {
  /** The folders a file watcher was made for, in order. */
  const watched: string[] = [];
  const lines: string[] = [];
  let scope: ReturnType<typeof useFakeVscode>;
  let FollowWatcher: typeof Watch.FollowWatcher;

  before(() => {
    scope = useFakeVscode(
      fakeVscodeApi({
        Uri: FakeUri,
        RelativePattern: class {
          constructor(
            readonly base: FakeUri,
            readonly pattern: string,
          ) {}
        },
        Disposable: { from: (...items: { dispose(): void }[]) => ({ dispose: () => items.forEach((i) => i.dispose()) }) },
        workspace: {
          getWorkspaceFolder: () => undefined,
          onDidChangeConfiguration: () => ({ dispose: () => undefined }),
          // `docchat.sync.watch` is on for every folder.
          getConfiguration: () => ({ get: (key: string, fallback?: unknown) => (key === 'sync.watch' ? true : fallback) }),
          createFileSystemWatcher: (pattern: { base: FakeUri }) => {
            watched.push(pattern.base.toString());
            const event = () => ({ dispose: () => undefined });
            return { onDidChange: event, onDidCreate: event, onDidDelete: event, dispose: () => undefined };
          },
        },
      }),
    );
    ({ FollowWatcher } = scope.load<typeof Watch>(require.resolve('../../../../src/features/sync/watch')));
  });
  after(() => scope.dispose());

  it('watches a folder once its plan is confirmed, not before', () => {
    const follow: Follow = {
      id: 'f1',
      rootUri: 'file:///work/ws',
      folderUri: 'file:///work/ws/handbook',
      relativeFolder: 'handbook',
      storeId: 'vs_1',
      storeName: 'handbook',
      confirmed: false,
    };
    let follows = [follow];
    const changed = new FakeEventEmitter<undefined>();
    const store = { list: () => follows, get: (id: string) => follows.find((f) => f.id === id), onDidChange: changed.event };
    const log = { info: (line: string) => lines.push(line), warn: () => undefined, error: () => undefined };
    const watcher = new FollowWatcher(store as never, {} as never, log as never);
    try {
      // Saved before its plan is shown, then the plan or the conversion question was dismissed.
      assert.deepEqual(watched, []);
      assert.deepEqual(
        lines.filter((l) => l.startsWith('Watching')),
        [],
      );
      follows = [{ ...follow, confirmed: true }];
      changed.fire(undefined);
      assert.deepEqual(watched, ['file:///work/ws/handbook']);
      assert.deepEqual(
        lines.filter((l) => l.startsWith('Watching')),
        ['Watching "handbook/handbook" for saved, created and deleted files'],
      );
    } finally {
      watcher.dispose();
    }
  });
});
