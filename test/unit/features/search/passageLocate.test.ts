import * as assert from 'node:assert/strict';
import { locatePassage } from '../../../../src/features/search/passageLocate';

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
