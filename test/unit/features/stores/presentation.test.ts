import * as assert from 'node:assert/strict';
import type { FileObject, VectorStore, VectorStoreFile } from '../../../../src/api/documents/schemas';
import {
  describeExpiry,
  escapeMarkdown,
  fileChoiceRows,
  formatBytes,
  isTerminalStatus,
  presentStore,
  presentStoreFile,
  typedQuery,
} from '../../../../src/features/stores/presentation';
import { timestampMs } from '../../../../src/common/timestamps';

const NOW = 1_750_000_000;

function store(extra: Partial<VectorStore> = {}): VectorStore {
  return { id: 'vs_1', name: 'handbook', created_at: NOW - 86_400, expires_at: null, metadata: {}, ...extra } as VectorStore;
}

function storeFile(extra: Partial<VectorStoreFile> = {}): VectorStoreFile {
  return { id: 'file-1', status: 'completed', last_error: null, metadata: {}, created_at: NOW, ...extra } as VectorStoreFile;
}

const info = { id: 'file-1', filename: 'guide.md', bytes: 2048, metadata: { owner: 'ana' } } as FileObject;

describe('tree presentation', () => {
  it('shows a store by name with its created date, metadata in the tooltip and a store contextValue', () => {
    const p = presentStore(store({ metadata: { team: 'platform' } }), NOW);
    assert.equal(p.label, 'handbook');
    assert.match(p.description, /^\d{4}-\d{2}-\d{2}$/);
    assert.match(p.tooltip, /ID: `vs_1`/);
    assert.match(p.tooltip, /\| team \| platform \|/);
    assert.equal(p.contextValue, 'store');
    assert.equal(p.icon.id, 'database');
  });

  it('shows the expiry in the description and marks expired stores', () => {
    assert.match(presentStore(store({ expires_at: NOW + 3 * 86_400 + 5 }), NOW).description, /expires in 3 days/);
    const expired = presentStore(store({ expires_at: NOW - 1 }), NOW);
    assert.match(expired.description, /expired/);
    assert.equal(expired.contextValue, 'store+expired');
    assert.equal(describeExpiry(null, NOW), undefined);
    assert.equal(describeExpiry(NOW + 7200, NOW), 'expires in 2 hours');
    assert.equal(describeExpiry(NOW + 60, NOW), 'expires in 1 minute');
  });

  it('reads created_at / expires_at of 10^11 or more as milliseconds, everywhere they are shown or compared', () => {
    const seconds = presentStore(store({ created_at: NOW - 86_400, expires_at: NOW + 3 * 86_400 + 5 }), NOW);
    const millis = presentStore(store({ created_at: (NOW - 86_400) * 1000, expires_at: (NOW + 3 * 86_400 + 5) * 1000 }), NOW);
    assert.equal(millis.description, seconds.description);
    assert.match(millis.description, /^\d{4}-\d{2}-\d{2} · expires in 3 days$/);
    assert.equal(millis.tooltip, seconds.tooltip);
    const expired = presentStore(store({ expires_at: (NOW - 1) * 1000 }), NOW);
    assert.equal(expired.contextValue, 'store+expired');
    assert.equal(describeExpiry((NOW + 7200) * 1000, NOW), 'expires in 2 hours');
    const file = presentStoreFile(storeFile({ created_at: NOW * 1000 }), info);
    assert.equal(file.tooltip, presentStoreFile(storeFile({ created_at: NOW }), info).tooltip);
    assert.equal(timestampMs(99_999_999_999), 99_999_999_999_000, 'just below 10^11 is still seconds');
    assert.equal(timestampMs(100_000_000_000), 100_000_000_000);
    assert.equal(timestampMs(undefined), undefined);
  });

  it('spins for in_progress, checks completed, and shows failures with last_error', () => {
    const running = presentStoreFile(storeFile({ status: 'in_progress' }), info);
    assert.equal(running.icon.id, 'loading~spin');
    assert.equal(running.contextValue, 'storeFile+in_progress');
    assert.equal(running.label, 'guide.md');
    const done = presentStoreFile(storeFile(), info);
    assert.equal(done.icon.id, 'check');
    assert.equal(done.description, '');
    const failed = presentStoreFile(storeFile({ status: 'failed', last_error: 'Unsupported file type: .exe' }), info);
    assert.equal(failed.icon.id, 'error');
    assert.match(failed.tooltip, /Error: Unsupported file type: \.exe/);
    assert.match(failed.description, /Unsupported file type/);
    assert.equal(failed.contextValue, 'storeFile+failed');
  });

  it('shows unknown statuses as they are, with a safe contextValue flag', () => {
    const p = presentStoreFile(storeFile({ status: 'queued for review' }), info);
    assert.equal(p.description, 'status: queued for review');
    assert.equal(p.icon.id, 'question');
    assert.equal(p.contextValue, 'storeFile+queued_for_review');
    assert.equal(isTerminalStatus('queued for review'), false);
    assert.equal(isTerminalStatus('cancelled'), true);
  });

  it('shows both the store-file and the file metadata; falls back to the id without a file record', () => {
    const p = presentStoreFile(storeFile({ metadata: { chapter: '2' } }), info);
    assert.match(p.tooltip, /Metadata \(in this store\):[\s\S]*\| chapter \| 2 \|/);
    assert.match(p.tooltip, /Metadata \(file\):[\s\S]*\| owner \| ana \|/);
    assert.match(p.tooltip, /Size: 2\.0 KB/);
    assert.equal(presentStoreFile(storeFile(), undefined).label, 'file-1');
  });

  it('escapes markdown and raw HTML in names and metadata', () => {
    assert.equal(escapeMarkdown('a|b *c* <img src=x>'), 'a\\|b \\*c\\* \\<img src=x\\>');
    const p = presentStore(store({ name: 'x', metadata: { '<b>k</b>': '[link](http://evil)' } }), NOW);
    assert.doesNotMatch(p.tooltip, /(?<!\\)<b>|(?<!\\)\]\(http/, 'no unescaped HTML or link');
    assert.match(p.tooltip, /\\<b\\>k/);
  });

  it('formats sizes', () => {
    assert.equal(formatBytes(12), '12 B');
    assert.equal(formatBytes(1536), '1.5 KB');
    assert.equal(formatBytes(50 * 1024 * 1024), '50 MB');
  });
});

describe('text typed into the store picker of a search', () => {
  it('is a query when it names no store, a filter when it does', () => {
    const stores = ['demo', 'Team Handbook'];
    assert.equal(typedQuery('how do I attach a folder', stores), 'how do I attach a folder');
    assert.equal(typedQuery('dem', stores), undefined);
    assert.equal(typedQuery('team hand', stores), undefined, 'case and spaces aside');
    assert.equal(typedQuery('   ', stores), undefined);
  });
});

describe('file picker rows', () => {
  it('name each file, say its status only when it is not ready, and show its id only beside another file of the same name', () => {
    const names: Record<string, string> = { 'file-1': 'guide.md', 'file-2': 'notes.md', 'file-3': 'notes.md' };
    const rows = fileChoiceRows(
      [
        { id: 'file-1', status: 'completed' },
        { id: 'file-2', status: 'in_progress' },
        { id: 'file-3', status: 'completed' },
        { id: 'file-4', status: 'failed' },
      ],
      (id) => names[id],
    );
    assert.deepEqual(rows, [
      { label: 'guide.md', fileId: 'file-1' },
      { label: 'notes.md', description: 'converting', detail: 'file-2', fileId: 'file-2' },
      { label: 'notes.md', detail: 'file-3', fileId: 'file-3' },
      // No name known: the id is its name.
      { label: 'file-4', description: 'conversion failed', fileId: 'file-4' },
    ]);
  });
});
