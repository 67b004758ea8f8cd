/** The MCP server's kept converted texts: pages of whole characters, and a bound in bytes. */
import * as assert from 'node:assert/strict';
import type { DocumentsClient } from '../../../src/api/documents/client';
import { ConvertedTextCache, PagedText } from '../../../src/mcp/convertedText';

/** A documents client with files of given texts, counting the downloads. */
function fakeDocuments(texts: Map<string, string>) {
  const downloads: string[] = [];
  const versions = new Map<string, number>();
  const documents = {
    retrieveVectorStoreFile: async (_store: string, fileId: string) => ({
      id: fileId,
      created_at: versions.get(fileId) ?? 1,
      status: 'completed',
      last_error: null,
      metadata: {},
    }),
    retrieveVectorStoreFileContent: async (_store: string, fileId: string) => {
      downloads.push(fileId);
      return texts.get(fileId) ?? '';
    },
  } as unknown as DocumentsClient;
  return { documents, downloads, versions };
}

describe('MCP converted text', () => {
  it('pages by characters as Array.from counts them, surrogate pairs kept whole', () => {
    const text = 'ab😀cd😀e'.repeat(7) + '😀';
    const paged = new PagedText(text, Buffer.byteLength(text));
    for (const size of [1, 2, 3, 5, 50]) {
      const characters = Array.from(text);
      const expected = Math.max(1, Math.ceil(characters.length / size));
      assert.equal(paged.pageCount(size), expected, `size ${size}`);
      for (let page = 1; page <= expected; page++) {
        assert.equal(paged.page(size, page), characters.slice((page - 1) * size, page * size).join(''), `size ${size} page ${page}`);
      }
      assert.equal(paged.page(size, expected + 1), '');
    }
    const empty = new PagedText('', 0);
    assert.equal(empty.pageCount(10), 1);
    assert.equal(empty.page(10, 1), '');
  });

  it('downloads again only when the file changed, and keeps at most its bytes, least recently read dropped', async () => {
    const texts = new Map([
      ['a', 'A'.repeat(400)],
      ['b', 'B'.repeat(400)],
      ['c', 'C'.repeat(400)],
    ]);
    const { documents, downloads, versions } = fakeDocuments(texts);
    const cache = new ConvertedTextCache(1_000);
    const signal = new AbortController().signal;
    const read = async (id: string) => (await cache.read(documents, 'store', id, signal)).text;
    assert.equal(await read('a'), texts.get('a'));
    assert.equal(await read('a'), texts.get('a'));
    assert.deepEqual(downloads, ['a']);
    await read('b');
    await read('a'); // a is now the most recently read
    await read('c'); // past 1,000 bytes: b goes
    assert.ok(cache.keptBytes <= 1_000, `${cache.keptBytes}`);
    await read('a');
    await read('b');
    assert.deepEqual(downloads, ['a', 'b', 'c', 'b']);
    versions.set('b', 2); // attached again: its text may differ
    texts.set('b', 'new text');
    assert.equal(await read('b'), 'new text');
    assert.deepEqual(downloads, ['a', 'b', 'c', 'b', 'b']);
  });

  it('shares one download between concurrent reads of a file', async () => {
    const { documents, downloads } = fakeDocuments(new Map([['a', 'text']]));
    const cache = new ConvertedTextCache();
    const signal = new AbortController().signal;
    const pages = await Promise.all([1, 2, 3].map(() => cache.read(documents, 'store', 'a', signal)));
    assert.deepEqual(
      pages.map((p) => p.text),
      ['text', 'text', 'text'],
    );
    assert.deepEqual(downloads, ['a']);
  });
});
