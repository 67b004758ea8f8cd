/**
 * The items a VS Code quick pick shows for typed text, by VS Code's own rules (1.104 to 1.139,
 * QuickInputTree.filter with matchesFuzzyIconAware): DocChat's pickers use them to say when the
 * text matches nothing, which VS Code does not tell extensions.
 */
import * as assert from 'node:assert/strict';
import { fieldMatches, shownItems } from '../../../../src/features/stores/quickPickFilter';

const item = (label: string, extra: { description?: string; detail?: string; alwaysShow?: boolean } = {}) => ({ label, ...extra });
const labels = (items: ReadonlyArray<{ label: string }>) => items.map((i) => i.label);

describe('quick pick filtering (as VS Code filters)', () => {
  const stores = [
    item('$(database) demo', { description: 'recently used · 10 files · 2026-11-28', detail: 'expires in 3 days' }),
    item('$(database) HandBook', { description: '2 files · 2026-11-01' }),
    item('$(database) release-notes.2024', { description: '1 file' }),
  ];

  it('shows every item for no text, or text of spaces only (the text is trimmed)', () => {
    assert.deepEqual(labels(shownItems(stores, '')), labels(stores));
    assert.deepEqual(labels(shownItems(stores, '   ')), labels(stores));
    assert.deepEqual(labels(shownItems(stores, '  demo ')), ['$(database) demo']);
  });

  it('matches a label containing the text, ignoring case', () => {
    assert.deepEqual(labels(shownItems(stores, 'EM')), ['$(database) demo']);
    assert.deepEqual(labels(shownItems(stores, 'notes.20')), ['$(database) release-notes.2024']);
    assert.deepEqual(shownItems(stores, 'zzz'), []);
  });

  it('does not match the icon references in a label', () => {
    assert.deepEqual(shownItems(stores, 'database'), []);
    assert.deepEqual(shownItems(stores, '$(database)'), []);
    assert.equal(fieldMatches('spin', '$(loading~spin) Waiting'), false);
    assert.equal(fieldMatches('wait', '$(loading~spin) Waiting'), true);
  });

  it('reads * as any run of characters, and every other character literally', () => {
    assert.deepEqual(labels(shownItems(stores, 'd*o')), ['$(database) demo', '$(database) HandBook'], '"dBoo" in HandBook');
    assert.deepEqual(labels(shownItems(stores, 'de*o')), ['$(database) demo']);
    assert.deepEqual(labels(shownItems(stores, 'r*2024')), ['$(database) release-notes.2024']);
    // "." is a dot, not any character; brackets and the like do not break the pattern.
    assert.equal(fieldMatches('notes.2024', 'release-notesX2024'), false);
    assert.equal(fieldMatches('a(b', 'x a(b y'), true);
    assert.equal(fieldMatches('[', 'no bracket'), false);
    assert.equal(fieldMatches('a+', 'aaa'), false);
  });

  it('matches camel-case initials in order, but not letters scattered inside a word', () => {
    assert.deepEqual(labels(shownItems(stores, 'hb')), ['$(database) HandBook']);
    assert.deepEqual(labels(shownItems(stores, 'hanbo')), ['$(database) HandBook']);
    assert.equal(fieldMatches('rn', 'release-notes'), true, 'a word after a separator starts with its letter');
    assert.equal(fieldMatches('rg', 'returning'), false, 'letters inside one word');
    assert.equal(fieldMatches('dmo', 'demo'), false);
    assert.equal(fieldMatches('hp', 'HTTP proxy'), true);
    assert.equal(fieldMatches('15', '1234 5678 ab'), false, 'text mostly of digits is not read as camel case');
    assert.equal(fieldMatches('15', 'Release1 Notes5'), true, 'digits start camel-case words');
    assert.equal(fieldMatches('tp', 'HTTP'), true, 'an upper-case word is matched as lower case');
  });

  it('matches the description only with matchOnDescription, the detail only with matchOnDetail', () => {
    assert.deepEqual(shownItems(stores, '10 files'), []);
    assert.deepEqual(labels(shownItems(stores, '10 files', { matchOnDescription: true })), ['$(database) demo']);
    assert.deepEqual(shownItems(stores, 'expires', { matchOnDescription: true }), []);
    assert.deepEqual(labels(shownItems(stores, 'expires', { matchOnDetail: true })), ['$(database) demo']);
    assert.deepEqual(labels(shownItems(stores, '2026-11', { matchOnDescription: true })), ['$(database) demo', '$(database) HandBook']);
  });

  it('always shows an item with alwaysShow', () => {
    const withCreate = [...stores, item('$(add) Create Vector Store…', { alwaysShow: true })];
    assert.deepEqual(labels(shownItems(withCreate, 'zzz')), ['$(add) Create Vector Store…']);
  });

  it('never counts a separator: typing its label ("recently used") matches no store', () => {
    const grouped = [{ label: 'recently used', kind: -1 }, ...stores, { label: 'other stores', kind: -1 }];
    assert.deepEqual(shownItems(grouped, 'recently'), []);
    assert.deepEqual(labels(shownItems(grouped, 'demo')), ['$(database) demo']);
  });
});
