import * as assert from 'node:assert/strict';
import { locateQuote, type TextSpan } from '../../../../src/chatCore/quoteLocate';
import { locatePassage } from '../../../../src/chatCore/passageLocate';
import { highlightedSpans } from '../../../../src/features/search/passageLocate';

const source = [
  'export function add(a: number, b: number): number {',
  '  return a + b;',
  '}',
  '',
  'export function multiplyNumbers(a: number, b: number): number {',
  '  return a * b;',
  '}',
].join('\n');

describe('locating a passage', () => {
  it('finds an exact chunk', () => {
    const text = 'intro\n\n## Setup\nRun npm install first.\n\nmore';
    const span = locatePassage(text, '## Setup\nRun npm install first.');
    assert.deepEqual(span, { start: text.indexOf('## Setup'), end: text.indexOf('first.') + 'first.'.length });
  });

  it('finds a fenced code chunk in the original source file', () => {
    const chunk = '# math.ts\n\n```ts\nexport function multiplyNumbers(a: number, b: number): number {\n  return a * b;\n}\n```';
    const span = locatePassage(source, chunk)!;
    assert.ok(span);
    assert.equal(source.slice(span.start, span.end), 'export function multiplyNumbers(a: number, b: number): number {\n  return a * b;');
  });

  it('returns undefined when nothing of the passage is in the document', () => {
    assert.equal(locatePassage(source, 'Completely different text that is nowhere'), undefined);
    assert.equal(locatePassage(source, '   '), undefined);
  });

  it('ignores a later line that is far away from the passage', () => {
    const far = `${'first line of the passage\n'}${'x'.repeat(5000)}\nsecond line of the passage`;
    const span = locatePassage(far, 'first line of the passage\nsecond line of the passage')!;
    assert.equal(far.slice(span.start, span.end), 'first line of the passage');
  });

  it('finds the text of a chunk that starts with its section heading far above it, not the heading', () => {
    // The backend puts the section's heading before every chunk of the section; the converted
    // chunk differs from the file (a table re-aligned), so only its lines can be matched.
    const section = [
      '### How it fits together',
      '',
      'Layers. '.repeat(400),
      '',
      'Build and run:',
      '',
      '| command | what it does |',
      '|---|---|',
      '| `npm test` | every test layer |',
    ];
    const text = ['# DocChat', '', ...section, '', '## Next'].join('\n');
    const chunk = [
      '### How it fits together',
      '',
      'Build and run:',
      '',
      '| command | what it does |',
      '| --- | --- |',
      '| `npm test` | every test layer |',
    ].join('\n');
    const span = locatePassage(text, chunk)!;
    assert.equal(
      text.slice(span.start, span.end),
      'Build and run:\n\n| command | what it does |\n|---|---|\n| `npm test` | every test layer |',
    );
  });
});

const README = [
  '# Folder sync',
  '',
  ...Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of the section says something else entirely.`),
  '',
  "- **Sync Folder to Vector Store…** (a folder's Explorer context menu, or the command palette) picks",
  '  or creates the store, then compares the folder with it. The files are those DocChat can convert.',
  '- Deleted files are removed as `docchat.sync.removeDeleted` says.',
  '',
  '| setting | default | what it does |',
  '|---|---|---|',
  '| `docchat.stores.pageSize` | `50` | stores loaded per page |',
  '| `docchat.sync.watch` | `false` | re-sync a followed folder |',
  '',
].join('\n');
const whole: TextSpan = { start: 0, end: README.length };
const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;

describe('locating what an answer quoted of a passage', () => {
  it('finds a quoted sentence whose line break, indent and list marker the quote left out', () => {
    const quote =
      "**Sync Folder to Vector Store…** (a folder's Explorer context menu, or the command palette) picks or creates the store, then compares the folder with it.";
    const [span, ...more] = locateQuote(README, quote, whole);
    assert.equal(more.length, 0);
    assert.equal(README.slice(span!.start, span!.end).replace(/\s+/g, ' '), quote);
    assert.equal(lineOf(README, span!.start), 34, 'the quote is found where it is, far below the top of the section');
  });

  it("finds a quoted table's rows, not its header", () => {
    const quote = '| setting | default | what it does |\n|---|---|---|\n| `docchat.sync.watch` | `false` | re-sync a followed folder |';
    const spans = locateQuote(README, quote, whole);
    assert.deepEqual(
      spans.map((s) => README.slice(s.start, s.end)),
      ['| `docchat.sync.watch` | `false` | re-sync a followed folder |'],
    );
  });

  it("places a statement in the answer's own words at the sentence holding most of its words", () => {
    const [span] = locateQuote(README, 'Files deleted from the folder are removed as docchat.sync.removeDeleted says', whole);
    assert.equal(README.slice(span!.start, span!.end), 'Deleted files are removed as `docchat.sync.removeDeleted` says.');
  });

  it('finds nothing for a statement the passage does not hold, or outside the passage', () => {
    assert.deepEqual(locateQuote(README, 'Invoices are kept for ten years', whole), []);
    const top: TextSpan = { start: 0, end: README.indexOf('- **Sync') };
    assert.deepEqual(locateQuote(README, 'Deleted files are removed as `docchat.sync.removeDeleted` says.', top), []);
  });

  it("highlights the quotes instead of the passage, and scrolls to the clicked citation's", () => {
    const quotes = ['Deleted files are removed as `docchat.sync.removeDeleted` says.', 'The files are those DocChat can convert.'];
    const { spans, focused } = highlightedSpans(README, whole, { quotes, index: 1 });
    assert.deepEqual(
      spans.map((s) => README.slice(s.start, s.end)),
      quotes,
    );
    assert.equal(README.slice(focused.start, focused.end), quotes[1]);
    assert.deepEqual(highlightedSpans(README, whole, { quotes }).focused, spans[0], 'without a clicked citation, the first quote');
  });

  it('highlights a quote that starts and ends mid-line by its characters, across the line it wraps onto', () => {
    const text = '## Retention\n\nPaper goes to the archive. Invoices are kept for ten\nyears after the fiscal year. Receipts follow.\n';
    const passage: TextSpan = { start: 0, end: text.length };
    const quote = 'Invoices are kept for ten years after the fiscal year.';
    const { spans, focused, wholeLines } = highlightedSpans(text, passage, { quotes: [quote], index: 0 });
    assert.equal(wholeLines, false, 'a quote is highlighted by its characters, not its lines');
    assert.deepEqual(spans, [{ start: text.indexOf('Invoices'), end: text.indexOf('Receipts') - 1 }]);
    assert.equal(text.slice(focused.start, focused.end), 'Invoices are kept for ten\nyears after the fiscal year.');
  });

  it('highlights the whole passage when the answer quoted nothing found in it', () => {
    assert.deepEqual(highlightedSpans(README, whole), { spans: [whole], focused: whole, wholeLines: true });
    assert.deepEqual(highlightedSpans(README, whole, { quotes: ['Nothing like this is in the file at all'] }), {
      spans: [whole],
      focused: whole,
      wholeLines: true,
    });
  });

  it("scrolls a search result's passage to its sentence that best meets the query, the passage highlighted whole", () => {
    const text = [
      '# DocChat',
      '',
      'Intro.',
      '',
      '## Settings',
      '',
      '| setting | default | what it does |',
      '|---|---|---|',
      '| `docchat.documents.url` | empty | documents service URL |',
      '| `docchat.search.maxResults` | 10 | results of a search |',
      "| `docchat.network.proxy` | empty | the proxy DocChat's requests go through |",
      '',
      'More settings are in the settings editor.',
      '',
    ].join('\n');
    const passage: TextSpan = { start: text.indexOf('## Settings'), end: text.length };
    const row = "| `docchat.network.proxy` | empty | the proxy DocChat's requests go through |";
    // "settings" is in the heading and the last sentence; "proxy" only in its row, which decides.
    const found = highlightedSpans(text, passage, { quotes: [], query: 'proxy settings' });
    assert.deepEqual(found.spans, [passage], 'the whole passage is highlighted');
    assert.equal(found.wholeLines, true);
    assert.equal(text.slice(found.focused.start, found.focused.end).trim(), row);
    const results = highlightedSpans(text, passage, { quotes: [], query: 'results of a search' }).focused;
    assert.match(text.slice(results.start, results.end), /docchat\.search\.maxResults/);
    // A query none of whose words the passage holds, or none at all: the passage's start.
    assert.deepEqual(highlightedSpans(text, passage, { quotes: [], query: 'telemetry' }).focused, passage);
    assert.deepEqual(highlightedSpans(text, passage, { quotes: [], query: '' }).focused, passage);
  });

  it('checks a quoted table line ending in a long run of spaces in linear time', () => {
    // Long enough that a quadratic check would run for minutes, past the suite's timeout.
    const line = `|--${' '.repeat(400_000)}x|`;
    assert.deepEqual(locateQuote('| a |\n| b |', `| a |\n${line}`), []);
  });
});
