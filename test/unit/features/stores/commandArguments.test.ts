import * as assert from 'node:assert/strict';
import type { VectorStore } from '../../../../src/api/documents/schemas';
import {
  fileOfArgument,
  selectionOfArguments,
  storeFileRefOfArgument,
  searchRequestOfArgument,
  storeOfArgument,
  storeRefOfArgument,
} from '../../../../src/features/stores/commandArguments';

const store = { id: 'vs_1', name: 'handbook' } as VectorStore;
const storeNode = { kind: 'store', store };
/** Shaped like the tree's StoreFileNode: ids behind getters, the store on the parent. */
const fileNode = {
  kind: 'storeFile',
  parent: storeNode,
  filename: 'guide.md',
  get storeId() {
    return store.id;
  },
  get fileId() {
    return 'file-1';
  },
};

describe('command arguments (tree nodes, references, nothing)', () => {
  it('finds the store of a store node and of a store file node, and nothing else', () => {
    assert.equal(storeOfArgument(storeNode), store);
    assert.equal(storeOfArgument(fileNode), store);
    for (const other of [undefined, null, 'vs_1', { kind: 'loadMore' }, { store }]) assert.equal(storeOfArgument(other), undefined);
  });

  it('reads a file from a node or from a plain reference, with what it knows of the store', () => {
    assert.deepEqual(fileOfArgument(fileNode), { fileId: 'file-1', storeId: 'vs_1', filename: 'guide.md', storeName: 'handbook' });
    // A reference may name its store; a name that is no string is not taken.
    assert.deepEqual(fileOfArgument({ fileId: 'file-4', storeId: 'vs_2', storeName: 'policies' }), {
      fileId: 'file-4',
      storeId: 'vs_2',
      filename: undefined,
      storeName: 'policies',
    });
    assert.equal(fileOfArgument({ fileId: 'file-4', storeId: 'vs_2', storeName: 3 })?.storeName, undefined);
    assert.deepEqual(fileOfArgument({ fileId: 'file-2' }), { fileId: 'file-2', storeId: undefined, filename: undefined });
    assert.deepEqual(fileOfArgument({ fileId: 'file-3', storeId: 'vs_9', filename: 7 }), {
      fileId: 'file-3',
      storeId: 'vs_9',
      filename: undefined,
    });
    assert.equal(fileOfArgument(storeNode), undefined);
    assert.equal(fileOfArgument({ fileId: 42 }), undefined);
  });

  it('gives a full store file reference only when both ids are known', () => {
    assert.deepEqual(storeFileRefOfArgument(fileNode), { storeId: 'vs_1', fileId: 'file-1' });
    assert.equal(storeFileRefOfArgument({ fileId: 'file-2' }), undefined);
  });

  it('takes the multi-selection when VS Code passes one, else the clicked node', () => {
    assert.deepEqual(selectionOfArguments(fileNode, [storeNode, fileNode]), [storeNode, fileNode]);
    assert.deepEqual(selectionOfArguments(fileNode, []), [fileNode]);
    assert.deepEqual(selectionOfArguments(fileNode, undefined), [fileNode]);
    assert.deepEqual(selectionOfArguments(undefined, undefined), []);
  });

  it("reads a chat answer's search request, and nothing else as one", () => {
    assert.deepEqual(searchRequestOfArgument({ query: 'usage stats', store: { id: 'vs_1', name: 'handbook' } }), {
      query: 'usage stats',
      store: { id: 'vs_1', name: 'handbook' },
    });
    // A store named by its id only is searched under its id; several stores (none named): the picker lists them.
    assert.deepEqual(searchRequestOfArgument({ query: 'q', store: { id: 'vs_2' } }), { query: 'q', store: { id: 'vs_2', name: 'vs_2' } });
    assert.deepEqual(searchRequestOfArgument({ query: 'q' }), { query: 'q' });
    assert.deepEqual(searchRequestOfArgument({ query: 'q', store: { id: '' } }), { query: 'q' });
    // A tree node is not a request, whatever it carries; nor are empty words, other shapes or nothing.
    for (const other of [
      storeNode,
      fileNode,
      { kind: 'store', query: 'q' },
      { query: '  ' },
      { query: 3 },
      'q',
      undefined,
      null,
      [storeNode],
    ]) {
      assert.equal(searchRequestOfArgument(other), undefined);
    }
  });

  it('reads the store a chat names for a command (Attach Files), and no tree node or other shape as one', () => {
    assert.deepEqual(storeRefOfArgument({ store: { id: 'vs_1', name: 'handbook' } }), { id: 'vs_1', name: 'handbook' });
    assert.deepEqual(storeRefOfArgument({ store: { id: 'vs_2', name: '' } }), { id: 'vs_2', name: 'vs_2' });
    // A store's node carries a store too: it is read by storeOfArgument, as the tree's.
    for (const other of [
      storeNode,
      fileNode,
      { store: { id: '' } },
      { store: 'vs_1' },
      { store: { name: 'x' } },
      'vs_1',
      undefined,
      null,
    ]) {
      assert.equal(storeRefOfArgument(other), undefined);
    }
  });
});
