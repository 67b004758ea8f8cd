import { makeDocx } from '../helpers';
import * as corpus from './corpus';
import { convert, holds, rewrite } from './convertHelpers';

describe('backend: table cells keep their content apart', () => {
  it('HTML: paragraphs, line breaks and lists inside a cell', async () => {
    const markdown = await convert(
      'cells.html',
      '<html><body><table><tr><th>Step</th><th>Details</th></tr>' +
        '<tr><td>1</td><td><p>First Line</p><p>Second Line</p>Third<br>Line</td></tr>' +
        '<tr><td>2</td><td><ul><li>Bring a passport</li><li>Sign the form</li></ul><ol><li>Call</li><li>Wait</li></ol></td></tr></table></body></html>',
    );
    holds(markdown, [
      '| 1 | First Line<br>Second Line<br>Third<br>Line |',
      '| 2 | - Bring a passport<br>- Sign the form<br>1. Call<br>2. Wait |',
    ]);
  });

  it('DOCX: paragraphs and line breaks inside a cell', async () => {
    const docx = await rewrite(
      await makeDocx({
        table: [
          ['Name', 'Notes'],
          ['Pump', 'PLACEHOLDER'],
        ],
      }),
      'word/document.xml',
      (xml) =>
        xml.replace(
          /<w:p><w:r><w:t xml:space="preserve">PLACEHOLDER<\/w:t><\/w:r><\/w:p>/,
          '<w:p><w:r><w:t>First Line</w:t></w:r></w:p><w:p><w:r><w:t>Second Line</w:t></w:r></w:p><w:p><w:r><w:t>Third</w:t><w:br/><w:t>Line</w:t></w:r></w:p>',
        ),
    );
    holds(await convert('pumps.docx', docx), ['| Pump | First Line<br>Second Line<br>Third<br>Line |']);
  });

  it('ODT: paragraphs and a list inside a cell', async () => {
    const odt = await rewrite(await corpus.odtDocument(), 'content.xml', (xml) =>
      xml.replace(
        '<table:table-cell><text:p>555-0100</text:p></table:table-cell>',
        '<table:table-cell><text:p>555-0100</text:p><text:p>ext. 12</text:p><text:list><text:list-item><text:p>mornings</text:p></text:list-item><text:list-item><text:p>not on Sundays</text:p></text:list-item></text:list></table:table-cell>',
      ),
    );
    holds(await convert('guide.odt', odt), ['| Reception | 555-0100<br>ext. 12<br>- mornings<br>- not on Sundays |']);
  });

  it('XLSX: a cell with line breaks (Alt+Enter)', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Parts');
    sheet.addRow(['Part', 'Where']);
    sheet.addRow(['Gearbox', 'Hall 2\nShelf 4\nBin 9']);
    holds(await convert('parts.xlsx', Buffer.from(await workbook.xlsx.writeBuffer())), ['| Gearbox | Hall 2<br>Shelf 4<br>Bin 9 |']);
  });
});

describe('backend: presentation table cells keep their paragraphs apart', () => {
  it('PPTX: two paragraphs in a cell', async () => {
    const deck = await rewrite(await corpus.pptxDeck(corpus.textImage(['Invoice 2041'], 'png')), 'ppt/slides/slide2.xml', (xml) =>
      xml.replace(/(<a:t>420<\/a:t><\/a:r>)(<a:endParaRPr[^>]*\/>)?<\/a:p>/, '$1</a:p><a:p><a:r><a:t>estimated</a:t></a:r></a:p>'),
    );
    holds(await convert('review.pptx', deck), ['| Nordics | 420<br>estimated |']);
  });
});
