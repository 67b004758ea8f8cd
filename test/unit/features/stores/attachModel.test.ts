import * as assert from 'node:assert/strict';
import type { VectorStoreFile } from '../../../../src/api/documents/schemas';
import { SUPPORTED_DESCRIPTION } from '../../../../src/backend/convert/detect';
import {
  conversionChoice,
  convertingMessage,
  elapsedText,
  everySecond,
  mayUseOcr,
  parseUriList,
  summarizeAttach,
} from '../../../../src/features/stores/attachModel';
import { orderByRecent } from '../../../../src/services/recentStores';
import { ManualTimers } from '../manualTimers';

const file = (status: string, last_error: string | null = null) => ({ id: 'file-1', status, last_error, metadata: {} }) as VectorStoreFile;

describe('attach flow rules', () => {
  it('asks about OCR only for formats that can use it', () => {
    assert.equal(mayUseOcr('scan.PDF'), true);
    assert.equal(mayUseOcr('photo.jpeg'), true);
    assert.equal(mayUseOcr('slides.odp'), true);
    assert.equal(mayUseOcr('scans.zip'), true);
    assert.equal(mayUseOcr('notes.md'), false);
    for (const sheet of ['budget.xlsx', 'old.xls', 'plan.ods', 'data.csv']) {
      assert.equal(mayUseOcr(sheet), false, `no OCR question for ${sheet}`);
    }
    assert.equal(mayUseOcr('Makefile'), false);
  });

  it('decides the conversion from the setting, a remembered answer, the files and whether anyone can be asked', () => {
    const pdf = ['docs/scan.pdf', 'notes.md'];
    // "Always skip" and "Never skip" decide alone, whatever was remembered and whoever runs.
    assert.equal(conversionChoice({ mode: 'always', names: ['notes.md'], canAsk: true }), true);
    assert.equal(conversionChoice({ mode: 'always', names: pdf, remembered: false, canAsk: false }), true);
    assert.equal(conversionChoice({ mode: 'never', names: pdf, remembered: true, canAsk: true }), false);
    // "Ask": a question only for files that may use OCR, and only when someone can answer.
    assert.equal(conversionChoice({ mode: 'ask', names: pdf, canAsk: true }), 'ask');
    assert.equal(conversionChoice({ mode: 'ask', names: ['notes.md', 'data.csv'], canAsk: true }), false);
    assert.equal(conversionChoice({ mode: 'ask', names: [], canAsk: true }), false);
    assert.equal(conversionChoice({ mode: 'ask', names: pdf, canAsk: false }), false, 'in the background: full conversion');
    // A remembered answer is used without asking, in the background too.
    assert.equal(conversionChoice({ mode: 'ask', names: pdf, remembered: true, canAsk: true }), true);
    assert.equal(conversionChoice({ mode: 'ask', names: pdf, remembered: true, canAsk: false }), true);
    assert.equal(conversionChoice({ mode: 'ask', names: pdf, remembered: false, canAsk: true }), false);
  });

  it('reads a text/uri-list, skipping comments and blank lines', () => {
    assert.deepEqual(parseUriList('# comment\r\nfile:///a.md\r\n\r\nfile:///b%20c.txt\n'), ['file:///a.md', 'file:///b%20c.txt']);
  });

  it('quotes last_error when a single file fails', () => {
    const s = summarizeAttach('handbook', [
      { filename: 'scan.pdf', file: file('failed', 'The page has no text layer and OCR was skipped.') },
    ]);
    assert.equal(s.level, 'error');
    assert.match(s.message, /"scan\.pdf" could not be attached to "handbook": The page has no text layer/);
  });

  it('reports success, pending and mixed runs', () => {
    assert.deepEqual(summarizeAttach('h', [{ filename: 'a.md', file: file('completed') }]), {
      level: 'info',
      message: 'attached "a.md" to "h".',
    });
    assert.equal(summarizeAttach('h', [{ filename: 'a.md', file: file('in_progress'), cancelled: true }]).level, 'warning');
    assert.deepEqual(summarizeAttach('h', [{ filename: 'a.md', cancelled: true }]), {
      level: 'warning',
      message: 'attaching "a.md" to "h" was cancelled.',
    });
    assert.match(
      summarizeAttach('h', [
        { filename: 'a.md', file: file('completed') },
        { filename: 'b.md', cancelled: true },
      ]).message,
      /1 of 2 files attached to "h", 1 cancelled\./,
    );
    const mixed = summarizeAttach('h', [
      { filename: 'a.md', file: file('completed') },
      { filename: 'b.exe', error: 'Unsupported file type' },
      { filename: 'c.pdf', file: file('in_progress'), cancelled: true },
    ]);
    assert.equal(mixed.level, 'error');
    assert.match(mixed.message, /1 of 3 files attached to "h", 1 still converting, 1 failed \("b\.exe": Unsupported file type\)/);
  });

  it('says the supported file types once when several files fail conversion, and ends in one full stop', () => {
    const unsupported = (name: string, what: string) => `Unsupported file type: ${name} is ${what}; ${SUPPORTED_DESCRIPTION}.`;
    const summary = summarizeAttach('h', [
      { filename: 'a.zip', file: { ...file('failed'), last_error: unsupported('a.zip', 'a ZIP archive') } },
      { filename: 'b.bin', file: { ...file('failed'), last_error: unsupported('b.bin', 'binary data of an unknown type') } },
      { filename: 'c.exe', error: unsupported('c.exe', 'a program') },
    ]);
    assert.equal(
      summary.message,
      '0 of 3 files attached to "h", 3 failed ("a.zip": Unsupported file type: a.zip is a ZIP archive; ' +
        '"b.bin": Unsupported file type: b.bin is binary data of an unknown type; "c.exe": Unsupported file type: c.exe is a program). ' +
        `${SUPPORTED_DESCRIPTION.charAt(0).toUpperCase()}${SUPPORTED_DESCRIPTION.slice(1)}.`,
    );
  });

  it('orders stores by recent use, keeping the rest in their order', () => {
    const stores = ['a', 'b', 'c', 'd'].map((id) => ({ id }));
    assert.deepEqual(
      orderByRecent(stores, (s) => s.id, ['c', 'x', 'a']).map((s) => s.id),
      ['c', 'a', 'b', 'd'],
    );
  });

  it('tells how long the conversion has run while the service gives no progress, once a second on one timer', () => {
    const timers = new ManualTimers();
    let now = 0;
    const shown: string[] = [];
    let converting = 2;
    const ticker = everySecond(() => shown.push(convertingMessage(converting, now)), timers);
    assert.deepEqual(shown, ['converting 2 files… 0 s']);
    assert.deepEqual(timers.delays(), [1_000]);
    now = 1_000;
    timers.fireAll();
    converting = 1;
    now = 12_400;
    timers.fireAll();
    now = 125_000;
    timers.fireAll();
    assert.deepEqual(shown, ['converting 2 files… 0 s', 'converting 2 files… 1 s', 'converting… 12 s', 'converting… 2 min 5 s']);
    assert.equal(timers.count, 1, 'one timer at a time');
    ticker.dispose();
    assert.equal(timers.count, 0, 'disposed: no timer left');
    timers.fireAll();
    assert.equal(shown.length, 4);
    assert.equal(elapsedText(59_999), '59 s');
  });
});
