import * as assert from 'node:assert/strict';
import { LIMITS } from '../../../../src/api/documents/schemas';
import { MetadataDraft, metadataSavedMessage } from '../../../../src/features/stores/metadataDraft';

const { maxPairs, maxKeyLength, maxValueLength } = LIMITS.metadata;

function full(): MetadataDraft {
  return new MetadataDraft(Object.fromEntries(Array.from({ length: maxPairs }, (_, i) => [`k${i}`, `v${i}`])));
}

describe('metadata editor draft', () => {
  it('shows the current pairs in order and is not dirty until something changes', () => {
    const draft = new MetadataDraft({ team: 'platform', owner: 'ana' });
    assert.deepEqual(draft.entries(), [
      ['team', 'platform'],
      ['owner', 'ana'],
    ]);
    assert.equal(draft.isDirty, false);
    assert.equal(draft.apply('lang=en'), undefined);
    assert.equal(draft.isDirty, true);
    assert.deepEqual(draft.toObject(), { team: 'platform', owner: 'ana', lang: 'en' });
  });

  it('splits on the first "=" so values may contain "="', () => {
    const draft = new MetadataDraft();
    assert.equal(draft.apply('query=a=b'), undefined);
    assert.deepEqual(draft.toObject(), { query: 'a=b' });
  });

  it('asks for key=value and refuses an empty key', () => {
    const draft = new MetadataDraft();
    assert.match(draft.validate('team')!.message, /key=value/);
    assert.match(draft.validate('=x')!.message, /key must not be empty/);
  });

  it(`refuses keys over ${maxKeyLength} characters, naming the limit, and changes nothing`, () => {
    const draft = new MetadataDraft({ a: '1' });
    const key = 'k'.repeat(maxKeyLength + 1);
    const problem = draft.apply(`${key}=v`);
    assert.ok(problem);
    assert.equal(problem.severity, 'error');
    assert.match(problem.message, new RegExp(`at most ${maxKeyLength} characters \\(this one has ${maxKeyLength + 1}\\)`));
    assert.deepEqual(draft.toObject(), { a: '1' });
    assert.equal(draft.apply(`${'k'.repeat(maxKeyLength)}=v`), undefined, 'a key of exactly the limit is fine');
  });

  it(`refuses values over ${maxValueLength} characters, counting code points`, () => {
    const draft = new MetadataDraft();
    assert.equal(draft.validate(`k=${'😀'.repeat(maxValueLength)}`), undefined, `${maxValueLength} emoji are ${maxValueLength} characters`);
    const problem = draft.validate(`k=${'x'.repeat(maxValueLength + 1)}`);
    assert.match(problem!.message, new RegExp(`Values may be at most ${maxValueLength} characters`));
  });

  it(`refuses a ${maxPairs + 1}th pair but allows editing and replacing in a full draft`, () => {
    const draft = full();
    assert.equal(draft.isFull, true);
    const problem = draft.apply('extra=1');
    assert.match(problem!.message, new RegExp(`at most ${maxPairs} pairs`));
    assert.equal(draft.size, maxPairs);
    assert.equal(draft.apply('k3=changed', 'k3'), undefined, 'editing a value');
    assert.equal(draft.get('k3'), 'changed');
    assert.equal(draft.apply('renamed=v', 'k4'), undefined, 'renaming a key');
    assert.equal(draft.get('k4'), undefined);
    assert.equal(draft.get('renamed'), 'v');
    assert.equal(draft.size, maxPairs);
    assert.equal(draft.apply('k0=replaced'), undefined, 'an existing key replaces its value');
    assert.equal(draft.get('k0'), 'replaced');
  });

  it('warns (without refusing) when an added key already exists', () => {
    const draft = new MetadataDraft({ team: 'a' });
    const problem = draft.validate('team=b');
    assert.equal(problem?.severity, 'warning');
    assert.match(problem!.message, /already set/);
    assert.equal(draft.validate('team=b', 'team'), undefined, 'editing the same key is not a warning');
  });

  it('keeps the position of a renamed pair and merges into an existing key', () => {
    const draft = new MetadataDraft({ a: '1', b: '2', c: '3' });
    draft.apply('x=9', 'b');
    assert.deepEqual(draft.entries(), [
      ['a', '1'],
      ['x', '9'],
      ['c', '3'],
    ]);
    draft.apply('c=7', 'a');
    assert.deepEqual(draft.toObject(), { c: '7', x: '9' });
  });

  it('removes pairs', () => {
    const draft = new MetadataDraft({ a: '1', b: '2' });
    draft.remove('a');
    assert.deepEqual(draft.toObject(), { b: '2' });
    assert.equal(draft.isDirty, true);
  });
});

describe('metadata saved notice', () => {
  it('says "1 metadata pair", not "1 metadata pairs", and "cleared" for none', () => {
    assert.equal(metadataSavedMessage(1, 'a.md'), 'DocChat: saved 1 metadata pair of the file "a.md".');
    assert.equal(metadataSavedMessage(1, 'a.md', 'handbook'), 'DocChat: saved 1 metadata pair of "a.md" in the vector store "handbook".');
    assert.equal(metadataSavedMessage(3, 'a.md'), 'DocChat: saved 3 metadata pairs of the file "a.md".');
    assert.equal(metadataSavedMessage(3, 'a.md', 'handbook'), 'DocChat: saved 3 metadata pairs of "a.md" in the vector store "handbook".');
    assert.equal(metadataSavedMessage(0, 'a.md', 'handbook'), 'DocChat: cleared the metadata of "a.md" in the vector store "handbook".');
  });
});
