import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findAll, parseXml, textOf } from '../../../../src/backend/convert/xml';
import * as corpus from './corpus';
import { convert, holds, rewrite } from './convertHelpers';

const fixtures = path.join(__dirname, '../../../fixtures/markitdown');

describe('backend: office XML is read by namespace, not by prefix', function () {
  this.timeout(60_000);

  it('XML names are given the prefix of their namespace, whatever the file declares', () => {
    const root = parseXml(
      '<o:document-content xmlns:o="urn:oasis:names:tc:opendocument:xmlns:office:1.0"><o:body>' +
        '<p xmlns="urn:oasis:names:tc:opendocument:xmlns:text:1.0">default namespace</p></o:body></o:document-content>',
      'test',
    );
    assert.deepEqual(findAll(root, 'office:body').length, 1);
    assert.deepEqual(findAll(root, 'text:p').map(textOf), ['default namespace']);
  });

  it('a workbook written by openpyxl (unprefixed <pic> in a default namespace): its picture alt text and OCR text are kept', async () => {
    const markdown = await convert('xlsx_image_start.xlsx', readFileSync(path.join(fixtures, 'xlsx_image_start.xlsx')));
    holds(markdown, ['Widget A', '[image: Picture]', 'Q1 Sales Chart']);
  });

  it('a presentation whose slides use a default namespace and another prefix for DrawingML', async () => {
    const deck = await corpus.pptxDeck(corpus.textImage(['Invoice 2041'], 'png'));
    const before = await convert('review.pptx', deck);
    const renamed = await rewrite(deck, 'ppt/slides/slide1.xml', (xml) =>
      xml
        .replace(/<(\/?)a:/g, '<$1d:')
        .replace('xmlns:a=', 'xmlns:d=')
        .replace(/<(\/?)p:/g, '<$1')
        .replace('xmlns:p=', 'xmlns='),
    );
    const after = await convert('review.pptx', renamed);
    assert.equal(after, before);
  });

  it('an ODF text whose prefixes are not the usual ones', async () => {
    const odt = await rewrite(await corpus.odtDocument(), 'content.xml', (xml) =>
      xml
        .replace(/(<\/?|\s)office:/g, '$1o:')
        .replace(/(<\/?|\s)text:/g, '$1t:')
        .replace(/(<\/?|\s)table:/g, '$1tb:')
        .replace('xmlns:office=', 'xmlns:o=')
        .replace('xmlns:text=', 'xmlns:t=')
        .replace('xmlns:table=', 'xmlns:tb='),
    );
    holds(await convert('guide.odt', odt), [
      '# Onboarding guide',
      'Badges are issued on the first day.',
      '- Bring a passport',
      '| Reception | 555-0100 |',
    ]);
  });

  it('an EPUB whose package names Dublin Core with another prefix', async () => {
    const epub = await rewrite(await corpus.epubBook(), 'OEBPS/content.opf', (xml) =>
      xml.replace(/<(\/?)dc:/g, '<$1purl:').replace('xmlns:dc=', 'xmlns:purl='),
    );
    holds(await convert('book.epub', epub), ['# The Lighthouse Keeper', 'A. Writer']);
  });

  it('a Word equation whose math namespace has another prefix', async () => {
    const docx = await rewrite(await corpus.richDocx(), 'word/document.xml', (xml) =>
      xml.replace(
        /(<w:body>)/,
        '$1<w:p><w:r><w:t>Area: </w:t></w:r><mm:oMath xmlns:mm="http://schemas.openxmlformats.org/officeDocument/2006/math">' +
          '<mm:r><mm:t>A=πr</mm:t></mm:r><mm:sSup><mm:e><mm:r><mm:t>x</mm:t></mm:r></mm:e><mm:sup><mm:r><mm:t>2</mm:t></mm:r></mm:sup></mm:sSup></mm:oMath></w:p>',
      ),
    );
    holds(await convert('geometry.docx', docx), ['Area: $A=πrx^2$']);
  });
});
