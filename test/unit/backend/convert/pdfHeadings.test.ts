import assert from 'node:assert/strict';
import { convertWithNotes } from '../../../../src/backend/convert/index';
import { headingLevel } from '../../../../src/backend/convert/pdf';
import { makePdf } from '../helpers';
import { convert } from './convertHelpers';

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

  /** Lines top to bottom from y = 740, each `gap` points below the last (a blank line's space where `gap` is larger). */
  const column = (lines: { text: string; size?: number; bold?: boolean; italic?: boolean; gap?: number }[]) => {
    let y = 740;
    return lines.map(({ gap = 15, ...line }) => ({ ...line, x: 72, y: (y -= gap) }));
  };
  const headingsOf = (markdown: string) => (markdown.match(/^#+ (?!Page \d).*$/gm) ?? []).map((h) => h.trim());
  const body = [
    { text: 'The gearbox was inspected after 500 hours of service and', size: 11 },
    { text: 'no wear was found on the bearings or on the main shaft.', size: 11 },
  ];

  it('a short italic line at body size standing alone above body text is a heading; an italic sentence and a caption are not', async () => {
    const page = column([
      { text: 'Inspection notes', size: 11, italic: true },
      ...body,
      { text: 'The oil was changed twice, as the manual asks.', size: 11, italic: true, gap: 30 },
      ...body,
      { text: 'Figure 2 Bearing temperatures', size: 11, italic: true, gap: 30 },
      ...body,
    ]);
    const markdown = await convert('notes.pdf', makePdf([{ placed: page }]));
    assert.deepEqual(headingsOf(markdown), ['#### Inspection notes'], markdown);
  });

  it('a bold line whose first word is "Table", "Tab" or "Chart" is a heading; a caption numbered in digits or roman numerals is not', async () => {
    const page = column([
      { text: 'Table views', size: 11, bold: true },
      ...body,
      { text: 'Chart index', size: 11, bold: true, gap: 30 },
      ...body,
      { text: 'Tab visibility', size: 11, bold: true, gap: 30 },
      ...body,
      { text: 'Table IV Bearing wear', size: 11, bold: true, gap: 30 },
      ...body,
      { text: 'Fig. 3 Oil temperatures', size: 11, bold: true, gap: 30 },
      ...body,
    ]);
    const markdown = await convert('captions.pdf', makePdf([{ placed: page }]));
    assert.deepEqual(headingsOf(markdown), ['#### Table views', '#### Chart index', '#### Tab visibility'], markdown);
  });

  it("a numbered line set a little larger than the body is a heading, by its number's depth; a numbered list item at body size and a line starting with the word A are not", async () => {
    const page = column([
      { text: '2 Results', size: 12 },
      ...body,
      { text: '2.3 Results by region', size: 12, gap: 30 },
      ...body,
      { text: '1. Check the oil level before each start', size: 11, gap: 30 },
      ...body,
      // A capital letter and a space are a word, not a section number.
      { text: 'A quick look at the figures', size: 12, gap: 30 },
      ...body,
    ]);
    const markdown = await convert('results.pdf', makePdf([{ placed: page }]));
    assert.deepEqual(headingsOf(markdown), ['### 2 Results', '#### 2.3 Results by region'], markdown);
  });

  it("headings are measured against the document's body size: a cover page of large type keeps its title", async () => {
    const cover = column([
      { text: 'Annual Report of the Wind Farm Cooperative', size: 26 },
      { text: 'Finance team', size: 11, gap: 60 },
    ]);
    const text = column(Array.from({ length: 8 }, () => body).flat());
    const markdown = await convert('report.pdf', makePdf([{ placed: cover }, { placed: text }]));
    assert.deepEqual(headingsOf(markdown), ['# Annual Report of the Wind Farm Cooperative'], markdown);
  });

  it('a heading keeps its size beside a footnote mark, and a label above a title in another size is a heading of its own', async () => {
    const page = [
      { text: 'Front cover', x: 72, y: 740, size: 22 },
      { text: 'Row and Column Access', x: 72, y: 705, size: 30 },
      { text: 'Control in the Database', x: 72, y: 672, size: 30 },
      { text: 'Results by region', x: 72, y: 600, size: 18 },
      // A footnote mark set small and raised, right after the heading's last letter.
      { text: '1', x: 72 + 'Results by region'.length * 18 * 0.5, y: 607, size: 8 },
      ...column(body).map((line) => ({ ...line, y: line.y - 160 })),
    ];
    const markdown = await convert('cover.pdf', makePdf([{ placed: page }]));
    const headings = headingsOf(markdown);
    assert.deepEqual(headings.slice(0, 2), ['# Front cover', '# Row and Column Access Control in the Database'], markdown);
    assert.match(headings[2] ?? '', /^## Results by region ?1$/, markdown);
    assert.equal(headings.length, 3, markdown);
  });

  it('four large lines in a row in different sizes are a banner, not headings', async () => {
    const page = [
      ...column([
        { text: 'Back cover', size: 24 },
        { text: 'Row and Column Access', size: 33, gap: 36 },
        { text: 'Control in the Database', size: 30, gap: 34 },
        { text: 'Redpaper', size: 28, gap: 32 },
      ]),
      ...column(Array.from({ length: 4 }, () => body).flat()).map((line) => ({ ...line, y: line.y - 200 })),
    ];
    const markdown = await convert('back.pdf', makePdf([{ placed: page }]));
    assert.deepEqual(headingsOf(markdown), [], markdown);
  });
});
