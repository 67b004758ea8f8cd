import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  blocksFromElements,
  blocksFromMarkdown,
  byFormat,
  rowsFromHtml,
  scoreStructure,
  unstructuredCases,
} from '../../bench/conversion/structure';

describe('bench: conversion structure against expected output', () => {
  const expected = blocksFromMarkdown(
    [
      '## 1 Introduction',
      '',
      'Wind turbines need their gearbox oil changed regularly.',
      '',
      '<!-- image -->',
      '',
      '| Part | Interval |',
      '|------|----------|',
      '| Gearbox oil | 500 hours |',
      '| Main bearing | 2 years |',
      '',
      '- Blades are inspected after every storm season.',
      '',
      '## 2 Results',
    ].join('\n'),
  );

  it('reads expected markdown as headings, paragraphs, list items and table rows', () => {
    assert.deepEqual(
      expected.map((b) => [b.kind, b.rows ?? b.text]),
      [
        ['heading', '1 Introduction'],
        ['text', 'Wind turbines need their gearbox oil changed regularly.'],
        [
          'table',
          [
            ['Part', 'Interval'],
            ['Gearbox oil', '500 hours'],
            ['Main bearing', '2 years'],
          ],
        ],
        ['text', 'Blades are inspected after every storm season.'],
        ['heading', '2 Results'],
      ],
    );
  });

  it('a conversion with everything in place scores full marks; DocChat’s own page headings are not counted', () => {
    const markdown = [
      '## Page 1',
      '',
      '# 1 Introduction',
      '',
      'Wind turbines need their gearbox oil changed regularly.',
      '',
      '| Part | Interval |',
      '| --- | --- |',
      '| Gearbox oil | 500 hours |',
      '| Main bearing | 2 years |',
      '',
      'Blades are inspected after every storm season.',
      '',
      '### 2 Results',
    ].join('\n');
    assert.deepEqual(scoreStructure(markdown, expected), {
      words: { found: 29, total: 29 },
      // Anchors shorter than 12 comparable characters ("2results") are too common to place.
      order: { inOrder: 2, pairs: 2 },
      cells: { inRow: 6, total: 6 },
      headings: { expected: 2, found: 2, marked: 2, right: 2 },
    });
  });

  it('cells out of their rows, paragraphs out of order and headings as plain text are counted as such', () => {
    const markdown = [
      'Blades are inspected after every storm season.',
      '1 Introduction',
      'Wind turbines need their gearbox oil changed regularly.',
      'Part Interval Gearbox oil 500 hours',
      '| Main bearing | 2 years |',
      '## Notes on the page',
    ].join('\n');
    const score = scoreStructure(markdown, expected);
    assert.deepEqual(score.cells, { inRow: 2, total: 6 });
    // "1 Introduction" is before "Wind turbines…" (in order); "Wind turbines…" before "Blades…" is not.
    assert.deepEqual(score.order, { inOrder: 1, pairs: 2 });
    assert.deepEqual(score.headings, { expected: 2, found: 0, marked: 1, right: 0 });
    assert.equal(score.words.found, 27, 'all words but "2 Results" (one "2" is in "2 years")');
  });

  it('reads Unstructured elements: a Title is a heading, a Table its HTML rows, and sums scores per format', () => {
    const blocks = blocksFromElements([
      { type: 'Title', text: 'Stanley Cups' },
      {
        type: 'Table',
        text: 'Team Location Blues STL',
        metadata: { text_as_html: '<table><tr><th>Team</th><th>Location</th></tr><tr><td>Blues</td><td>St &amp; L</td></tr></table>' },
      },
      { type: 'NarrativeText', text: 'First paragraph.\n\nSecond paragraph.' },
    ]);
    assert.deepEqual(
      blocks.map((b) => [b.kind, b.rows ?? b.text]),
      [
        ['heading', 'Stanley Cups'],
        [
          'table',
          [
            ['Team', 'Location'],
            ['Blues', 'St & L'],
          ],
        ],
        ['text', 'First paragraph.'],
        ['text', 'Second paragraph.'],
      ],
    );
    assert.deepEqual(rowsFromHtml('<tr><td colspan="2">A <b>b</b></td></tr>'), [['A b']]);
    const score = scoreStructure('## Sheet: Stanley Cups\n\n| Team | Location |\n| --- | --- |', blocks);
    const sums = byFormat([
      { file: 'a.xlsx', score },
      { file: 'b.xlsx', score },
    ]);
    assert.equal(sums.get('xlsx')!.files, 2);
    assert.deepEqual(sums.get('xlsx')!.score.cells, { inRow: 4, total: 8 });
    assert.deepEqual(sums.get('xlsx')!.score.headings, { expected: 2, found: 2, marked: 2, right: 2 });
  });
  it('scores an Unstructured document against its partitioned output when ingest tests also expect chunked ones', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'unstructured-'));
    try {
      const file = (rel: string, content: string) => {
        mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        writeFileSync(path.join(root, rel), content);
      };
      file('example-docs/handbook.docx', 'docx');
      const out = 'test_unstructured_ingest/expected-structured-output';
      const partitioned = [
        { type: 'Header', text: 'US Trustee Handbook' },
        { type: 'NarrativeText', text: 'The standing trustee has a fiduciary responsibility.' },
      ];
      // Chunks with overlap repeat text, and split words.
      const chunked = [
        { type: 'CompositeElement', text: 'US Trustee Handbook\n\nThe standing trustee has a fid' },
        { type: 'CompositeElement', text: 'trustee has a fiduciary responsibility.' },
      ];
      file(`${out}/box/handbook.docx.json`, JSON.stringify(partitioned));
      // Listed after the partitioned one in the same walk.
      file(`${out}/local-single-file-basic-chunking/handbook.docx.json`, JSON.stringify(chunked));
      const cases = unstructuredCases(root);
      assert.deepEqual(
        cases.map((c) => [c.file, c.expected.map((b) => b.text)]),
        [['handbook.docx', ['US Trustee Handbook', 'The standing trustee has a fiduciary responsibility.']]],
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
