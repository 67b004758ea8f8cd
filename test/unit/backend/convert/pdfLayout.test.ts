import assert from 'node:assert/strict';
import { convertWithNotes } from '../../../../src/backend/convert/index';
import { layoutFromItems, rulesFromOperators } from '../../../../src/backend/convert/pdf';
import { makePdf } from '../helpers';

type Placed = { text: string; x: number; y: number; size?: number; bold?: boolean; up?: boolean };
type Rule = { x: number; y: number; width: number; height: number };

async function markdownOf(pages: { placed: Placed[]; rules?: Rule[] }[], skipOcr = false): Promise<string> {
  return (await convertWithNotes('layout.pdf', makePdf(pages), { skipOcr, maxBytes: 1 << 26 })).markdown;
}

/** Lines of prose about as long as each other, as a justified column sets them. */
const LEFT = [
  'The north wind turbines were inspected in',
  'March and the gearbox oil was replaced on',
  'every unit that had run more than five',
  'hundred hours since the last service visit.',
  'Two units showed wear on the main bearing',
  'and were scheduled for a bearing change in',
  'April before the spring storms arrive at',
  'the coast and the output rises again for',
  'the whole farm during the windy months.',
  'The crew logged every reading in the book.',
];
const RIGHT = [
  'Solar panels on the depot roof produced',
  'more than expected in the first quarter,',
  'helped by a dry February and by the new',
  'inverters fitted during the winter stop.',
  'Cleaning the panels twice a month kept the',
  'yield high, and the battery bank carried',
  'the depot through two short grid outages',
  'without any loss of the stored readings',
  'from the weather station on the mast.',
  'Next year the roof gets forty more panels.',
];

describe('backend: PDF layout from text positions', function () {
  this.timeout(60_000);

  it('running text set between side headings and a margin note is read column by column, not as a table', async () => {
    // A back cover: side headings left, the blurb in the middle, a margin note right; the blurb's
    // sentences go on from line to line, so its lines line up with the others as rows of cells would.
    const rows: [string | undefined, string | undefined, string | undefined][] = [
      ['Plan the trip and', 'This guide explains how to book a train ticket online and how', 'RAILWAY'],
      ['pack light', 'to change it when your plans change. It covers refunds and', 'TRAVEL'],
      ['Know the rules', 'seat reservations on night trains in every country. This', 'SERIES'],
      ['of the road', 'guide is written for travellers who book their own tickets', undefined],
      ['Ask for help', 'and for the station staff who help them with a booking.', 'SECOND'],
    ];
    const cols = [60, 170, 480];
    const placed = rows.flatMap((cells, r) => cells.flatMap((text, c) => (text ? [{ text, x: cols[c]!, y: 600 - 16 * r, size: 10 }] : [])));
    const markdown = await markdownOf([{ placed }]);
    assert.ok(!markdown.includes('|'), `no table:\n${markdown}`);
    const prose = markdown.replace(/\s+/g, ' ');
    assert.ok(
      prose.includes(
        'This guide is written for travellers who book their own tickets and for the station staff who help them with a booking.',
      ),
      markdown,
    );
    assert.ok(prose.includes('Plan the trip and pack light Know the rules of the road Ask for help'), markdown);
    assert.ok(prose.includes('RAILWAY TRAVEL SERIES SECOND'), markdown);
  });

  it('a table laid out by positions becomes a markdown table, a cell of two lines kept apart by <br>; skip_ocr keeps its rows as lines', async () => {
    const cols = [72, 200, 330];
    const row = (y: number, cells: (string | undefined)[]) => cells.flatMap((text, c) => (text ? [{ text, x: cols[c]!, y }] : []));
    const pages = [
      {
        placed: [
          { text: 'Maintenance plan for the wind farm, spring season.', x: 72, y: 700 },
          ...row(660, ['Part', 'Interval', 'Owner']),
          ...row(640, ['Gearbox oil', '500 hours', 'Site crew']),
          ...row(620, ['Main bearing', undefined, 'Vendor']),
          ...row(600, ['Blade pitch', 'Yearly', 'Site crew']),
          // The second line of the cell above: only in the middle column, just below its row.
          ...row(586, [undefined, 'and after storms', undefined]),
          ...row(566, ['Yaw brake', '2 years', 'Vendor']),
          { text: 'The plan is reviewed every autumn by the operations manager.', x: 72, y: 520 },
        ],
      },
    ];
    const markdown = await markdownOf(pages);
    const expected = [
      '| Part | Interval | Owner |',
      '| --- | --- | --- |',
      '| Gearbox oil | 500 hours | Site crew |',
      '| Main bearing |  | Vendor |',
      '| Blade pitch | Yearly<br>and after storms | Site crew |',
      '| Yaw brake | 2 years | Vendor |',
    ].join('\n');
    assert.ok(markdown.includes(expected), `table missing in:\n${markdown}`);
    assert.ok(markdown.includes('Maintenance plan for the wind farm, spring season.'), markdown);
    assert.ok(markdown.includes('The plan is reviewed every autumn by the operations manager.'), markdown);
    // skip_ocr skips table recognition: each row a line, its cells apart.
    const skipped = await markdownOf(pages, true);
    assert.doesNotMatch(skipped, /^\|/m, skipped);
    for (const line of ['Part Interval Owner', 'Gearbox oil 500 hours Site crew', 'Main bearing Vendor']) {
      assert.ok(skipped.split('\n').includes(line), `missing ${JSON.stringify(line)} in:\n${skipped}`);
    }
  });

  it('a page in two columns is read left column first, then right, whatever order the lines are drawn in', async () => {
    // Drawn line by line across the page, as some producers write them.
    const placed: Placed[] = [{ text: 'Quarterly site report', x: 200, y: 740, size: 20 }];
    LEFT.forEach((text, i) => {
      placed.push({ text, x: 72, y: 700 - i * 14, size: 10 }, { text: RIGHT[i]!, x: 320, y: 700 - i * 14, size: 10 });
    });
    const markdown = await markdownOf([{ placed }]);
    const lines = markdown.split('\n');
    const at = (text: string) => lines.indexOf(text);
    for (const text of [...LEFT, ...RIGHT]) assert.ok(at(text) >= 0, `missing line ${JSON.stringify(text)} in:\n${markdown}`);
    for (let i = 1; i < LEFT.length; i++) assert.ok(at(LEFT[i - 1]!) < at(LEFT[i]!), markdown);
    for (let i = 1; i < RIGHT.length; i++) assert.ok(at(RIGHT[i - 1]!) < at(RIGHT[i]!), markdown);
    assert.ok(at(LEFT[LEFT.length - 1]!) < at(RIGHT[0]!), `right column before the end of the left one:\n${markdown}`);
    assert.ok(at('# Quarterly site report') >= 0 && at('# Quarterly site report') < at(LEFT[0]!), markdown);
    assert.doesNotMatch(markdown, /^\|/m, 'prose read as a table');
  });

  it('prose is not a table: two columns drawn column by column, a list with its numbers set apart, a letterhead', async () => {
    const placed: Placed[] = [
      ...LEFT.map((text, i) => ({ text, x: 72, y: 700 - i * 14, size: 10 })),
      ...RIGHT.map((text, i) => ({ text, x: 320, y: 700 - i * 14, size: 10 })),
    ];
    const list: Placed[] = [{ text: 'Before the next visit the crew will:', x: 72, y: 700, size: 10 }];
    ['check the oil level of every gearbox', 'replace the worn brake pads', 'photograph the blade tips'].forEach((text, i) =>
      list.push({ text: `${i + 1}.`, x: 76, y: 684 - i * 14, size: 10 }, { text, x: 108, y: 684 - i * 14, size: 10 }),
    );
    list.push({ text: 'Each step is signed off in the site book.', x: 72, y: 630, size: 10 });
    // A letterhead: the sender's address on the left, the reference on the right, three lines each.
    const letterhead: Placed[] = [
      ['North Wind Services', 'Reference NW-2041'],
      ['12 Harbour Road', 'Page 1 of 3'],
      ['Aberdeen', '2 March 2025'],
    ].flatMap(([left, right], i) => [
      { text: left!, x: 72, y: 740 - i * 14, size: 10 },
      { text: right!, x: 440, y: 740 - i * 14, size: 10 },
    ]);
    letterhead.push({ text: 'Dear customer, your turbines were serviced last week.', x: 72, y: 680, size: 10 });
    const markdown = await markdownOf([{ placed }, { placed: list }, { placed: letterhead }]);
    assert.doesNotMatch(markdown, /^\|/m, `prose read as a table:\n${markdown}`);
    for (const text of [...LEFT, ...RIGHT]) {
      assert.ok(markdown.split('\n').includes(text), `missing ${JSON.stringify(text)} in:\n${markdown}`);
    }
    for (const item of ['1. check the oil level of every gearbox', '2. replace the worn brake pads', '3. photograph the blade tips']) {
      assert.ok(markdown.split('\n').includes(item), `missing list item ${JSON.stringify(item)} in:\n${markdown}`);
    }
    assert.ok(markdown.split('\n').includes('North Wind Services Reference NW-2041'), markdown);
  });

  it('a right-to-left line is read from its right end, whatever order its words are drawn in', () => {
    // Hebrew "shalom olam" ("hello world"): the first word is the rightmost on the page.
    const first = { str: 'שלום', transform: [10, 0, 0, 10, 140, 700], width: 24 };
    const second = { str: 'עולם', transform: [10, 0, 0, 10, 110, 700], width: 24 };
    const below = { str: 'טוב', transform: [10, 0, 0, 10, 150, 686], width: 18 };
    for (const items of [
      [first, second, below],
      [second, first, below],
    ]) {
      assert.equal(layoutFromItems(items), 'שלום עולם\nטוב');
    }
  });
  it('a line of tens of thousands of text items is read whole, in order', () => {
    const words = Array.from({ length: 50_000 }, (_, k) => `w${k}`);
    // Each word a text item of its own, a little apart from the one before, as PDF.js gives a justified line.
    const items = words.map((str, k) => ({ str, transform: [10, 0, 0, 10, k * 40, 700], width: str.length * 5 }));
    assert.equal(layoutFromItems(items), words.join(' '));
  });

  it('a short bold line at body size standing alone above body text is a heading; bold words in a sentence and a bold lead-in are not', async () => {
    const body = (text: string, y: number) => ({ text, x: 72, y });
    const markdown = await markdownOf([
      {
        placed: [
          body('The wind farm report covers the first quarter of the year.', 720),
          { text: 'Maintenance Schedule', x: 72, y: 690, bold: true },
          body('Every turbine is inspected twice a year by the service crew.', 675),
          body('The gearbox oil is replaced when a unit has run 500 hours.', 661),
          { text: 'Note:', x: 72, y: 631, bold: true },
          body('Readings are logged in the book at the end of every visit.', 616),
          { text: 'Storm damage was', x: 72, y: 586, bold: true },
          { text: 'found on two blades and both were repaired in April.', x: 190, y: 586 },
          body('The crew replaced the worn brake pads on three units.', 572),
          { text: 'Output and Availability', x: 72, y: 542, bold: true },
          body('The farm produced more power than in the same quarter last year.', 527),
        ],
      },
    ]);
    const lines = markdown.split('\n');
    assert.ok(lines.includes('#### Maintenance Schedule'), markdown);
    assert.ok(lines.includes('#### Output and Availability'), markdown);
    assert.ok(lines.includes('Note:'), markdown);
    assert.ok(lines.includes('Storm damage was found on two blades and both were repaired in April.'), markdown);
    assert.equal(lines.filter((l) => l.startsWith('#### ')).length, 2, markdown);
  });

  it('a bold heading at body size ranks below headings set larger', async () => {
    const markdown = await markdownOf([
      {
        placed: [
          { text: 'Quarterly Report', x: 72, y: 730, size: 24, bold: true },
          { text: 'The wind farm report covers the first quarter of the year.', x: 72, y: 700 },
          { text: 'Maintenance Schedule', x: 72, y: 670, bold: true },
          { text: 'Every turbine is inspected twice a year by the service crew.', x: 72, y: 655 },
          { text: 'The gearbox oil is replaced when a unit has run 500 hours.', x: 72, y: 641 },
        ],
      },
    ]);
    const lines = markdown.split('\n');
    assert.ok(lines.includes('# Quarterly Report'), markdown);
    assert.ok(lines.includes('#### Maintenance Schedule'), markdown);
  });
  it('two rows between ruling lines are a table; the same rows without the lines, and prose between lines, are not', async () => {
    const rows: Placed[] = [
      { text: 'Turbine', x: 72, y: 600 },
      { text: 'Output', x: 250, y: 600 },
      { text: 'North 4', x: 72, y: 584 },
      { text: '2.4 MW', x: 250, y: 584 },
    ];
    const prose: Placed[] = [
      { text: 'The crew checked every turbine on the north ridge this week.', x: 72, y: 720 },
      { text: 'Two gearboxes need new oil before the winter storms arrive.', x: 72, y: 706 },
    ];
    // Rules above the first row and below the last, across both columns; and a box of prose.
    const rules: Rule[] = [
      { x: 70, y: 614, width: 260, height: 0.5 },
      { x: 70, y: 578, width: 260, height: 0.5 },
      { x: 70, y: 734, width: 400, height: 0.5 },
      { x: 70, y: 700, width: 400, height: 0.5 },
    ];
    const ruled = await markdownOf([{ placed: [...prose, ...rows], rules }]);
    const lines = ruled.split('\n');
    assert.ok(lines.includes('| Turbine | Output |'), ruled);
    assert.ok(lines.includes('| North 4 | 2.4 MW |'), ruled);
    assert.ok(lines.includes('The crew checked every turbine on the north ridge this week.'), ruled);
    const bare = await markdownOf([{ placed: [...prose, ...rows] }]);
    assert.ok(!bare.includes('|'), bare);
    assert.ok(bare.split('\n').includes('Turbine Output'), bare);
  });

  it('in a table drawn with ruling lines, the lines between two rules are one row, however many lines its cells wrap over', async () => {
    const placed: Placed[] = [
      { text: 'Site', x: 72, y: 600 },
      { text: 'Finding', x: 220, y: 600 },
      // Row 1: both cells wrap over two lines.
      { text: 'North', x: 72, y: 578 },
      { text: 'Gearbox oil low,', x: 220, y: 578 },
      { text: 'ridge', x: 72, y: 564 },
      { text: 'refilled on site', x: 220, y: 564 },
      // Row 2: the second cell wraps over three lines.
      { text: 'Harbour', x: 72, y: 542 },
      { text: 'Blade tip worn,', x: 220, y: 542 },
      { text: 'repair booked', x: 220, y: 528 },
      { text: 'for April', x: 220, y: 514 },
    ];
    const rules: Rule[] = [
      { x: 70, y: 614, width: 300, height: 0.5 },
      { x: 70, y: 592, width: 300, height: 0.5 },
      { x: 70, y: 556, width: 300, height: 0.5 },
      { x: 70, y: 506, width: 300, height: 0.5 },
    ];
    const markdown = await markdownOf([{ placed, rules }]);
    const lines = markdown.split('\n');
    assert.ok(lines.includes('| Site | Finding |'), markdown);
    assert.ok(lines.includes('| North<br>ridge | Gearbox oil low,<br>refilled on site |'), markdown);
    assert.ok(lines.includes('| Harbour | Blade tip worn,<br>repair booked<br>for April |'), markdown);
  });
  it('ruling lines are read from stroked lines, stroked boxes and thin filled boxes, in page coordinates', () => {
    const ops = { save: 10, restore: 11, transform: 12, constructPath: 91, paintFormXObjectBegin: 74, paintFormXObjectEnd: 75 };
    const pathOps = { ...ops, paints: new Set([20, 22]), stroke: new Set([20]) };
    const rules = rulesFromOperators(
      [ops.save, ops.transform, ops.constructPath, ops.restore, ops.constructPath, ops.constructPath, ops.constructPath],
      [
        null,
        [2, 0, 0, 2, 10, 20],
        // A stroked line from (0, 100) to (100, 100), drawn at twice the size and moved by (10, 20).
        [20, [new Float32Array([0, 0, 100, 1, 100, 100])], null],
        null,
        // A stroked box 200 wide and 50 high: its top and bottom edges.
        [20, [new Float32Array([0, 50, 500, 1, 250, 500, 1, 250, 550, 1, 50, 550, 3])], null],
        // A thin filled box: one rule through its middle.
        [22, [new Float32Array([0, 60, 300, 1, 360, 300, 1, 360, 301, 1, 60, 301, 3])], null],
        // A curve and a clip path (no painting) are not rules.
        [28, [new Float32Array([0, 0, 400, 1, 300, 400])], null],
      ],
      pathOps,
    );
    assert.deepEqual(
      rules.map((r) => [r.x0, r.x1, r.y]),
      [
        [50, 250, 550],
        [50, 250, 500],
        [60, 360, 300.5],
        [10, 210, 220],
      ],
    );
  });
  it('a table ruled only at its header and foot keeps one row per line, a label set just off its row’s baseline joining it', async () => {
    const row = (y: number, cells: string[], labelY = y): Placed[] =>
      cells.map((text, c) => ({ text, x: 72 + c * 90, y: c === 0 ? labelY : y }));
    const placed: Placed[] = [
      ...row(600, ['Site', 'Turbines', 'Output', 'Hours']),
      ...row(580, ['North', '12', '28 MW', '2,140']),
      ...row(566, ['Harbour', '8', '19 MW', '1,980']),
      // Its label drawn 4 pt above the row's figures, as some PDFs set it.
      ...row(552, ['Ridge', '5', '11 MW', '2,010'], 556),
      ...row(538, ['Valley', '9', '21 MW', '1,870']),
    ];
    const rules: Rule[] = [
      { x: 70, y: 614, width: 330, height: 0.5 },
      { x: 70, y: 593, width: 330, height: 0.5 },
      { x: 70, y: 530, width: 330, height: 0.5 },
    ];
    const markdown = await markdownOf([{ placed, rules }]);
    const lines = markdown.split('\n');
    for (const expected of [
      '| Site | Turbines | Output | Hours |',
      '| North | 12 | 28 MW | 2,140 |',
      '| Harbour | 8 | 19 MW | 1,980 |',
      '| Ridge | 5 | 11 MW | 2,010 |',
      '| Valley | 9 | 21 MW | 1,870 |',
    ]) {
      assert.ok(lines.includes(expected), `missing ${expected} in:\n${markdown}`);
    }
  });

  it('in a table ruled only at its header and foot, a cell wrapped onto a second line stays in its row', async () => {
    const row = (y: number, cells: string[]): Placed[] => cells.flatMap((text, c) => (text ? [{ text, x: 72 + c * 110, y }] : []));
    const placed: Placed[] = [
      ...row(600, ['Site', 'Turbines', 'Remarks']),
      ...row(580, ['North', '12', 'Gearbox oil changed']),
      // The remark wraps: its second line, closer to its row than the next row is.
      ...row(568, ['', '', 'after 500 hours']),
      ...row(552, ['Harbour', '8', 'No findings']),
      ...row(538, ['Ridge', '5', 'Blade repaired']),
      ...row(524, ['Valley', '9', 'No findings']),
    ];
    const rules: Rule[] = [
      { x: 70, y: 614, width: 340, height: 0.5 },
      { x: 70, y: 593, width: 340, height: 0.5 },
      { x: 70, y: 516, width: 340, height: 0.5 },
    ];
    const markdown = await markdownOf([{ placed, rules }]);
    const lines = markdown.split('\n');
    for (const expected of [
      '| Site | Turbines | Remarks |',
      '| North | 12 | Gearbox oil changed<br>after 500 hours |',
      '| Harbour | 8 | No findings |',
      '| Ridge | 5 | Blade repaired |',
      '| Valley | 9 | No findings |',
    ]) {
      assert.ok(lines.includes(expected), `missing ${expected} in:\n${markdown}`);
    }
  });

  it('a header row set on a shaded band is one row, however many lines its cells wrap over; the rows below stay apart', async () => {
    const row = (y: number, cells: string[]): Placed[] => cells.map((text, c) => ({ text, x: 72 + c * 110, y }));
    const placed: Placed[] = [
      ...row(608, ['Sales', 'Units sold', 'Share of']),
      ...row(596, ['region', 'in 2024', 'revenue']),
      ...row(576, ['Nordics', '420', '31 %']),
      ...row(560, ['Iberia', '310', '22 %']),
      ...row(544, ['Alps', '200', '14 %']),
    ];
    // The header's shading: one filled box behind both of its lines, and no ruling lines.
    const rules: Rule[] = [{ x: 66, y: 590, width: 340, height: 30 }];
    const markdown = await markdownOf([{ placed, rules }]);
    const lines = markdown.split('\n');
    for (const expected of [
      '| Sales<br>region | Units sold<br>in 2024 | Share of<br>revenue |',
      '| Nordics | 420 | 31 % |',
      '| Iberia | 310 | 22 % |',
      '| Alps | 200 | 14 % |',
    ]) {
      assert.ok(lines.includes(expected), `missing ${expected} in:\n${markdown}`);
    }
  });

  it('column headers set sideways above a table are its header row, with the label beside them over the first column', async () => {
    const marks = (y: number, label: string, cols: number[]): Placed[] => [
      { text: label, x: 72, y },
      ...cols.map((c) => ({ text: 'X', x: 300 + c * 30, y })),
    ];
    const placed: Placed[] = [
      // A paragraph above the table: a page's text mostly set upright.
      ...LEFT.slice(0, 6).map((text, k) => ({ text, x: 72, y: 700 - k * 14 })),
      { text: 'Task', x: 72, y: 575 },
      // Each header reads upwards from just above the first row, over its column of marks; no row marks the last column.
      ...['Mechanic', 'Engineer', 'Manager', 'Log only'].map((text, c) => ({ text, x: 303 + c * 30, y: 518, up: true })),
      ...marks(500, 'Change the gearbox oil', [0, 2]),
      ...marks(484, 'Replace a blade bearing', [0, 1]),
      ...marks(468, 'Approve a shutdown', [1, 2]),
      ...marks(452, 'Read the output log', [0, 1, 2]),
    ];
    const markdown = await markdownOf([{ placed }]);
    const lines = markdown.split('\n');
    for (const expected of [
      '| Task | Mechanic | Engineer | Manager | Log only |',
      '| Change the gearbox oil | X |  | X |  |',
      '| Approve a shutdown |  | X | X |  |',
    ]) {
      assert.ok(lines.includes(expected), `missing ${expected} in:\n${markdown}`);
    }
    // Used as headers, the sideways words are not repeated after the page's text.
    assert.equal(markdown.match(/Mechanic/g)?.length, 1, markdown);
  });

  it('a table with a thousand sideways column headers (a column no row filled each) keeps every header', () => {
    const item = (str: string, x: number, y: number, up = false) => ({
      str,
      transform: up ? [0, 10, -10, 0, x, y] : [10, 0, 0, 10, x, y],
      width: up ? 0 : str.length * 5,
    });
    const heads = Array.from({ length: 1000 }, (_, k) => `h${k}`);
    const items = [
      // Upright prose below the table, so that most of the page's text is upright.
      ...Array.from({ length: 80 }, (_, k) => item('x'.repeat(400), 50, 300 - k * 14)),
      ...['A', 'B', 'C', 'D'].flatMap((row, r) => [1, 2, 3].map((c) => item(`${row}${c}`, c * 60 - 10, 700 - r * 12))),
      // Each header reads upwards from just above the first row, right of the filled columns: a column no row filled.
      ...heads.map((text, k) => item(text, 300 + k * 15, 712, true)),
    ];
    const lines = (layoutFromItems(items) ?? '').split('\n');
    assert.ok(lines.includes(`|  |  |  | ${heads.join(' | ')} |`), lines.slice(0, 3).join('\n').slice(0, 500));
    assert.ok(lines.includes(`| B1 | B2 | B3 |${'  |'.repeat(heads.length)}`), lines.slice(0, 5).join('\n').slice(0, 500));
  });

  it("a line's size is the one most of its characters are set in, however many other sizes it mixes", () => {
    const item = (str: string, x: number, y: number, size = 10) => ({
      str,
      transform: [size, 0, 0, size, x, y],
      width: str.length * size * 0.5,
    });
    const items = [
      ...LEFT.map((text, k) => item(text, 72, 700 - k * 14)),
      // Fifteen characters at the body size, then nine set small and nine set large: still a line of body text.
      item('The gearbox ran', 72, 540),
      item('ppm units', 150, 540, 7),
      item('Δθ ≤ 4 °C', 185, 540, 16),
      ...RIGHT.map((text, k) => item(text, 72, 526 - k * 14)),
    ];
    const markdown = layoutFromItems(items) ?? '';
    assert.ok(markdown.split('\n').includes('The gearbox ran ppm units Δθ ≤ 4 °C'), markdown);
    assert.doesNotMatch(markdown, /^#/m, markdown);
  });
});
