import assert from 'node:assert/strict';
import { convertWithNotes } from '../../../../src/backend/convert/index';
import { headingLevel } from '../../../../src/backend/convert/pdf';
import { makePdf } from '../helpers';

describe('backend: PDF headings from font size', function () {
  this.timeout(60_000);

  const page = [
    { text: 'Annual Report 2025', size: 26 },
    { text: 'Prepared by the finance team for the board of directors.', size: 11 },
    { text: 'Revenue grew in every region, led by the Nordics.', size: 11 },
    { text: '1 Results by region', size: 17 },
    { text: 'The Nordics sold 420 units in the first quarter.', size: 11 },
    { text: 'Iberia sold 310 units in the same period.', size: 11 },
    { text: '1.1 Nordics', size: 13.5 },
    { text: 'Growth came from two new distributors in Oslo.', size: 11 },
    { text: 'Small print: figures are unaudited.', size: 8 },
  ];

  for (const skipOcr of [false, true]) {
    it(`lines set clearly larger than the body text are headings, by size (skip_ocr: ${skipOcr})`, async () => {
      const { markdown } = await convertWithNotes('report.pdf', makePdf([{ sized: page }]), { skipOcr, maxBytes: 1 << 26 });
      for (const line of ['# Annual Report 2025', '## 1 Results by region', '### 1.1 Nordics']) {
        assert.ok(markdown.split('\n').includes(line), `missing heading ${JSON.stringify(line)} in:\n${markdown}`);
      }
      // Body text and small print stay plain text.
      for (const line of ['Revenue grew in every region, led by the Nordics.', 'Small print: figures are unaudited.']) {
        assert.ok(markdown.split('\n').includes(line), `missing plain line ${JSON.stringify(line)} in:\n${markdown}`);
      }
      assert.equal((markdown.match(/^#+ (?!Page \d)/gm) ?? []).length, 3, markdown);
    });
  }

  it('a page with a table keeps its headings as well as its table', async () => {
    const table = [
      ['Region', 'Units'],
      ['Nordics', '420'],
      ['Iberia', '310'],
    ];
    const { markdown } = await convertWithNotes('report.pdf', makePdf([{ sized: page.slice(0, 6), table }]), {
      skipOcr: false,
      maxBytes: 1 << 26,
    });
    for (const line of ['# Annual Report 2025', '## 1 Results by region']) {
      assert.ok(markdown.split('\n').includes(line), `missing heading ${JSON.stringify(line)} in:\n${markdown}`);
    }
    assert.match(markdown, /\|\s*Nordics\s*\|\s*420\s*\|/);
  });

  it('a page all in one size has no headings', async () => {
    const { markdown } = await convertWithNotes(
      'plain.pdf',
      makePdf([{ lines: ['Short title', 'A line of body text.', 'Another line.'] }]),
      {
        skipOcr: false,
        maxBytes: 1 << 26,
      },
    );
    assert.doesNotMatch(markdown, /^#+ (?!Page \d)/m);
  });

  it('heading levels by how much larger than the body', () => {
    assert.deepEqual(
      [24, 16, 13, 11.5, 11, 8].map((size) => headingLevel(size, 11)),
      [1, 2, 3, 0, 0, 0],
    );
  });
});
