import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import JSZip from 'jszip';
import { convertWithNotes } from '../../../../src/backend/convert/index';
import { makePdf } from '../helpers';
import * as corpus from './corpus';

async function convert(filename: string, data: string | Uint8Array, skipOcr = false, maxOcrMemoryMb?: number) {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return convertWithNotes(filename, bytes, { skipOcr, maxBytes: 256 * 1024 * 1024, maxOcrMemoryMb });
}

async function conversionError(filename: string, data: string | Uint8Array, skipOcr = false, maxOcrMemoryMb?: number): Promise<string> {
  try {
    await convert(filename, data, skipOcr, maxOcrMemoryMb);
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail(`${filename} converted, but it should have failed`);
}

function holds(markdown: string, must: (string | RegExp)[], mustNot: string[] = []) {
  for (const m of must) {
    if (typeof m === 'string') assert.ok(markdown.includes(m), `missing ${JSON.stringify(m)} in:\n${markdown}`);
    else assert.match(markdown, m);
  }
  for (const m of mustNot) assert.ok(!markdown.includes(m), `unexpected ${JSON.stringify(m)} in:\n${markdown}`);
}

const OCR_LINES = ['Invoice 2041', 'Total due 950 EUR'];

describe('backend: conversion of office files, mail, data, archives and images', function () {
  // OCR runs Tesseract (WebAssembly) on a shared machine.
  this.timeout(180_000);

  it('XLSX: one table per sheet under the sheet name, dates as dates', async () => {
    const { markdown } = await convert('budget.xlsx', await corpus.xlsxWorkbook());
    holds(markdown, [
      '## Sheet: Budget 2025',
      '| Item | Cost | Approved | Review date |',
      '| Laptops | 12500 | TRUE | 2025-03-14 |',
      '## Sheet: Staff',
      '| Ada Lovelace | Analytics |',
    ]);
  });

  it('XLS (BIFF8) and ODS: every sheet with its cells, accents intact', async () => {
    for (const [name, type] of [
      ['sales.xls', 'biff8'],
      ['sales.ods', 'ods'],
    ] as const) {
      const { markdown } = await convert(name, await corpus.sheetJsWorkbook(type));
      holds(
        markdown,
        ['## Sheet: Sales Q1', '| Region | Revenue |', '| Nordics | 1200 |', '| Iberia | 875.25 |', '## Sheet: Notes', 'Grüße aus Köln'],
        ['\ufffd'],
      );
    }
  });

  it('XLS and XLSX: numbers formatted as dates or times are written as dates and times; a colour format is still a number', async () => {
    for (const [name, type] of [
      ['plan.xls', 'biff8'],
      ['plan.xlsx', 'xlsx'],
    ] as const) {
      const { markdown } = await convert(name, await corpus.datedWorkbook(type));
      holds(
        markdown,
        ['| Kick-off | 2026-03-31 | 7 |', '| Review | 2025-12-09 12:00:00 | 1200 |', '| Stand-up | 09:00:00 | 3 |'],
        ['46112', '46000.5', '0.375'],
      );
    }
  });

  it('CSV in Shift-JIS and TSV in UTF-16 are decoded and become tables', async () => {
    const csv = await convert('prices.csv', corpus.shiftJisCsv());
    holds(csv.markdown, ['## Sheet: prices.csv', '| 商品名 | 価格 |', '| りんご | 120 |', 'Read as Shift_JIS'], ['\ufffd', '```']);
    const tsv = await convert('cities.tsv', corpus.utf16Tsv());
    holds(tsv.markdown, ['| City | Country |', '| Zürich | Switzerland |']);
  });

  it('a CSV of a few dozen bytes is read in its encoding, not as a code page chardet guessed first', async () => {
    // 38 bytes of Shift-JIS: chardet ranks windows-1252 first (`–¼‘O,“sŽs`).
    const japanese = await convert('cities.csv', iconv.encode('名前,都市\n山田太郎,札幌\n佐藤花子,那覇\n', 'Shift_JIS'));
    holds(japanese.markdown, ['| 名前 | 都市 |', '| 山田太郎 | 札幌 |', 'Read as Shift_JIS'], ['\ufffd', '–¼']);
    // English with curly quotes is mostly ASCII: it stays windows-1252 whatever its few high bytes would read as.
    const english = await convert('notes.csv', iconv.encode('note,who\nIt’s fine — don’t worry,“Sam”\n', 'windows-1252'));
    holds(english.markdown, ['| It’s fine — don’t worry | “Sam” |']);
  });

  it('PPTX: slide numbers and titles, text, tables, chart title and values, alt text, speaker notes', async () => {
    const { markdown } = await convert('review.pptx', await corpus.pptxDeck(corpus.textImage(['Org chart'], 'png')), true);
    holds(markdown, [
      '## Slide 1: Quarterly review',
      'Revenue grew in every region.',
      '### Speaker notes\n\nMention the hiring freeze.',
      '## Slide 2: Regional figures',
      'Region | Units',
      'Chart: Units per quarter',
      '| Q2 | 515 |',
      '[image: Org chart of the sales team]',
    ]);
  });

  it('ODP and ODT: slides with notes and alt text; headings, lists and tables', async () => {
    const odp = await convert('roadmap.odp', await corpus.odpPresentation());
    holds(odp.markdown, [
      '## Slide 1: Roadmap 2026',
      '- Ship the offline mode',
      '### Speaker notes\n\nSay thanks to the pilot customers.',
      '## Slide 2: Risks',
      '[image: Gantt chart of the launch]',
    ]);
    const odt = await convert('guide.odt', await corpus.odtDocument());
    holds(odt.markdown, ['# Onboarding guide', 'Badges are issued on the first day.', '- Bring a passport', '| Reception | 555-0100 |']);
  });

  it('RTF, EPUB, notebooks, JSON, RSS', async () => {
    holds(
      (await convert('cafe.rtf', corpus.RTF)).markdown,
      ['Café opening hours', 'Sunday | Closed', 'Price: € 3'],
      ['Times New Roman', 'Hand', 'pngblip', '89504e47'],
    );
    holds((await convert('book.epub', await corpus.epubBook())).markdown, [
      '# The Lighthouse Keeper',
      '## Chapter One\n\nThe lamp was lit at dusk.',
      '## Chapter Two\n\nFog rolled over the harbour.',
    ]);
    holds(
      (await convert('churn.ipynb', corpus.NOTEBOOK)).markdown,
      ['# Churn analysis', '```python\nprint(len(churned))\n```', '1342'],
      ['"cell_type"', 'execution_count'],
    );
    holds(
      (await convert('service.json', JSON.stringify({ name: 'billing', ports: [80, 443] }))).markdown,
      ['**name**: billing', '443'],
      ['{', '"name"'],
    );
    holds(
      (await convert('news.rss', corpus.RSS)).markdown,
      ['# Team news', '## New office opens', 'The Lisbon office opens in **May**.', '## Holiday schedule'],
      ['<p>', '&lt;'],
    );
  });

  it('Outlook .msg and .eml: sender, recipients, subject, date, body and attachment names', async () => {
    holds((await convert('approval.msg', await corpus.outlookMsg())).markdown, [
      '# Budget approval',
      'From: Grace Hopper <grace@example.com>',
      'To: Alan Turing <alan@example.com>',
      'Attachments: agenda.pdf',
      'The budget for the offsite is approved.',
    ]);
    holds((await convert('numbers.eml', corpus.EML)).markdown, [
      '# Trajectory numbers',
      'From: Katherine Johnson <kj@example.com>',
      'Cc: Mary Jackson <mj@example.com>',
      'Date: 2025-03-04T09:30:00Z',
      'Attachments: orbits.csv',
      'The re-entry window opens at 14:05.',
    ]);
  });

  it('Outlook .msg whose only body is compressed RTF: the body is read from the RTF', async () => {
    const rtf =
      '{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0 Arial;}}\\f0 The offsite budget of 12,000 EUR is approved.\\par Please book the venue by Friday.\\par}';
    const { markdown } = await convert('approval.msg', await corpus.outlookMsg(rtf));
    holds(
      markdown,
      [
        '# Budget approval',
        '- From: Grace Hopper <grace@example.com>',
        'The offsite budget of 12,000 EUR is approved.',
        'Please book the venue by Friday.',
      ],
      ['\\rtf1', 'Arial'],
    );
    // A damaged body (a wrong compression type) loses only the body: the rest is kept and a note says why.
    const kept = await convert('damaged.msg', await corpus.outlookMsg(Buffer.alloc(32, 7)));
    holds(kept.markdown, ['# Budget approval', '- From: Grace Hopper <grace@example.com>', '- Attachments: agenda.pdf']);
    assert.match(kept.notes.join('\n'), /damaged\.msg: the message body \(compressed RTF\) is damaged and was left out/);
  });

  it('HTML keeps the main content: no navigation, sidebar, footer, scripts or tracking redirects', async () => {
    const { markdown } = await convert('release.html', corpus.WEB_PAGE);
    holds(
      markdown,
      ['# Version 4.2', 'Exports are now twice as fast.', '[blog post](https://example.com/blog/exports?id=7)'],
      ['Docs menu entry', 'Popular posts', 'Copyright footer', 'Pricing', 'track()', 'google.com/url', 'utm_source'],
    );
  });

  it('HTML: escaped text stays text, and only web, mail and relative links stay links', async () => {
    const page = [
      '<html><body><main><h1>Notes</h1>',
      '<p>Type &lt;script&gt;alert(1)&lt;/script&gt; or &#x3C;img src=x onerror=alert(6)&#x3E; to test. 3 &lt; 4.</p>',
      '<p><a href="command:workbench.action.terminal.new">run</a> <a href="vscode://file/etc/passwd">open</a>',
      '<a href="https://example.com/a">web</a> <a href="guide/b.html">guide</a> <a href="mailto:help@example.com">mail</a></p>',
      '</main></body></html>',
    ].join('');
    const { markdown } = await convert('notes.html', page);
    holds(
      markdown,
      [
        '&lt;script>alert(1)&lt;/script>',
        '&lt;img src=x onerror=alert(6)>',
        '3 &lt; 4',
        'run',
        '[web](https://example.com/a)',
        '[guide](guide/b.html)',
        '[mail](mailto:help@example.com)',
      ],
      ['<script', '<img', '](command:', '](vscode:'],
    );
  });

  it('DOCX: equations as LaTeX-style text, comments and footnotes kept', async () => {
    const { markdown } = await convert('geometry.docx', await corpus.richDocx(), true);
    holds(
      markdown,
      ['# Geometry notes', 'The angle is $θ=\\\\frac{π}{4}+x^2$.', 'Use the calibrated ruler', 'Printing uses A4 paper'],
      ['The angle is .'],
    );
  });

  it('PDF: a table drawn as positioned cells becomes a markdown table; skip_ocr leaves it as lines', async () => {
    const pdf = makePdf([
      {
        lines: ['Shipping rates'],
        table: [
          ['Zone', 'Price', 'Days'],
          ['Europe', '12 EUR', '3'],
          ['Americas', '25 EUR', '7'],
        ],
      },
    ]);
    const full = await convert('rates.pdf', pdf);
    holds(full.markdown, [
      'Shipping rates',
      '| Zone | Price | Days |\n| --- | --- | --- |\n| Europe | 12 EUR | 3 |\n| Americas | 25 EUR | 7 |',
    ]);
    const skipped = await convert('rates.pdf', pdf, true);
    holds(skipped.markdown, ['Europe', '25 EUR'], ['| Zone |', '| --- |']);
  });

  it('ZIP: each member converted under its path; members that cannot be are named', async () => {
    const zip = await corpus.zipOf({
      'docs/notes.txt': 'zip member text',
      'data/sales.csv': 'a,b\n1,2\n',
      'tools/setup.exe': Buffer.from([0, 1, 2, 3]),
      'inner.zip': await corpus.zipOf({ 'x.txt': 'hidden' }),
    });
    const { markdown, notes } = await convert('bundle.zip', zip);
    holds(markdown, ['## docs/notes.txt\n\nzip member text', '## data/sales.csv', '| 1 | 2 |'], ['hidden']);
    assert.ok(
      notes.some((n) => n.includes('tools/setup.exe')),
      notes.join('\n'),
    );
    assert.ok(
      notes.some((n) => n.includes('ZIP inside a ZIP')),
      notes.join('\n'),
    );
  });

  it('audio and video get a sentence saying they are not supported', async () => {
    assert.match(
      await conversionError('meeting.mp3', Buffer.from('ID3\x03\x00')),
      /meeting\.mp3 is audio or video, which DocChat does not convert/,
    );
    assert.match(await conversionError('demo.mp4', Buffer.alloc(16, 1)), /demo\.mp4 is audio or video/);
  });

  it('malformed files of each new format fail with a sentence naming the file', async () => {
    const junk = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 7)]);
    for (const name of ['a.xlsx', 'a.pptx', 'a.ods', 'a.odp', 'a.odt', 'a.epub', 'a.zip']) {
      assert.match(await conversionError(name, junk), new RegExp(`${name.replace('.', '\\.')} is a corrupt \\w+ file and cannot be read`));
      assert.match(await conversionError(name, 'not a zip'), /is not a valid \w+ file: it is not a ZIP package/);
    }
    assert.match(await conversionError('a.xls', 'plain'), /a\.xls is not a valid XLS file: it is not an OLE compound file/);
    assert.match(
      await conversionError('a.msg', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), Buffer.alloc(600, 3)])),
      /a\.msg is a corrupt Outlook message/,
    );
    assert.match(await conversionError('a.rtf', 'hello'), /a\.rtf is not a valid RTF file/);
    assert.match(await conversionError('a.ipynb', '{"cells": 3'), /a\.ipynb is not valid a Jupyter notebook|a\.ipynb is not valid/);
    assert.match(await conversionError('a.json', '{"a":'), /a\.json is not valid JSON/);
    assert.match(await conversionError('a.png', Buffer.from('\x89PNG\r\n\x1a\nbroken')), /a\.png is not a readable image/);
  });

  it("a package whose entries are larger than they declare fails with a sentence, not a library's internal wording", async () => {
    for (const [name, part] of [
      ['a.docx', 'word/document.xml'],
      ['a.xlsx', 'xl/workbook.xml'],
      ['a.zip', 'notes.txt'],
    ] as const) {
      const zip = new JSZip();
      zip.file('[Content_Types].xml', '<Types/>');
      zip.file(part, 'x'.repeat(1000));
      const data = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
      // Both headers of the entry claim 10 bytes for what inflates to 1,000.
      for (let i = 0; i + 28 < data.length; i++) {
        const signature = data.readUInt32LE(i);
        if (signature === 0x04034b50 && data.readUInt32LE(i + 22) === 1000) data.writeUInt32LE(10, i + 22);
        if (signature === 0x02014b50 && data.readUInt32LE(i + 24) === 1000) data.writeUInt32LE(10, i + 24);
      }
      const message = await conversionError(name, data, true);
      assert.match(message, new RegExp(`^${name.replace('.', '\\.')} could not be converted: it looks damaged`));
      assert.doesNotMatch(message, /Bug/);
    }
  });

  it('bombs fail with a sentence naming the limit: a huge declared image, a sparse giant sheet, a deep RTF', async () => {
    // A PNG header declaring 100,000 × 100,000 pixels: refused from the header, never decoded.
    const header = Buffer.from('89504e470d0a1a0a0000000d49484452000186a0000186a00806000000', 'hex');
    const png = Buffer.concat([header, Buffer.alloc(4), Buffer.from('0000000049454e44ae426082', 'hex')]);
    assert.match(
      await conversionError('bomb.png', png),
      /bomb\.png is 100000 × 100000 pixels, more than the limit of 40 megapixels for OCR/,
    );
    const ExcelJS = (await import('exceljs')).default;
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('Sparse');
    for (let r = 1; r <= 3000; r++) sheet.getCell(r, 1).value = r;
    sheet.getCell(1, 16000).value = 'far corner';
    const message = await conversionError('sparse.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    assert.match(message, /sheet "Sparse" of sparse\.xlsx spans 48,000,000 cells, more than the limit of 2,000,000/);
    assert.match(
      await conversionError('deep.rtf', `{\\rtf1${'{'.repeat(5000)}x${'}'.repeat(5000)}}`),
      /deep\.rtf is nested deeper than 512 groups/,
    );
  });

  describe('OCR', () => {
    for (const type of ['png', 'jpg', 'webp', 'bmp', 'gif', 'tif'] as const) {
      it(`reads 32 px text in a .${type} image`, async () => {
        const { markdown } = await convert(`scan.${type}`, corpus.textImage(OCR_LINES, type));
        holds(markdown, ['Invoice 2041', 'Total due 950 EUR']);
      });
    }

    it('reads a scanned PDF page (24 px text) next to a page with a text layer', async () => {
      const { markdown, notes } = await convert(
        'appendix.pdf',
        corpus.scannedPdf(['Scanned appendix', 'Serial number 7731'], 24, ['Cover page text']),
      );
      holds(markdown, ['## Page 1\n\nCover page text', '## Page 2', 'Scanned appendix', 'Serial number 7731']);
      assert.deepEqual(notes, []);
    });

    it('reads the text in a picture inside a Word document that also has text', async () => {
      const { markdown } = await convert('signed.docx', await corpus.richDocx(corpus.textImage(OCR_LINES, 'png')));
      holds(markdown, ['Geometry notes', '[image: Scanned signature block]', 'Invoice 2041', 'Total due 950 EUR']);
    });

    it('reads the text in a picture on a spreadsheet sheet, an ODP slide and in an EPUB chapter, under its sheet, slide or chapter', async () => {
      const picture = corpus.textImage(OCR_LINES, 'png');
      const xlsx = await convert('claims.xlsx', await corpus.xlsxWithPicture(picture));
      holds(xlsx.markdown, ['## Sheet: Receipts', '| Hotel | 950 |']);
      const receipts = xlsx.markdown.slice(xlsx.markdown.indexOf('## Sheet: Receipts'));
      holds(receipts, ['Invoice 2041', 'Total due 950 EUR']);
      const odp = await convert('roadmap.odp', await corpus.odpPresentation(picture));
      const slide2 = odp.markdown.slice(odp.markdown.indexOf('## Slide 2'));
      holds(slide2, ['[image: Gantt chart of the launch]', 'Invoice 2041', 'Total due 950 EUR']);
      const epub = await convert('lighthouse.epub', await corpus.epubBook(picture));
      const chapter2 = epub.markdown.slice(epub.markdown.indexOf('Chapter Two'));
      holds(chapter2, ['Fog rolled over the harbour.', 'Invoice 2041', 'Total due 950 EUR']);
    });

    it('stops OCR of a file at the OCR memory limit, naming it, and keeps the text converted before', async () => {
      // The engine starts in about 18 MiB and reads the small scans in about 20 MiB; the large one
      // (2,600 × 4,360 pixels, mostly blank) needs about 50 MiB of WebAssembly memory, past a 32 MiB limit.
      const large = Array.from({ length: 45 }, (_, i) =>
        i < 3 ? `Large scan line ${i} of the audit of the northern warehouse in 2025` : ' ',
      );
      const gray = (lines: string[], fontPx: number) => {
        const { width, height, rgba } = corpus.renderText(lines, fontPx);
        return { width, height, gray: Buffer.from(rgba.filter((_, i) => i % 4 === 0)) };
      };
      const pdf = makePdf([
        { lines: ['Audit cover page'] },
        { scan: gray(OCR_LINES, 32) },
        { scan: gray(large, 64) },
        { scan: gray(['Closing remark 55'], 32) },
      ]);
      const { markdown, notes } = await convert('audit.pdf', pdf, false, 32);
      holds(markdown, ['Audit cover page', 'Invoice 2041', 'Total due 950 EUR'], ['Large scan line', 'Closing remark']);
      assert.deepEqual(notes, [
        'OCR stopped: reading a picture on page 3 of audit.pdf needed more than the limit of 32 MiB of OCR memory, ' +
          'so its text and the text in any later image of audit.pdf are not indexed. Scale the images down (or split the file) and attach it again.',
      ]);
      // An image alone: nothing converted, so the file fails with the same sentence.
      assert.match(
        await conversionError('large.png', corpus.textImage(large, 'png', 64), false, 32),
        /^OCR stopped: reading large\.png needed more than the limit of 32 MiB of OCR memory/,
      );
      // The next file starts a new engine and reads under the same limit.
      holds((await convert('small.png', corpus.textImage(OCR_LINES, 'png'), false, 32)).markdown, ['Invoice 2041']);
    });

    it('skip_ocr: no OCR on the same file, and the result says what was skipped (the benchmark measures the speed)', async () => {
      const pdf = corpus.scannedPdf(['Scanned appendix', 'Serial number 7731'], 24, ['Cover page text']);
      const full = await convert('appendix.pdf', pdf, false);
      const skipped = await convert('appendix.pdf', pdf, true);
      holds(full.markdown, ['Serial number 7731'], ['OCR was skipped']);
      holds(skipped.markdown, ['Cover page text', 'page 2 has only an image; OCR was skipped (skip_ocr: true)'], ['Serial number 7731']);
      const docx = await convert('signed.docx', await corpus.richDocx(corpus.textImage(OCR_LINES, 'png')), true);
      holds(docx.markdown, ['picture 1 was not read; OCR was skipped'], ['Invoice 2041']);
      assert.match(
        await conversionError('photo.png', corpus.textImage(OCR_LINES, 'png'), true),
        /photo\.png: the file is an image and OCR was skipped \(skip_ocr: true\)/,
      );
    });
  });
});

describe('backend: a picture DocChat cannot decode is a note, never a failed document', () => {
  const emf = Buffer.alloc(88);
  emf.writeUInt32LE(1, 0);
  emf.write(' EMF', 40, 'latin1');
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
  const svm = Buffer.concat([Buffer.from('VCLMTF'), Buffer.alloc(40)]);
  const damaged = Buffer.from('\x89PNG\r\n\x1a\nbroken', 'latin1');

  it('an EMF picture in a workbook: the cells are kept and the note names the format and sheet', async () => {
    const { markdown } = await convert('claims.xlsx', await corpus.xlsxWithPicture(emf));
    holds(markdown, [
      'Hotel',
      '950',
      'claims.xlsx (sheet "Receipts", ',
      'is a picture in EMF (Windows enhanced metafile) format, which DocChat does not read',
    ]);
  });

  it('a PDF as a picture in a presentation, an SVM and a damaged picture in Word and PowerPoint files', async () => {
    const odp = await convert('roadmap.odp', await corpus.odpPresentation(pdf));
    holds(odp.markdown, ['Roadmap 2026', 'Ship the offline mode', 'is a picture in PDF format, which DocChat does not read']);
    const docx = await convert('geometry.docx', await corpus.richDocx(svm));
    holds(docx.markdown, ['Geometry notes', 'geometry.docx (picture 1) is a picture in SVM (StarView metafile) format']);
    const pptx = await convert('review.pptx', await corpus.pptxDeck(damaged));
    holds(pptx.markdown, ['could not be read (the picture is damaged or of an unknown type), so any text in it is not indexed']);
  });
});

describe('backend: an embedded object DocChat does not convert is a note', () => {
  it('a workbook embedded in a Word document is named in the notes and the text is kept', async () => {
    const zip = await JSZip.loadAsync(await corpus.richDocx());
    zip.file('word/embeddings/Microsoft_Excel_Worksheet.xlsx', await corpus.xlsxWorkbook());
    const { markdown } = await convert('geometry.docx', await zip.generateAsync({ type: 'nodebuffer' }));
    holds(markdown, [
      'Geometry notes',
      'geometry.docx holds an embedded object (Microsoft_Excel_Worksheet.xlsx) that DocChat does not convert, so its content is not indexed.',
    ]);
  });
});
