import * as assert from 'node:assert/strict';
import { validateStoreName } from '../../../../src/api/documents/schemas';
import { storeNameLike } from '../../../../src/features/stores/storeNames';

describe('store names made of any text', () => {
  it('turns every run of characters a name cannot hold into one hyphen, none at either end', () => {
    assert.equal(storeNameLike('team handbook'), 'team-handbook');
    assert.equal(storeNameLike('  Q3 report (final).v2  '), 'Q3-report-final-v2');
    assert.equal(storeNameLike('notes_2026'), 'notes_2026');
  });

  it('drops accents and keeps what it can of other scripts', () => {
    assert.equal(storeNameLike('Résumés Été'), 'Resumes-Ete');
    assert.equal(storeNameLike('Документы'), '');
    assert.equal(storeNameLike('docs Документы'), 'docs');
  });

  it('cuts a long text to a name the API takes', () => {
    const like = storeNameLike('word '.repeat(40));
    assert.ok(like.length <= 63 && !like.endsWith('-'), like);
    assert.equal(validateStoreName(like), undefined);
  });

  it('gives a name the API takes for any text it keeps something of', () => {
    for (const text of ['a b', 'ﬁle', 'x'.repeat(70), '--a--', 'naïve café', 'tab\there', 'emoji 📁 folder']) {
      const like = storeNameLike(text);
      assert.equal(validateStoreName(like), undefined, `${JSON.stringify(text)} → ${JSON.stringify(like)}`);
    }
  });
});
