import assert from 'node:assert/strict';
import { Bm25Index } from '../../../../src/backend/search/bm25';
import { documentTitle, reciprocalRankFusion, StoreIndex } from '../../../../src/backend/search/storeIndex';
import { stem } from '../../../../src/common/terms';
import { tokenize } from '../../../../src/backend/search/tokenize';

describe('backend: BM25 index', () => {
  it('tokenizes: lower case, stop words out, plurals stemmed, identifiers split', () => {
    assert.deepEqual(tokenize('The Databases of the users'), ['database', 'user']);
    assert.deepEqual(tokenize('getUserName'), ['getusername', 'get', 'user', 'name']);
    assert.equal(stem('policies'), 'policy');
    assert.equal(stem('class'), 'class');
  });

  it('indexes Chinese, Japanese and Korean as pairs of characters, so part of a run finds it', () => {
    assert.deepEqual(tokenize('北海道'), ['北海', '海道']);
    assert.deepEqual(tokenize('API設計書 v2'), ['api', '設計', '計書', 'v2']);
    assert.deepEqual(tokenize('東'), ['東']);
    const index = new Bm25Index();
    const tower = index.add(tokenize('| 東京タワー模型0 | 1000 | 北海道の職人が作った美しい模型です |'));
    index.add(tokenize('| 大阪城模型1 | 2000 | 京都の職人 |'));
    for (const query of ['東京', '北海道', '模型', 'タワー', '서울 타워']) {
      const hits = index.search(tokenize(query), 5);
      if (query === '서울 타워') assert.deepEqual(hits, [], 'a Korean query matches no Japanese text');
      else assert.equal(hits[0]?.doc, tower, `${query} finds the row`);
    }
  });

  it('ranks by term rarity and frequency with scores in (0, 1]', () => {
    const index = new Bm25Index();
    const a = index.add(tokenize('apple banana'));
    const b = index.add(tokenize('apple apple apple cherry'));
    index.add(tokenize('durian'));
    const hits = index.search(tokenize('apple cherry'), 10);
    assert.deepEqual(
      hits.map((h) => h.doc),
      [b, a],
    );
    for (const hit of hits) assert.ok(hit.score > 0 && hit.score <= 1);
    assert.ok(hits[0]!.score > hits[1]!.score);
  });

  it('weighs a rare term above a common one (inverse document frequency)', () => {
    const index = new Bm25Index();
    // "gasket" is in one document of six, "valve" in five: one rare match beats three common ones.
    const gasket = index.add(tokenize('gasket seal'));
    const valves = index.add(tokenize('valve valve valve'));
    for (let i = 0; i < 4; i++) index.add(tokenize(`valve filler${i}`));
    const hits = index.search(tokenize('valve gasket'), 2);
    assert.equal(hits[0]!.doc, gasket);
    assert.equal(hits[1]!.doc, valves);
  });

  it('ranks a short document above a long one with the same matches (length normalisation)', () => {
    const index = new Bm25Index();
    const long = index.add(tokenize(`torque ${'padding '.repeat(60)}`));
    const short = index.add(tokenize('torque spec'));
    index.add(tokenize('unrelated words here'));
    const hits = index.search(tokenize('torque'), 2);
    assert.deepEqual(
      hits.map((h) => h.doc),
      [short, long],
    );
    assert.ok(hits[0]!.score > hits[1]!.score, `${hits[0]!.score} > ${hits[1]!.score}`);
  });

  it('returns the best k, skips removed and refused documents', () => {
    const index = new Bm25Index();
    const docs = Array.from({ length: 100 }, (_, i) => index.add(tokenize(`common ${'rare '.repeat(i % 7)}doc${i}`)));
    assert.equal(index.search(['common'], 5).length, 5);
    index.remove(docs[3]!);
    assert.ok(!index.search(['doc3'], 5).length);
    const mask = Uint8Array.from({ length: 100 }, (_, doc) => (doc % 2 === 0 ? 1 : 0));
    const allowed = index.search(['common'], 100, mask);
    assert.ok(allowed.length === 50 && allowed.every((h) => h.doc % 2 === 0));
    // Scores are reset between queries.
    assert.deepEqual(index.search(['common'], 3), index.search(['common'], 3));
  });

  it('keeps working after a bulk purge of removed documents', () => {
    const index = new Bm25Index();
    const docs = Array.from({ length: 3000 }, (_, i) => index.add([`t${i % 10}`, 'all']));
    for (const doc of docs.slice(0, 2500)) index.remove(doc);
    assert.equal(index.size, 500);
    const hits = index.search(['t1'], 1000);
    assert.equal(hits.length, 50);
    assert.ok(hits.every((h) => h.doc >= 2500));
  });

  it('writes English contractions out, so they are stop words and not the words "haven" or "ve"', () => {
    assert.deepEqual(tokenize("Can I sync a folder I haven't trusted?"), ['sync', 'folder', 'trusted']);
    assert.deepEqual(tokenize('You’re sure it doesn’t, won’t or can’t? We’ve, I’ll, they’d, I’m'), ['sure']);
    // "needn't" keeps its verb; a possessive keeps its noun; quotes around a word are not contractions.
    assert.deepEqual(tokenize("needn't the company's 'draft'"), ['need', 'company', 'draft']);
    // local-hashing-embed's tokens are as before, so vectors stored earlier stay comparable.
    assert.deepEqual(tokenize("haven't you've", { numbers: false, contractions: false }), ['haven', 've']);
    const index = new StoreIndex();
    index.addFile('f', [{ text: 'In a folder you have not trusted, DocChat stays available.', heading: 'Restricted Mode' }]);
    index.addFile('g', [{ text: 'The haven of the don: a story.', heading: 'Fiction' }]);
    assert.deepEqual(
      index.search("Can I use DocChat in a folder I haven't trusted?", { maxResults: 5 }).map((hit) => hit.fileId),
      ['f'],
    );
  });

  it('tokenizes numbers of any length as terms, single letters not', () => {
    assert.deepEqual(tokenize('ledger 4'), ['ledger', '4']);
    assert.deepEqual(tokenize('§4 and item 7'), ['4', 'item', '7']);
    // A figure's parts count as before: those of two digits or more.
    assert.deepEqual(tokenize('3.5 in 1.139.1, at 1,000'), ['139', '000']);
    // An ordinal is its word and its number; a version like "v2" stays one term.
    assert.deepEqual(tokenize('the 4th ledger, v2'), ['4th', '4', 'ledger', 'v2']);
    assert.deepEqual(tokenize('x = a + b'), []);
    // The tokens of before, which local-hashing-embed keeps so its vectors do not change.
    assert.deepEqual(tokenize('ledger 4 in 1.139.1, the 4th', { numbers: false }), ['ledger', '139', '4th']);
  });

  it('store index: a question naming a one-digit number finds the passage on it', () => {
    const index = new StoreIndex();
    for (const n of [1, 2, 3, 4, 5, 6, 12]) {
      index.addFile(`ledger-${n}`, [{ text: `The retention period for ledger ${n} is ${n + 5} years.`, heading: `Ledger ${n}` }]);
    }
    assert.equal(index.search('How many years is the retention period for ledger 4?', { maxResults: 3 })[0]!.fileId, 'ledger-4');
    assert.equal(index.search('How many years is the retention period for ledger 12?', { maxResults: 3 })[0]!.fileId, 'ledger-12');
  });

  it('store index: one-digit numbers are found but do not lengthen their passage', () => {
    const index = new StoreIndex();
    index.addFile('steps', [{ text: 'torque: steps 1 2 3 4 5 6', heading: '' }]);
    index.addFile('plain', [{ text: 'torque: steps', heading: '' }]);
    const [a, b] = index.search('torque', { maxResults: 2 });
    assert.equal(a!.score, b!.score);
    assert.equal(index.search('step 4', { maxResults: 2 })[0]!.fileId, 'steps');
  });

  it('store index: file restriction, file removal and hybrid fusion', () => {
    const index = new StoreIndex();
    index.addFile('f1', [{ text: 'alpha beta', heading: '' }], [Float32Array.from([1, 0])]);
    index.addFile('f2', [{ text: 'gamma', heading: 'Alpha section' }], [Float32Array.from([0, 1])]);
    assert.deepEqual(
      index
        .search('alpha', { maxResults: 10 })
        .map((h) => h.fileId)
        .sort(),
      ['f1', 'f2'],
    );
    assert.deepEqual(
      index.search('alpha', { maxResults: 10, fileIds: ['f2'] }).map((h) => h.fileId),
      ['f2'],
    );
    // A query vector close to f2 lifts it above f1 although both match "alpha" once.
    const hybrid = index.search('alpha', { maxResults: 10, queryVector: Float32Array.from([0, 1]) });
    assert.equal(hybrid[0]!.fileId, 'f2');
    // Vectors alone find a chunk with no shared words.
    assert.deepEqual(
      index.search('zzz', { maxResults: 10, queryVector: Float32Array.from([1, 0]) }).map((h) => h.fileId),
      ['f1'],
    );
    index.removeFile('f1');
    assert.deepEqual(
      index.search('alpha', { maxResults: 10 }).map((h) => h.fileId),
      ['f2'],
    );
    assert.equal(index.chunkCount, 1);
  });

  it('fuses rankings by reciprocal rank fusion: agreement beats one first place', () => {
    // Document 7 is second in both rankings; 1 and 2 are first in one and missing in the other.
    const fused = reciprocalRankFusion([
      [1, 7, 3],
      [2, 7, 4],
    ]);
    assert.deepEqual(
      fused.map((f) => f.doc),
      [7, 1, 2, 3, 4],
    );
    // First everywhere scores 1; scores fall with rank.
    assert.equal(reciprocalRankFusion([[5], [5]])[0]!.score, 1);
    assert.ok(fused[0]!.score > fused[1]!.score && fused[1]!.score > fused[3]!.score);
  });

  it('hybrid search fuses ranks, not scores: a strong keyword hit is not drowned by many weak vector matches', () => {
    const index = new StoreIndex();
    // f1 matches the words; f2..f4 are near the query vector only.
    index.addFile('f1', [{ text: 'rollback pipeline rollback', heading: '' }], [Float32Array.from([0, 1])]);
    for (const id of ['f2', 'f3', 'f4']) index.addFile(id, [{ text: 'unrelated words', heading: '' }], [Float32Array.from([1, 0.1])]);
    const hits = index.search('rollback pipeline', { maxResults: 4, queryVector: Float32Array.from([1, 0]) });
    assert.equal(hits[0]!.fileId, 'f1');
    assert.ok(hits.every((h) => h.score > 0 && h.score <= 1));
  });

  it('indexes the document title with each chunk, so a query naming the document finds it', () => {
    const index = new StoreIndex();
    index.addFile(
      'f1',
      [{ text: 'Run the pipeline with the previous tag.', heading: 'Steps' }],
      undefined,
      documentTitle('rollback-guide.md'),
    );
    index.addFile('f2', [{ text: 'Run the pipeline with the next tag.', heading: 'Steps' }], undefined, documentTitle('release-notes.md'));
    assert.deepEqual(
      index.search('rollback pipeline', { maxResults: 1 }).map((h) => h.fileId),
      ['f1'],
    );
    assert.equal(documentTitle('deploy_guide.v2.md'), 'deploy guide v2');
  });

  it('hidden documents are not searchable until revealed, survive a purge, and can be discarded', () => {
    const index = new Bm25Index();
    const hidden = [index.add(tokenize('turbine gearbox'), true), index.add(tokenize('turbine blade'), true)];
    // Enough removals to purge the postings of dead documents while the hidden ones wait.
    const dead = Array.from({ length: 1100 }, () => index.add(tokenize('filler')));
    for (const doc of dead) index.remove(doc);
    assert.deepEqual(index.search(tokenize('turbine'), 10), []);
    assert.equal(index.size, 0);
    index.reveal(hidden);
    assert.deepEqual(
      index
        .search(tokenize('turbine'), 10)
        .map((h) => h.doc)
        .sort(),
      [...hidden].sort(),
    );
    assert.equal(index.size, 2);
    const dropped = index.add(tokenize('impeller'), true);
    index.discard([dropped]);
    index.reveal([dropped]);
    assert.deepEqual(index.search(tokenize('impeller'), 10), []);
  });

  it('adds a big file gradually, letting the event loop turn, and its chunks replace the old ones all at once at the end', async () => {
    const index = new StoreIndex();
    index.addFile('f1', [{ text: 'old manual gearbox', heading: '' }]);
    // Enough text that tokenizing it takes many 5 ms slices on any machine.
    const chunks = Array.from({ length: 6000 }, (_, i) => ({ text: `new manual gearbox part${i} ${'oil '.repeat(50)}`, heading: 'Parts' }));
    // Other work of the server: a search at every turn of the loop while the file is added.
    const seenDuring: string[][] = [];
    let adding = true;
    const otherWork = () => {
      if (!adding) return;
      seenDuring.push(index.search('gearbox', { maxResults: 5 }).map((h) => h.text));
      setImmediate(otherWork);
    };
    setImmediate(otherWork);
    let seenBeforeReveal: string[] = [];
    const added = await index.addFileGradually('f1', chunks, undefined, () => {
      seenBeforeReveal = index.search('gearbox', { maxResults: 5 }).map((h) => h.text);
      return true;
    });
    adding = false;
    assert.equal(added, true);
    assert.ok(seenDuring.length > 0, 'the event loop turned while the file was added');
    for (const seen of seenDuring) assert.deepEqual(seen, ['old manual gearbox'], 'searches meanwhile see the old chunks only');
    assert.deepEqual(seenBeforeReveal, ['old manual gearbox']);
    assert.equal(index.chunkCount, 6000);
    assert.deepEqual(
      index.search('part5999', { maxResults: 5 }).map((h) => [h.fileId, h.chunkIndex]),
      [['f1', 5999]],
    );
    assert.deepEqual(index.search('old', { maxResults: 5 }), []);
  });

  it('a gradual add no longer wanted at the end leaves the index as it was', async () => {
    const index = new StoreIndex();
    index.addFile('f1', [{ text: 'old manual gearbox', heading: '' }]);
    const added = await index.addFileGradually('f1', [{ text: 'replacement text', heading: '' }], undefined, () => false);
    assert.equal(added, false);
    assert.equal(index.chunkCount, 1);
    assert.deepEqual(index.search('replacement', { maxResults: 5 }), []);
    assert.equal(index.search('gearbox', { maxResults: 5 })[0]!.fileId, 'f1');
  });
});
