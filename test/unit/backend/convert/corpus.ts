/**
 * The conversion test corpus: real files of every supported format, generated with the formats'
 * own libraries (exceljs, SheetJS, pptxgenjs, cfb, omggif, @napi-rs/canvas) or, for the XML-in-ZIP
 * formats and text formats, written part by part with jszip as their specifications lay them out.
 */
import { createCanvas } from '@napi-rs/canvas';
import iconv from 'iconv-lite';
import JSZip from 'jszip';
import PptxGenJS from 'pptxgenjs';
import { makePdf } from '../helpers';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Black text on white at `fontPx` pixels (DejaVu Sans), as RGBA pixels. */
export function renderText(lines: string[], fontPx = 32): { width: number; height: number; rgba: Uint8ClampedArray } {
  const width = 40 + Math.max(...lines.map((l) => l.length)) * Math.ceil(fontPx * 0.62);
  const height = 40 + lines.length * Math.ceil(fontPx * 1.5);
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#000000';
  g.font = `${fontPx}px DejaVu Sans`;
  lines.forEach((line, i) => g.fillText(line, 20, 20 + fontPx + i * Math.ceil(fontPx * 1.5)));
  const rgba = g.getImageData(0, 0, width, height).data;
  // No font, no ink: the OCR tests would then fail for a reason that is not OCR's.
  if (!rgba.some((v, i) => i % 4 !== 3 && v < 128)) {
    throw new Error('DejaVu Sans is not installed: install fonts-dejavu-core to draw the OCR test images.');
  }
  return { width, height, rgba };
}

export function textImage(lines: string[], type: 'png' | 'jpg' | 'webp' | 'bmp' | 'gif' | 'tif', fontPx = 32): Buffer {
  const { width, height, rgba } = renderText(lines, fontPx);
  if (type === 'bmp') return bmp(width, height, rgba);
  if (type === 'gif') {
    const { GifWriter } = require('omggif') as {
      GifWriter: new (
        b: Buffer,
        w: number,
        h: number,
        o: object,
      ) => { addFrame(x: number, y: number, w: number, h: number, px: Uint8Array): void; end(): number };
    };
    const palette = Array.from({ length: 256 }, (_, i) => i * 0x010101);
    const out = Buffer.alloc(width * height * 2 + 4096);
    const writer = new GifWriter(out, width, height, { palette });
    const gray = new Uint8Array(width * height);
    for (let i = 0; i < gray.length; i++) gray[i] = Math.round((rgba[i * 4]! + rgba[i * 4 + 1]! + rgba[i * 4 + 2]!) / 3);
    writer.addFrame(0, 0, width, height, gray);
    return out.subarray(0, writer.end());
  }
  if (type === 'tif') return tiff(width, height, rgba);
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  const image = g.createImageData(width, height);
  image.data.set(rgba);
  g.putImageData(image, 0, 0);
  return type === 'png'
    ? canvas.toBuffer('image/png')
    : type === 'jpg'
      ? canvas.toBuffer('image/jpeg', 95)
      : canvas.toBuffer('image/webp', 95);
}

/** An uncompressed RGB baseline TIFF (TIFF 6.0, section 6). */
/** A 24-bit BMP of opaque RGBA pixels. */
function bmp(width: number, height: number, rgba: Uint8ClampedArray): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const out = Buffer.alloc(54 + row * height);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(row * height, 34);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const source = (y * width + x) * 4;
      const target = 54 + (height - 1 - y) * row + x * 3;
      [out[target], out[target + 1], out[target + 2]] = [rgba[source + 2]!, rgba[source + 1]!, rgba[source]!];
    }
  }
  return out;
}

function tiff(width: number, height: number, rgba: Uint8ClampedArray): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) rgba.subarray(i * 4, i * 4 + 3).forEach((v, c) => (pixels[i * 3 + c] = v));
  const tags: [number, number, number, number][] = [
    [256, 3, 1, width],
    [257, 3, 1, height],
    [258, 3, 3, 0],
    [259, 3, 1, 1],
    [262, 3, 1, 2],
    [273, 4, 1, 0],
    [277, 3, 1, 3],
    [278, 3, 1, height],
    [279, 4, 1, pixels.length],
  ];
  const ifd = 8;
  const bps = ifd + 2 + tags.length * 12 + 4;
  const dataAt = bps + 6;
  const out = Buffer.alloc(dataAt + pixels.length);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(ifd, 4);
  out.writeUInt16LE(tags.length, ifd);
  tags.forEach(([tag, type, count, value], i) => {
    const at = ifd + 2 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(count, at + 4);
    if (tag === 258) out.writeUInt32LE(bps, at + 8);
    else if (tag === 273) out.writeUInt32LE(dataAt, at + 8);
    else if (type === 3) out.writeUInt16LE(value, at + 8);
    else out.writeUInt32LE(value, at + 8);
  });
  [8, 8, 8].forEach((v, i) => out.writeUInt16LE(v, bps + i * 2));
  pixels.copy(out, dataAt);
  return out;
}

/** A PDF whose page is one scanned picture of the text (8-bit gray image XObject, no text layer). */
export function scannedPdf(lines: string[], fontPx = 32, textPage?: string[]): Buffer {
  const { width, height, rgba } = renderText(lines, fontPx);
  const gray = Buffer.alloc(width * height);
  for (let i = 0; i < gray.length; i++) gray[i] = Math.round((rgba[i * 4]! + rgba[i * 4 + 1]! + rgba[i * 4 + 2]!) / 3);
  return makePdf([...(textPage ? [{ lines: textPage }] : []), { scan: { width, height, gray } }]);
}

export async function xlsxWorkbook(): Promise<Buffer> {
  const ExcelJS = (await import('exceljs')).default;
  const workbook = new ExcelJS.Workbook();
  const budget = workbook.addWorksheet('Budget 2025');
  budget.addRow(['Item', 'Cost', 'Approved']);
  budget.addRow(['Laptops', 12500, true]);
  budget.addRow(['Conference travel', 4300.5, false]);
  budget.getCell('D1').value = 'Review date';
  budget.getCell('D2').value = new Date(Date.UTC(2025, 2, 14));
  budget.getCell('D2').numFmt = 'yyyy-mm-dd';
  const staff = workbook.addWorksheet('Staff');
  staff.addRow(['Name', 'Team']);
  staff.addRow(['Ada Lovelace', 'Analytics']);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** An XLSX whose second sheet holds a picture (a scanned receipt) beside its cells, written by exceljs. */
export async function xlsxWithPicture(picture: Buffer): Promise<Buffer> {
  const ExcelJS = (await import('exceljs')).default;
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('Summary').addRow(['Claims', 1]);
  const receipts = workbook.addWorksheet('Receipts');
  receipts.addRow(['Receipt', 'Amount']);
  receipts.addRow(['Hotel', 950]);
  const image = workbook.addImage({ buffer: picture as never, extension: 'png' });
  receipts.addImage(image, { tl: { col: 3, row: 1 }, ext: { width: 420, height: 120 } });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** XLS (BIFF8) and ODS written by SheetJS. */
export async function sheetJsWorkbook(bookType: 'biff8' | 'ods'): Promise<Buffer> {
  const XLSX = await import('xlsx');
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(
    wb,
    XLSX.utils.aoa_to_sheet([
      ['Region', 'Revenue'],
      ['Nordics', 1200],
      ['Iberia', 875.25],
      ['Total', { f: 'SUM(B2:B3)', v: 2075.25 } as never],
    ]),
    'Sales Q1',
  );
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Owner', 'Grüße aus Köln']]), 'Notes');
  return XLSX.write(wb, { bookType, type: 'buffer' }) as Buffer;
}

/**
 * A workbook with dates and times in cells formatted as such (a built-in date format, a custom
 * date-and-time, a time of day) beside numbers whose format only looks like one (`[Red]0.00`),
 * written by SheetJS as XLS (BIFF8) or XLSX.
 */
export async function datedWorkbook(bookType: 'biff8' | 'xlsx'): Promise<Buffer> {
  const XLSX = await import('xlsx');
  const wb = XLSX.utils.book_new();
  const sheet = XLSX.utils.aoa_to_sheet(
    [
      ['Milestone', 'Due', 'Amount'],
      ['Kick-off', new Date(Date.UTC(2026, 2, 31)), { t: 'n', v: 7, z: '[Red]0.00' }],
      ['Review', { t: 'n', v: 46000.5, z: 'yyyy-mm-dd hh:mm' }, 1200],
      ['Stand-up', { t: 'n', v: 0.375, z: 'h:mm' }, 3],
    ] as never,
    { cellDates: true },
  );
  XLSX.utils.book_append_sheet(wb, sheet, 'Plan');
  return XLSX.write(wb, { bookType, type: 'buffer', cellDates: true }) as Buffer;
}

export async function pptxDeck(imagePng: Buffer): Promise<Buffer> {
  const pptx = new PptxGenJS();
  const first = pptx.addSlide();
  first.addText('Quarterly review', { x: 0.5, y: 0.3, w: 9, h: 1, fontSize: 32 });
  first.addText('Revenue grew in every region.', { x: 0.5, y: 1.5, w: 9, h: 1 });
  first.addNotes('Mention the hiring freeze.');
  const second = pptx.addSlide();
  second.addText('Regional figures', { x: 0.5, y: 0.3, w: 9, h: 1 });
  second.addTable(
    [
      [{ text: 'Region' }, { text: 'Units' }],
      [{ text: 'Nordics' }, { text: '420' }],
    ],
    { x: 0.5, y: 1.5, w: 5 },
  );
  second.addChart(pptx.ChartType.bar, [{ name: 'Units sold', labels: ['Q1', 'Q2'], values: [420, 515] }], {
    x: 5.5,
    y: 1.5,
    w: 4,
    h: 3,
    showTitle: true,
    title: 'Units per quarter',
  });
  second.addImage({
    data: `data:image/png;base64,${imagePng.toString('base64')}`,
    x: 0.5,
    y: 3.5,
    w: 4,
    h: 1,
    altText: 'Org chart of the sales team',
  });
  return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink"';

async function odf(mime: string, body: string, files: Record<string, Buffer> = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('mimetype', mime, { compression: 'STORE' });
  for (const [name, bytes] of Object.entries(files)) zip.file(name, bytes);
  zip.file(
    'content.xml',
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS} office:version="1.3"><office:body>${body}</office:body></office:document-content>`,
  );
  zip.file(
    'META-INF/manifest.xml',
    `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

export function odtDocument(): Promise<Buffer> {
  return odf(
    'application/vnd.oasis.opendocument.text',
    '<office:text><text:h text:outline-level="1">Onboarding guide</text:h><text:p>Badges are issued<text:s/>on the first day.</text:p>' +
      '<text:list><text:list-item><text:p>Bring a passport</text:p></text:list-item></text:list>' +
      '<table:table table:name="Contacts"><table:table-row><table:table-cell><text:p>Desk</text:p></table:table-cell><table:table-cell><text:p>Phone</text:p></table:table-cell></table:table-row>' +
      '<table:table-row><table:table-cell><text:p>Reception</text:p></table:table-cell><table:table-cell><text:p>555-0100</text:p></table:table-cell></table:table-row></table:table></office:text>',
  );
}

/** `picture`: stored as the Pictures/x.png of slide 2 (without it, the slide links a picture the file does not hold). */
export function odpPresentation(picture?: Buffer): Promise<Buffer> {
  return odf(
    'application/vnd.oasis.opendocument.presentation',
    '<office:presentation><draw:page draw:name="page1"><draw:frame presentation:class="title"><draw:text-box><text:p>Roadmap 2026</text:p></draw:text-box></draw:frame>' +
      '<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Ship the offline mode</text:p></text:list-item></text:list></draw:text-box></draw:frame>' +
      '<presentation:notes><draw:frame><draw:text-box><text:p>Say thanks to the pilot customers.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>' +
      '<draw:page draw:name="page2"><draw:frame presentation:class="title"><draw:text-box><text:p>Risks</text:p></draw:text-box></draw:frame>' +
      '<draw:frame><draw:image xlink:href="Pictures/x.png"/><svg:desc>Gantt chart of the launch</svg:desc></draw:frame></draw:page></office:presentation>',
    picture ? { 'Pictures/x.png': picture } : {},
  );
}

/** `picture`: an illustration in chapter two (OEBPS/images/map.png). */
export async function epubBook(picture?: Buffer): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file(
    'META-INF/container.xml',
    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
  );
  zip.file(
    'OEBPS/content.opf',
    '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Lighthouse Keeper</dc:title><dc:creator>A. Writer</dc:creator></metadata>' +
      '<manifest><item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="ch2.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>',
  );
  const chapter = (title: string, text: string) =>
    `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body><h2>${title}</h2><p>${text}</p></body></html>`;
  zip.file('OEBPS/ch1.xhtml', chapter('Chapter One', 'The lamp was lit at dusk.'));
  zip.file(
    'OEBPS/ch2.xhtml',
    chapter('Chapter Two', `Fog rolled over the harbour.${picture ? '</p><p><img src="images/map.png" alt="Harbour map"/>' : ''}`),
  );
  if (picture) zip.file('OEBPS/images/map.png', picture);
  return zip.generateAsync({ type: 'nodebuffer' });
}

/** [MS-OXRTFCP] compressed RTF with literal runs only: a control byte 0 before every 8 bytes. */
function compressedRtf(rtf: string): Buffer {
  const raw = Buffer.from(rtf, 'latin1');
  const body: number[] = [];
  for (let i = 0; i < raw.length; i += 8) body.push(0, ...raw.subarray(i, i + 8));
  const header = Buffer.alloc(16);
  header.writeUInt32LE(12 + body.length, 0); // size of everything after this field
  header.writeUInt32LE(raw.length, 4);
  header.writeUInt32LE(0x75465a4c, 8); // "LZFu"
  header.writeUInt32LE(0, 12); // CRC (not checked by readers of literal-only streams)
  return Buffer.concat([header, Buffer.from(body)]);
}

/** An Outlook .msg: MAPI property streams in an OLE compound file written with cfb ([MS-OXMSG]). */
/**
 * `rtfBody`: the message has no plain-text or HTML body, only this RTF as PidTagRtfCompressed (or
 * these bytes as they are, to give it a damaged one)
 * ([MS-OXRTFCP] "LZFu", every byte a literal: a valid stream a real writer would compress better).
 */
export async function outlookMsg(rtfBody?: string | Buffer): Promise<Buffer> {
  const CFB = await import('cfb');
  const container = CFB.utils.cfb_new();
  const utf16 = (s: string) => Buffer.from(`${s}\0`, 'utf16le');
  const add = (name: string, content: Buffer) => CFB.utils.cfb_add(container, name, content);
  const props = (header: number, entries: [number, number, number][]) => {
    const out = Buffer.alloc(header + entries.length * 16);
    entries.forEach(([tag, type, value], i) => {
      out.writeUInt16LE(type, header + i * 16);
      out.writeUInt16LE(tag, header + i * 16 + 2);
      out.writeUInt32LE(6, header + i * 16 + 4);
      out.writeUInt32LE(value, header + i * 16 + 8);
    });
    return out;
  };
  add('/__substg1.0_0037001F', utf16('Budget approval'));
  add('/__substg1.0_0C1A001F', utf16('Grace Hopper'));
  add('/__substg1.0_5D01001F', utf16('grace@example.com'));
  if (rtfBody === undefined) add('/__substg1.0_1000001F', utf16('The budget for the offsite is approved.'));
  else add('/__substg1.0_10090102', typeof rtfBody === 'string' ? compressedRtf(rtfBody) : rtfBody);
  add('/__properties_version1.0', props(32, []));
  add('/__recip_version1.0_#00000000/__substg1.0_3001001F', utf16('Alan Turing'));
  add('/__recip_version1.0_#00000000/__substg1.0_39FE001F', utf16('alan@example.com'));
  add('/__recip_version1.0_#00000000/__properties_version1.0', props(8, [[0x0c15, 0x0003, 1]]));
  add('/__attach_version1.0_#00000000/__substg1.0_3707001F', utf16('agenda.pdf'));
  add('/__attach_version1.0_#00000000/__substg1.0_37010102', Buffer.from('%PDF-1.4'));
  add('/__attach_version1.0_#00000000/__properties_version1.0', props(8, []));
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

export const EML = [
  'From: "Katherine Johnson" <kj@example.com>',
  'To: Dorothy Vaughan <dv@example.com>',
  'Cc: Mary Jackson <mj@example.com>',
  'Subject: Trajectory numbers',
  'Date: Tue, 04 Mar 2025 09:30:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'The re-entry window opens at 14:05.',
  '--b1',
  'Content-Type: text/csv; name="orbits.csv"',
  'Content-Disposition: attachment; filename="orbits.csv"',
  '',
  'a,b',
  '--b1--',
  '',
].join('\r\n');

export const RTF =
  '{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Times New Roman;}}{\\colortbl;\\red0\\green0\\blue0;}' +
  "{\\*\\generator Hand;}\\f0 Caf\\'e9 opening hours\\par Open daily from nine.\\par " +
  '\\trowd\\cellx2000\\cellx4000 Day\\cell Hours\\cell\\row \\trowd\\cellx2000\\cellx4000 Sunday\\cell Closed\\cell\\row ' +
  'Price: \\u8364? 3\\par {\\pict\\pngblip 89504e47}}';

export const NOTEBOOK = JSON.stringify({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { language: 'python', name: 'python3' }, language_info: { name: 'python' } },
  cells: [
    { cell_type: 'markdown', metadata: {}, source: ['# Churn analysis\n', 'Customers who left in March.'] },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 1,
      source: ['print(len(churned))'],
      outputs: [{ output_type: 'stream', name: 'stdout', text: ['1342\n'] }],
    },
  ],
});

export const RSS =
  '<?xml version="1.0"?><rss version="2.0"><channel><title>Team news</title><link>https://example.com</link>' +
  '<item><title>New office opens</title><link>https://example.com/office</link><pubDate>Mon, 03 Mar 2025 08:00:00 GMT</pubDate><description>&lt;p&gt;The Lisbon office opens in &lt;b&gt;May&lt;/b&gt;.&lt;/p&gt;</description></item>' +
  '<item><title>Holiday schedule</title><description>Offices close on 24 December.</description></item></channel></rss>';

export const WEB_PAGE =
  '<!doctype html><html><head><title>Release notes</title><script>track()</script></head><body>' +
  '<header><a href="/">Home</a> <a href="/pricing">Pricing</a></header>' +
  '<nav class="site-nav"><ul><li><a href="/docs">Docs menu entry</a></li></ul></nav>' +
  '<aside class="sidebar">Popular posts sidebar</aside>' +
  '<main><h1>Version 4.2</h1><p>Exports are now twice as fast. Read the <a href="https://www.google.com/url?q=https://example.com/blog/exports%3Fid%3D7&amp;sa=D&amp;utm_source=news">blog post</a>.</p></main>' +
  '<footer>Copyright footer text</footer></body></html>';

/** A DOCX with an equation, a comment, a footnote and a picture with alt text. */
export async function richDocx(picture?: Buffer): Promise<Buffer> {
  const zip = new JSZip();
  const W =
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const M = 'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"';
  const D =
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';
  const run = (t: string) => `<w:r><w:t xml:space="preserve">${esc(t)}</w:t></w:r>`;
  const math =
    '<m:oMath><m:r><m:t>θ</m:t></m:r><m:r><m:t>=</m:t></m:r><m:f><m:num><m:r><m:t>π</m:t></m:r></m:num><m:den><m:r><m:t>4</m:t></m:r></m:den></m:f>' +
    '<m:r><m:t>+</m:t></m:r><m:sSup><m:e><m:r><m:t>x</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath>';
  const image = picture
    ? '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="3000000" cy="800000"/><wp:docPr id="1" name="Picture 1" descr="Scanned signature block"/>' +
      '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="scan.png"/><pic:cNvPicPr/></pic:nvPicPr>' +
      '<pic:blipFill><a:blip r:embed="rIdImg"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>'
    : '';
  const body =
    `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>${run('Geometry notes')}</w:p>` +
    `<w:p>${run('The angle is ')}${math}${run('.')}</w:p>` +
    `<w:p><w:commentRangeStart w:id="0"/>${run('Check the measurement')}<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>` +
    `${run(' before printing')}<w:r><w:footnoteReference w:id="1"/></w:r>${run('.')}</w:p>${image}`;
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>' +
      '<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    'word/_rels/document.xml.rels',
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rIdC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>' +
      '<Relationship Id="rIdF" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>' +
      '<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/scan.png"/></Relationships>',
  );
  if (picture) zip.file('word/media/scan.png', picture);
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document ${W} ${M} ${D}><w:body>${body}</w:body></w:document>`);
  zip.file(
    'word/comments.xml',
    `<?xml version="1.0"?><w:comments ${W}><w:comment w:id="0" w:author="Reviewer" w:initials="RV"><w:p>${run('Use the calibrated ruler')}</w:p></w:comment></w:comments>`,
  );
  zip.file(
    'word/footnotes.xml',
    `<?xml version="1.0"?><w:footnotes ${W}><w:footnote w:id="-1" w:type="separator"><w:p/></w:footnote><w:footnote w:id="0" w:type="continuationSeparator"><w:p/></w:footnote><w:footnote w:id="1"><w:p>${run('Printing uses A4 paper')}</w:p></w:footnote></w:footnotes>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

export async function zipOf(files: Record<string, Buffer | string>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, content] of Object.entries(files)) zip.file(name, content);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

export const shiftJisCsv = (): Buffer => iconv.encode('商品名,価格\r\nりんご,120\r\nみかん,80\r\n', 'shift_jis');
export const utf16Tsv = (): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('City\tCountry\nZürich\tSwitzerland\n', 'utf16le')]);
