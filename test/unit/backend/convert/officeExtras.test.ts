import assert from 'node:assert/strict';
import JSZip from 'jszip';
import { formatNumber } from '../../../../src/backend/convert/numbering';
import * as corpus from './corpus';
import { convert as convertFile, holds } from './convertHelpers';

/** These files have no pictures to read: converted with skip_ocr. */
const convert = (filename: string, data: Uint8Array) => convertFile(filename, data, true);

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A DOCX package from its body (and optional extra parts), as Word lays it out. */
function docx(body: string, parts: Record<string, string>, prefix = 'w', ns = W): Promise<Buffer> {
  const overrides = Object.keys(parts)
    .map((p) => `<Override PartName="/${p}" ContentType="application/xml"/>`)
    .join('');
  const rels = Object.keys(parts)
    .map((p, i) => {
      const type = p.replace(/^.*\/|\d*\.xml$/g, '');
      return `<Relationship Id="rX${i}" Type="${REL}/${type}" Target="${p.replace(/^word\//, '')}"/>`;
    })
    .join('');
  return corpus.zipOf({
    '[Content_Types].xml':
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      `${overrides}</Types>`,
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    'word/document.xml': `<?xml version="1.0"?><${prefix}:document ${ns}><${prefix}:body>${body}</${prefix}:body></${prefix}:document>`,
    ...parts,
  });
}

describe('backend: automatic numbering, comments and charts in office files', function () {
  this.timeout(60_000);

  describe('Word automatic numbering', () => {
    const lvl = (ilvl: number, fmt: string, text: string, extra = '') =>
      `<w:lvl w:ilvl="${ilvl}"><w:start w:val="1"/><w:numFmt w:val="${fmt}"/>${extra}<w:lvlText w:val="${text}"/></w:lvl>`;
    const numbering =
      `<?xml version="1.0"?><w:numbering ${W}>` +
      `<w:abstractNum w:abstractNumId="0">${lvl(0, 'decimal', '%1', '<w:pStyle w:val="Heading1"/>')}${lvl(1, 'decimal', '%1.%2', '<w:pStyle w:val="Heading2"/>')}${lvl(2, 'decimal', '%1.%2.%3', '<w:pStyle w:val="Heading3"/>')}</w:abstractNum>` +
      `<w:abstractNum w:abstractNumId="1">${lvl(0, 'lowerLetter', '%1)')}${lvl(1, 'upperRoman', '%2.')}</w:abstractNum>` +
      `<w:abstractNum w:abstractNumId="2">${lvl(0, 'bullet', '•')}</w:abstractNum>` +
      '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>' +
      '<w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>' +
      '<w:num w:numId="4"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>' +
      '</w:numbering>';
    const style = (id: string, name: string, level: number) =>
      `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/><w:pPr><w:numPr><w:ilvl w:val="${level}"/><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="${level}"/></w:pPr></w:style>`;
    const styles = `<?xml version="1.0"?><w:styles ${W}>${style('Heading1', 'heading 1', 0)}${style('Heading2', 'heading 2', 1)}${style('Heading3', 'heading 3', 2)}</w:styles>`;
    const para = (text: string, pPr = '') => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}<w:r><w:t>${esc(text)}</w:t></w:r></w:p>`;
    const heading = (n: number, text: string) => para(text, `<w:pStyle w:val="Heading${n}"/>`);
    const item = (numId: number, ilvl: number, text: string) =>
      para(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);

    it('headings numbered by their style get their number ("2.3.2 Software constraints")', async () => {
      const body =
        heading(1, 'Introduction') +
        heading(1, 'Design') +
        heading(2, 'Goals') +
        heading(2, 'Constraints') +
        heading(3, 'Hardware constraints') +
        heading(3, 'Software constraints') +
        heading(1, 'Results') +
        heading(2, 'Speed');
      const markdown = await convert('spec.docx', await docx(body, { 'word/numbering.xml': numbering, 'word/styles.xml': styles }));
      holds(markdown, [
        /# 1 Introduction/,
        /# 2 Design/,
        /## 2\.1 Goals/,
        /## 2\.2 Constraints/,
        /### 2\.2\.1 Hardware constraints/,
        /### 2\.2\.2 Software constraints/,
        /# 3 Results/,
        /## 3\.1 Speed/,
      ]);
    });

    it('list items get their lettered and roman numbers, restarts and start overrides; bullets stay bullets', async () => {
      const body =
        item(2, 0, 'first') +
        item(2, 1, 'nested one') +
        item(2, 1, 'nested two') +
        item(2, 0, 'second') +
        item(2, 1, 'nested again') +
        item(3, 0, 'a bullet') +
        item(4, 0, 'from five');
      const markdown = await convert('list.docx', await docx(body, { 'word/numbering.xml': numbering, 'word/styles.xml': styles }));
      holds(markdown, ['a) first', 'I. nested one', 'II. nested two', 'b) second', 'I. nested again', /[-*]\s+a bullet/]);
      // numId 4 shares abstract list 1, but its start override makes its first item "e)".
      holds(markdown, ['e) from five']);
    });

    it('number formats', () => {
      assert.deepEqual(
        [formatNumber(4, 'upperRoman'), formatNumber(14, 'lowerRoman'), formatNumber(28, 'lowerLetter'), formatNumber(3, 'decimalZero')],
        ['IV', 'xiv', 'bb', '03'],
      );
    });
  });

  describe('comments', () => {
    /** `data` with `files` added and `rels` appended to the relationships part `relsPart`. */
    async function withParts(data: Uint8Array, relsPart: string, rels: string, files: Record<string, string>): Promise<Buffer> {
      const zip = await JSZip.loadAsync(data);
      const existing =
        (await zip.file(relsPart)?.async('string')) ??
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
      zip.file(relsPart, existing.replace('</Relationships>', `${rels}</Relationships>`));
      for (const [name, text] of Object.entries(files)) zip.file(name, text);
      return zip.generateAsync({ type: 'nodebuffer' });
    }

    it('workbook notes (as exceljs writes them) and threaded comments with replies are kept with their cell', async () => {
      const ExcelJS = (await import('exceljs')).default;
      const workbook = new ExcelJS.Workbook();
      const sheet = workbook.addWorksheet('Budget');
      sheet.addRow(['Item', 'Cost']);
      sheet.addRow(['Laptops', 12500]);
      sheet.getCell('B2').note = 'Quote from March, ask for a discount';
      const written = Buffer.from(await workbook.xlsx.writeBuffer());
      const SS = 'http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments';
      const data = await withParts(
        written,
        'xl/worksheets/_rels/sheet1.xml.rels',
        '<Relationship Id="rTc" Type="http://schemas.microsoft.com/office/2017/10/relationships/threadedComment" Target="../threadedComments/threadedComment1.xml"/>',
        {
          'xl/threadedComments/threadedComment1.xml':
            `<?xml version="1.0"?><ThreadedComments xmlns="${SS}"><threadedComment ref="A2" personId="{P1}" id="{C1}"><text>Which model?</text></threadedComment>` +
            `<threadedComment ref="A2" personId="{P2}" id="{C2}" parentId="{C1}"><text>The 14-inch one</text></threadedComment></ThreadedComments>`,
          'xl/persons/person.xml': `<?xml version="1.0"?><personList xmlns="${SS}"><person displayName="Ana Ruiz" id="{P1}"/><person displayName="Li Wei" id="{P2}"/></personList>`,
        },
      );
      const markdown = await convert('budget.xlsx', data);
      holds(markdown, [
        /B2( \([^)]*\))?: Quote from March, ask for a discount/,
        'A2 (Ana Ruiz): Which model?',
        'A2 (reply, Li Wei): The 14-inch one',
      ]);
      assert.ok(markdown.indexOf('Laptops') < markdown.indexOf('Which model?'), 'comments come after the sheet’s table');
    });

    it('slide comments, classic and modern (with replies), are kept under their slide', async () => {
      const deck = await corpus.pptxDeck(corpus.textImage(['Invoice 2041'], 'png'));
      const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
      const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
      const MODERN = 'http://schemas.microsoft.com/office/powerpoint/2018/8/main';
      let data = await withParts(
        deck,
        'ppt/slides/_rels/slide1.xml.rels',
        '<Relationship Id="rCm" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="../comments/comment1.xml"/>',
        {
          'ppt/comments/comment1.xml': `<?xml version="1.0"?><p:cmLst ${P}><p:cm authorId="0" idx="1"><p:pos x="10" y="10"/><p:text>Add the Q3 numbers</p:text></p:cm></p:cmLst>`,
          'ppt/commentAuthors.xml': `<?xml version="1.0"?><p:cmAuthorLst ${P}><p:cmAuthor id="0" name="Sam Lee" initials="SL" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>`,
        },
      );
      data = await withParts(
        data,
        'ppt/slides/_rels/slide2.xml.rels',
        '<Relationship Id="rMc" Type="http://schemas.microsoft.com/office/2018/10/relationships/comments" Target="../comments/modernComment_101_1.xml"/>',
        {
          'ppt/comments/modernComment_101_1.xml':
            `<?xml version="1.0"?><p188:cmLst xmlns:p188="${MODERN}" ${A}><p188:cm id="{M1}" authorId="{A1}">` +
            `<p188:replyLst><p188:reply id="{R1}" authorId="{A2}"><p188:txBody><a:bodyPr/><a:p><a:r><a:t>Fixed, thanks</a:t></a:r></a:p></p188:txBody></p188:reply></p188:replyLst>` +
            `<p188:txBody><a:bodyPr/><a:p><a:r><a:t>Nordics figure looks low</a:t></a:r></a:p></p188:txBody></p188:cm></p188:cmLst>`,
          'ppt/authors.xml': `<?xml version="1.0"?><p188:authorLst xmlns:p188="${MODERN}"><p188:author id="{A1}" name="Kim Park" initials="KP" userId="kim"/><p188:author id="{A2}" name="Sam Lee" initials="SL" userId="sam"/></p188:authorLst>`,
        },
      );
      const markdown = await convert('review.pptx', data);
      const slides = markdown.split(/^## Slide /m);
      holds(slides[1] ?? '', ['(Sam Lee): Add the Q3 numbers']);
      holds(slides[2] ?? '', ['(Kim Park): Nordics figure looks low', '(reply, Sam Lee): Fixed, thanks']);
    });
  });

  describe('charts', () => {
    const C =
      'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
    const points = (tag: string, values: string[]) =>
      `<c:${tag}><c:strRef><c:strCache><c:ptCount val="${values.length}"/>${values.map((v, i) => `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>`).join('')}</c:strCache></c:strRef></c:${tag}>`;
    const chart =
      `<?xml version="1.0"?><c:chartSpace ${C}><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Units per quarter</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:barChart>` +
      `<c:ser><c:idx val="0"/><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Nordics</c:v></c:pt></c:strCache></c:strRef></c:tx>${points('cat', ['Q1', 'Q2'])}${points('val', ['420', '515'])}</c:ser>` +
      `<c:ser><c:idx val="1"/><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Iberia</c:v></c:pt></c:strCache></c:strRef></c:tx>${points('cat', ['Q1', 'Q2'])}${points('val', ['310', '298'])}</c:ser>` +
      '</c:barChart></c:plotArea></c:chart></c:chartSpace>';
    const expected = [
      /Chart: Units per quarter/,
      /\|\s*\|\s*Nordics\s*\|\s*Iberia\s*\|/,
      /\|\s*Q1\s*\|\s*420\s*\|\s*310\s*\|/,
      /\|\s*Q2\s*\|\s*515\s*\|\s*298\s*\|/,
    ];

    it('a chart in a Word document: its title and series as a table, where the chart is', async () => {
      const D =
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
      const body =
        '<w:p><w:r><w:t>Sales went up.</w:t></w:r></w:p>' +
        `<w:p><w:r><w:drawing><wp:inline ${D}><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="1" name="Chart 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
        '<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rX0"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>' +
        '<w:p><w:r><w:t>Costs stayed flat.</w:t></w:r></w:p>';
      const markdown = await convert('sales.docx', await docx(body, { 'word/charts/chart1.xml': chart }));
      holds(markdown, expected);
      assert.ok(markdown.indexOf('Sales went up') < markdown.indexOf('Units per quarter'));
      assert.ok(markdown.indexOf('Units per quarter') < markdown.indexOf('Costs stayed flat'));
    });

    it('a chart on a sheet: its title and series as a table after the sheet', async () => {
      const ExcelJS = (await import('exceljs')).default;
      const workbook = new ExcelJS.Workbook();
      workbook.addWorksheet('Sales').addRow(['Region', 'Q1']);
      const zip = await JSZip.loadAsync(Buffer.from(await workbook.xlsx.writeBuffer()));
      const sheetXml = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
      zip.file('xl/worksheets/sheet1.xml', sheetXml.replace(/<\/worksheet>$/, '<drawing r:id="rDr"/></worksheet>'));
      zip.file(
        'xl/worksheets/_rels/sheet1.xml.rels',
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rDr" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing" Target="../drawings/drawing1.xml"/></Relationships>',
      );
      zip.file(
        'xl/drawings/drawing1.xml',
        '<?xml version="1.0"?><xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
          '<xdr:twoCellAnchor><xdr:from><xdr:col>3</xdr:col><xdr:row>1</xdr:row></xdr:from><xdr:to><xdr:col>9</xdr:col><xdr:row>15</xdr:row></xdr:to><xdr:graphicFrame><xdr:nvGraphicFramePr><xdr:cNvPr id="2" name="Chart 1"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>' +
          '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rCh"/></a:graphicData></a:graphic></xdr:graphicFrame><xdr:clientData/></xdr:twoCellAnchor></xdr:wsDr>',
      );
      zip.file(
        'xl/drawings/_rels/drawing1.xml.rels',
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rCh" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="../charts/chart1.xml"/></Relationships>',
      );
      zip.file('xl/charts/chart1.xml', chart);
      const markdown = await convert('sales.xlsx', await zip.generateAsync({ type: 'nodebuffer' }));
      holds(markdown, ['## Sheet: Sales', ...expected]);
    });
  });
  describe('page headers and footers', () => {
    it('a Word document keeps the text of its headers before the body and of its footers after it, each line once, without field codes, a page number alone left out', async () => {
      const p = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>`;
      const body = `${p('CHAPTER 1 – INTRODUCTION')}${p('The standing trustee has a fiduciary responsibility to the estate.')}`;
      const mc =
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"';
      // A text box in the header, written as Word does: the shape, and a fallback copy of its text for older readers.
      const textBox = (text: string) =>
        `<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent>${p(text)}</w:txbxContent></wps:txbx></w:drawing></mc:Choice>` +
        `<mc:Fallback><w:pict><w:txbxContent>${p(text)}</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`;
      const header = `<?xml version="1.0"?><w:hdr ${W} ${mc}>${p('US Trustee Handbook')}${textBox('Draft for review')}</w:hdr>`;
      // A first-page header saying the same as the default one.
      const firstHeader = `<?xml version="1.0"?><w:hdr ${W}>${p('US Trustee Handbook')}</w:hdr>`;
      const pageField =
        '<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>' +
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>3</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>';
      const footer = `<?xml version="1.0"?><w:ftr ${W}>${p('Copyright')}<w:p><w:r><w:t>7</w:t></w:r></w:p>${pageField}</w:ftr>`;
      const markdown = await convert(
        'handbook.docx',
        await docx(body, { 'word/header1.xml': header, 'word/header2.xml': firstHeader, 'word/footer1.xml': footer }),
      );
      const lines = markdown.split('\n').filter(Boolean);
      assert.deepEqual(lines, [
        'US Trustee Handbook',
        'Draft for review',
        'CHAPTER 1 – INTRODUCTION',
        'The standing trustee has a fiduciary responsibility to the estate.',
        'Copyright',
        'Page 3',
      ]);
    });
  });
});
