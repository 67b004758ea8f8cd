import * as assert from 'node:assert/strict';
import type { VectorStore } from '../../../../src/api/documents/schemas';
import {
  fileOfArgument,
  selectionOfArguments,
  storeFileRefOfArgument,
  storeOfArgument,
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
    assert.deepEqual(fileOfArgument(fileNode), { fileId: 'file-1', storeId: 'vs_1', filename: 'guide.md' });
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
});
