/**
 * The deletion commands when VS Code hands them no row: a row refreshed while its context menu
 * was open reaches its command with no argument, and the command acts on the view's selection
 * (which is that row), confirmed by name, instead of asking the user to pick a file.
 */
import * as assert from 'node:assert/strict';
import { loadWithFakeVscode } from '../../../support/fakeVscode';

interface Shown {
  kind: 'warning' | 'info';
  message: string;
}

/** A fake `vscode.commands` that keeps the commands registered with it in `commands`. */
function commandsInto(commands: Map<string, (...args: unknown[]) => unknown>) {
  return {
    registerCommand: (id: string, run: (...args: unknown[]) => unknown) => {
      commands.set(id, run);
      return { dispose() {} };
    },
  };
}

function fakeVscode(shown: Shown[], commands: Map<string, (...args: unknown[]) => unknown>, details: string[] = [], modal: boolean[] = []) {
  const fill = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
  return {
    l10n: { t: fill },
    window: {
      // Every confirmation is answered "Cancel": nothing is removed, only asked.
      showWarningMessage: (message: string, options?: { detail?: string; modal?: boolean }) => {
        shown.push({ kind: 'warning', message });
        modal.push(options?.modal === true);
        if (options?.detail) details.push(options.detail);
        return Promise.resolve(undefined);
      },
      showInformationMessage: (message: string) => {
        shown.push({ kind: 'info', message });
        return Promise.resolve(undefined);
      },
      setStatusBarMessage: () => ({ dispose() {} }),
    },
    commands: commandsInto(commands),
  };
}

describe('deletion commands without a row argument', () => {
  const shown: Shown[] = [];
  const details: string[] = [];
  const modal: boolean[] = [];
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  let selection: unknown[] = [];
  const connection: { state: { kind: string } } = { state: { kind: 'remote' } };
  const store = { id: 'vs_1', name: 'Policies' };
  const storeNode = { kind: 'store', store };
  const fileNode = { kind: 'storeFile', storeId: 'vs_1', fileId: 'file-1', filename: 'notes.md', parent: storeNode, file: {} };

  before(() => {
    const { registerDeletion } = loadWithFakeVscode<typeof import('../../../../src/features/stores/deletion')>(
      fakeVscode(shown, commands, details, modal),
      require.resolve('../../../../src/features/stores/deletion'),
    );
    const services = { errors: { report: (error: unknown) => assert.fail(`reported ${String(error)}`) }, connection };
    registerDeletion({ subscriptions: [] } as never, services as never, {} as never, () => selection as never);
  });

  beforeEach(() => {
    shown.length = 0;
    details.length = 0;
    modal.length = 0;
    connection.state = { kind: 'remote' };
  });

  for (const [command, asks] of [
    ['docchat.removeFromStore', 'Remove "notes.md" from the vector store "Policies"?'],
    ['docchat.deleteFile', 'Delete the file "notes.md" from the documents service?'],
  ] as const) {
    it(`${command} confirms the selected file by name`, async () => {
      selection = [fileNode];
      await commands.get(command)!();
      assert.deepEqual(shown, [{ kind: 'warning', message: asks }]);
    });

    it(`${command} with nothing selected asks the user to pick a file`, async () => {
      selection = [];
      await commands.get(command)!();
      assert.equal(shown.length, 1);
      assert.equal(shown[0]!.kind, 'info');
      assert.match(shown[0]!.message, /pick a file in the Vector Stores view/);
    });
  }

  it('docchat.deleteStore confirms the selected store by name', async () => {
    selection = [storeNode];
    await commands.get('docchat.deleteStore')!();
    assert.deepEqual(shown, [{ kind: 'warning', message: 'Delete the vector store "Policies"?' }]);
  });

  it('acts on the row VS Code passes, not the selection, when there is one', async () => {
    selection = [fileNode];
    const other = { ...fileNode, fileId: 'file-2', filename: 'other.md' };
    await commands.get('docchat.removeFromStore')!(other);
    assert.deepEqual(shown, [{ kind: 'warning', message: 'Remove "other.md" from the vector store "Policies"?' }]);
  });

  for (const kind of ['remote', 'local'] as const) {
    it(`docchat.deleteStore says plainly, in a modal warning, that the files are not deleted (${kind})`, async () => {
      connection.state = { kind };
      selection = [storeNode];
      await commands.get('docchat.deleteStore')!();
      assert.deepEqual(modal, [true], 'a modal dialog');
      const where = kind === 'local' ? "DocChat's local backend, on this computer" : 'the documents service';
      const [stays, alsoFiles] = details[0]!.split('\n\n');
      assert.equal(stays, `Its files are not deleted: they stay in ${where}. The store and its search index cannot be restored.`);
      assert.equal(
        alsoFiles,
        `Delete Store and Its Files deletes its files from ${where === 'the documents service' ? where : "DocChat's local backend"} too, and so from every store.`,
      );
    });
  }

  describe("the confirmations name where things are kept: the documents service, or Local mode's backend", () => {
    const cases = [
      {
        command: 'docchat.deleteStore',
        node: storeNode,
        remote: ['Delete the vector store "Policies"?', /stay in the documents service/],
        local: ['Delete the vector store "Policies"?', /in DocChat's local backend, on this computer/],
      },
      {
        command: 'docchat.deleteFile',
        node: fileNode,
        remote: ['Delete the file "notes.md" from the documents service?', /removed from every vector store/],
        local: ['Delete the file "notes.md" from DocChat\'s local backend?', /removed from every vector store/],
      },
      {
        command: 'docchat.removeFromStore',
        node: fileNode,
        remote: ['Remove "notes.md" from the vector store "Policies"?', /stay in the documents service/],
        local: ['Remove "notes.md" from the vector store "Policies"?', /stay in DocChat's local backend, on this computer/],
      },
    ] as const;
    for (const { command, node, remote, local } of cases) {
      for (const [kind, [message, detail]] of [
        ['remote', remote],
        ['local', local],
      ] as const) {
        it(`${command} in ${kind === 'local' ? 'Local mode' : 'a documents service'}`, async () => {
          connection.state = { kind };
          selection = [node];
          await commands.get(command)!();
          assert.deepEqual(shown, [{ kind: 'warning', message }]);
          assert.equal(details.length, 1);
          assert.match(details[0]!, detail);
          if (kind === 'local') assert.doesNotMatch(`${message} ${details[0]!}`, /documents service/);
        });
      }
    }
  });
});

describe('docchat.deleteStore: Delete Store and Its Files', () => {
  const store = { id: 'vs_1', name: 'receipts' };
  const storeNode = { kind: 'store', store };

  async function run(answer: string, deleteFile: (id: string) => Promise<void> = async () => undefined) {
    const shown: string[] = [];
    const calls: string[] = [];
    const removed: string[] = [];
    const commands = new Map<string, (...args: unknown[]) => unknown>();
    const fill = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
    const { registerDeletion } = loadWithFakeVscode<typeof import('../../../../src/features/stores/deletion')>(
      {
        l10n: { t: fill },
        ProgressLocation: { Notification: 15 },
        window: {
          showWarningMessage: async (message: string, _options: unknown, ...items: string[]) => {
            if (!items.length) return void shown.push(message);
            assert.deepEqual(items, ['Delete Store', 'Delete Store and Its Files']);
            return answer;
          },
          showInformationMessage: async (message: string) => void shown.push(message),
          setStatusBarMessage: () => ({ dispose() {} }),
          withProgress: async (_options: unknown, task: (progress: { report(): void }) => Promise<unknown>) => task({ report() {} }),
        },
        commands: commandsInto(commands),
      },
      require.resolve('../../../../src/features/stores/deletion'),
    );
    const documents = {
      async *vectorStoreFiles(storeId: string) {
        calls.push(`list ${storeId}`);
        yield { id: 'file-1' };
        yield { id: 'file-2' };
      },
      deleteVectorStore: async (id: string) => void calls.push(`delete store ${id}`),
      deleteFile: async (id: string) => {
        calls.push(`delete file ${id}`);
        await deleteFile(id);
      },
      retrieveFile: async (id: string) => ({ id }),
    };
    // Another store holds file-2: it leaves that store's list too.
    const other = { store: { id: 'vs_2', name: 'archive' }, fileNodes: new Map([['file-2', {}]]) };
    const own = { store, fileNodes: new Map([['file-1', { filename: 'receipt.pdf' }]]) };
    const tree = {
      removeStore: (id: string) => removed.push(`store ${id}`),
      loadedStoreNodes: () => (removed.includes('store vs_1') ? [other] : [own, other]),
      removeStoreFile: (storeId: string, fileId: string) => removed.push(`${fileId} from ${storeId}`),
    };
    const services = {
      errors: { report: (error: unknown) => assert.fail(`reported ${String(error)}`) },
      connection: { state: { kind: 'local' }, documents },
    };
    registerDeletion({ subscriptions: [] } as never, services as never, tree as never, () => [] as never);
    await commands.get('docchat.deleteStore')!(storeNode);
    return { shown, calls, removed };
  }

  it("lists the store's files, deletes the store, then each file, and says how many", async () => {
    const { shown, calls, removed } = await run('Delete Store and Its Files');
    assert.deepEqual(calls, ['list vs_1', 'delete store vs_1', 'delete file file-1', 'delete file file-2']);
    assert.deepEqual(removed, ['store vs_1', 'file-2 from vs_2']);
    assert.deepEqual(shown, ['DocChat: deleted the vector store "receipts" and its 2 files.']);
  });

  it('Delete Store deletes the store only', async () => {
    const { shown, calls } = await run('Delete Store');
    assert.deepEqual(calls, ['delete store vs_1']);
    assert.deepEqual(shown, ['DocChat: deleted the vector store "receipts".']);
  });

  it('says in one warning which files stayed and why, when the service fails or refuses some', async () => {
    const refusing = await run('Delete Store and Its Files', async (id) => {
      if (id === 'file-1') throw new Error('The documents service did not answer.');
    });
    assert.deepEqual(refusing.calls, ['list vs_1', 'delete store vs_1', 'delete file file-1', 'delete file file-2']);
    assert.deepEqual(refusing.shown, [
      'DocChat: deleted the vector store "receipts" and 1 of its 2 files; these stay: receipt.pdf. The documents service did not answer.',
    ]);
    assert.deepEqual(refusing.removed, ['store vs_1', 'file-2 from vs_2'], 'only the deleted file leaves the other store');
  });
});

describe('docchat.deleteStore: a store that holds no files', () => {
  async function confirmation(
    store: { id: string; name: string; file_counts?: { total: number } },
    shownFiles: string[],
    serviceFiles: string[] = [],
  ) {
    const asked: { message: string; detail?: string; items: string[] }[] = [];
    const calls: string[] = [];
    const commands = new Map<string, (...args: unknown[]) => unknown>();
    const fill = (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));
    const { registerDeletion } = loadWithFakeVscode<typeof import('../../../../src/features/stores/deletion')>(
      {
        l10n: { t: fill },
        window: {
          // Confirms with the first choice offered.
          showWarningMessage: async (message: string, options: { detail?: string }, ...items: string[]) => {
            asked.push({ message, ...(options?.detail ? { detail: options.detail } : {}), items });
            return items[0];
          },
          showInformationMessage: async (message: string) => void calls.push(message),
          setStatusBarMessage: () => ({ dispose() {} }),
        },
        commands: commandsInto(commands),
      },
      require.resolve('../../../../src/features/stores/deletion'),
    );
    const documents = {
      deleteVectorStore: async (id: string) => void calls.push(`delete store ${id}`),
      listVectorStoreFiles: async () => ({ data: serviceFiles.map((id) => ({ id })) }),
    };
    const node = { store, fileNodes: new Map(shownFiles.map((id) => [id, {}])) };
    const tree = { removeStore: (id: string) => calls.push(`removed ${id}`), loadedStoreNodes: () => [node] };
    const services = {
      errors: { report: (error: unknown) => assert.fail(`reported ${String(error)}`) },
      connection: { state: { kind: 'local' }, documents },
    };
    registerDeletion({ subscriptions: [] } as never, services as never, tree as never, () => [] as never);
    await commands.get('docchat.deleteStore')!({ kind: 'store', store });
    return { asked, calls };
  }

  it('asks to delete the store alone, says it holds no files, and deletes it', async () => {
    const { asked, calls } = await confirmation({ id: 'vs_9', name: 'new-team', file_counts: { total: 0 } }, []);
    assert.deepEqual(asked, [
      {
        message: 'Delete the vector store "new-team"?',
        detail: 'It holds no files. The store cannot be restored.',
        items: ['Delete Store'],
      },
    ]);
    assert.deepEqual(calls, ['delete store vs_9', 'removed vs_9', 'DocChat: deleted the vector store "new-team".']);
  });

  it('offers to delete the files too when the tree or the service shows some (the listed count is older), or when the count is unknown', async () => {
    for (const [store, files, service] of [
      [{ id: 'vs_9', name: 'new-team', file_counts: { total: 0 } }, ['file-1'], []],
      [{ id: 'vs_9', name: 'new-team', file_counts: { total: 0 } }, [], ['file-1']],
      [{ id: 'vs_9', name: 'new-team' }, [], []],
    ] as const) {
      const { asked } = await confirmation(store, [...files], [...service]);
      assert.deepEqual(asked[0]!.items, ['Delete Store', 'Delete Store and Its Files'], JSON.stringify(store));
      assert.match(asked[0]!.detail!, /Its files are not deleted/);
    }
  });
});
