import * as assert from 'node:assert/strict';
import type { FileObject, VectorStore, VectorStoreFile } from '../../../src/api/documents/schemas';
import { presentResult } from '../../../src/features/search/searchController';
import { presentLoadMore, presentMessage, presentStore, presentStoreFile } from '../../../src/features/stores/presentation';
import type { ConnectionState } from '../../../src/services/connection';
import { presentStatus } from '../../../src/services/statusModel';

// What screen readers hear outside the chat panel: every tree row and the status bar item carry a
// spoken label (statuses in words, no codicon ids), and search results have no invisible characters.

const NOW = 1_750_000_000;
const INVISIBLE = /[\u200b-\u200f\u2060\ufeff]/;
const CODICON = /\$\([\w~-]+\)/;

const store = (extra: Partial<VectorStore> = {}) =>
  ({ id: 'vs_1', name: 'handbook', created_at: NOW - 86_400, expires_at: null, metadata: {}, ...extra }) as VectorStore;
const file = (extra: Partial<VectorStoreFile> = {}) =>
  ({ id: 'file-1', status: 'completed', last_error: null, metadata: {}, created_at: NOW, ...extra }) as VectorStoreFile;
const info = { id: 'file-1', filename: 'guide.md', bytes: 10, metadata: {} } as unknown as FileObject;

describe('spoken labels (accessibility)', () => {
  it('gives every kind of tree row an accessibility label that names it', () => {
    const rows = [
      presentStore(store(), NOW),
      presentStore(store({ expires_at: NOW - 10 }), NOW),
      ...['in_progress', 'completed', 'failed', 'cancelled', 'queued_for_review'].map((status) => presentStoreFile(file({ status }), info)),
      presentMessage('No files yet. Drop files here or attach some.'),
      presentMessage('Could not list the stores.', 'The service answered 503.'),
      presentLoadMore(50),
    ];
    for (const row of rows) {
      assert.ok(row.accessibilityLabel.trim().length > 0, `no spoken label for ${row.label}`);
      assert.ok(row.accessibilityLabel.includes(row.label.replace('…', '')), `"${row.accessibilityLabel}" does not name "${row.label}"`);
      assert.doesNotMatch(row.accessibilityLabel, CODICON);
    }
  });

  it('speaks a file status that the row only shows as an icon', () => {
    assert.equal(presentStoreFile(file({ status: 'completed' }), info).accessibilityLabel, 'guide.md, converted');
    assert.equal(presentStoreFile(file({ status: 'in_progress' }), info).accessibilityLabel, 'guide.md, converting');
    assert.equal(
      presentStoreFile(file({ status: 'failed', last_error: 'not a PDF' }), info).accessibilityLabel,
      'guide.md, conversion failed: not a PDF',
    );
    assert.equal(presentStoreFile(file({ status: 'queued_for_review' }), info).accessibilityLabel, 'guide.md, status queued for review');
    assert.match(
      presentStore(store({ expires_at: NOW - 10 }), NOW).accessibilityLabel,
      /^Vector store handbook, created \d{4}-\d\d-\d\d, expired$/,
    );
  });

  it('keeps a message row readable: no tooltip that repeats (and hides) the row text', () => {
    assert.equal(presentMessage('No files yet.').tooltip, undefined);
    assert.equal(presentMessage('No files yet.', 'No files yet.').tooltip, undefined);
    const error = presentMessage('Could not list the stores.', 'The service answered 503.');
    assert.equal(error.tooltip, 'The service answered 503.');
    assert.equal(error.accessibilityLabel, 'Could not list the stores. The service answered 503.');
  });

  it('gives the status bar item a spoken label without codicon ids in every state', () => {
    const states: ConnectionState[] = [
      { kind: 'idle' },
      { kind: 'starting' },
      { kind: 'local', url: 'http://127.0.0.1:4000' },
      { kind: 'remote', url: 'https://docs.example.com', host: 'docs.example.com' },
      { kind: 'signedOut', url: 'https://docs.example.com', host: 'docs.example.com' },
      { kind: 'error', message: 'port in use' },
    ];
    for (const state of states) {
      for (const wait of [0, 12]) {
        const p = presentStatus(state, wait);
        assert.match(p.text, CODICON, 'the visible text has its icon');
        assert.doesNotMatch(p.accessibilityLabel, CODICON);
        assert.match(p.accessibilityLabel, /^DocChat: /);
      }
    }
    assert.equal(
      presentStatus({ kind: 'local', url: 'http://127.0.0.1:4000' }, 12).accessibilityLabel.split('.')[0],
      'DocChat: Rate-limited (12 s)',
    );
  });

  it('shows search results without invisible characters and with a label that never matches the query', () => {
    const row = presentResult('deploy-guide.md', 0.8731, 'To roll back, run the rollback pipeline.', 'rollback pipeline');
    for (const text of [row.label, row.description, row.detail]) assert.doesNotMatch(text, INVISIBLE);
    // The quick pick sorts label matches first: an empty label keeps the service's score order.
    assert.equal(row.label, '');
    assert.equal(row.description, 'deploy-guide.md · score 0.87');
    assert.match(row.detail, /rollback pipeline/);
  });
});
