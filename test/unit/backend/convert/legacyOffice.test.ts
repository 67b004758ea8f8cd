/**
 * Word 97–2003 documents (.doc), with the public test files of word-extractor (test/fixtures/
 * word-extractor, MIT licence), and the legacy formats still refused (.ppt).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as CFB from 'cfb';
import { ConversionError, convertWithNotes } from '../../../../src/backend/convert/index';
import { blocksToMarkdown } from '../../../../src/backend/convert/doc';
import { isConvertibleName } from '../../../../src/api/documents/fileTypes';
import * as corpus from './corpus';
import { convert, holds } from './convertHelpers';

const fixtures = path.join(__dirname, '../../../fixtures/word-extractor');
const fixture = (name: string) => readFileSync(path.join(fixtures, name));

async function conversionError(filename: string, data: Uint8Array): Promise<ConversionError> {
  try {
    await convert(filename, data);
  } catch (error) {
    assert.ok(error instanceof ConversionError, `not a ConversionError: ${String(error)}`);
    return error;
  }
  assert.fail(`${filename} converted`);
}

/** test13.doc with its Word stream's FIB changed by `edit` (the container written again by cfb). */
function withFib(edit: (word: Buffer) => void): Buffer {
  return rewritten((container) => {
    const entry = CFB.find(container, 'WordDocument')!;
    const word = Buffer.from(entry.content as Uint8Array);
    edit(word);
    entry.content = word;
  });
}

/** test13.doc with its compound file changed by `edit`. */
function rewritten(edit: (container: CFB.CFB$Container) => void): Buffer {
  const container = CFB.read(fixture('test13.doc'), { type: 'buffer' });
  edit(container);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

describe('backend: Word 97–2003 documents (.doc)', () => {
  it('a paragraph and a table become a paragraph and a markdown table (test03.doc)', async () => {
    const markdown = await convert('test03.doc', fixture('test03.doc'));
    holds(markdown, [
      'Each license name is hyperlinked to its location.\n\n| License | GPL v3.0 | LGPL v3.0 | BSD | MIT (X11) | Apache v2.0 |\n| --- | --- | --- | --- | --- | --- |',
      '| Can You Release Commercial Works? | Yes, but ALL source code must be distributed under GPL (viral). | Yes | Yes | Yes | Yes |',
      // Typographic apostrophes are kept as written.
      'While it’s a favorite',
    ]);
  });

  it('with skip_ocr, a table is one line per row, cells joined by " | "', async () => {
    holds(
      await convert('test03.doc', fixture('test03.doc'), true),
      ['License | GPL v3.0 | LGPL v3.0 | BSD | MIT (X11) | Apache v2.0\n'],
      ['| --- |'],
    );
  });

  it('footnotes and endnotes follow the body under their own headings (test13.doc)', async () => {
    const markdown = await convert('test13.doc', fixture('test13.doc'));
    assert.equal(
      markdown.trim(),
      'Endnotes and footnotes test\n\nParagraph 1\n\nParagraph 2\n\n## Footnotes\n\nThis is a footnote\n\n## Endnotes\n\nThis is an endnote',
    );
  });

  it('headers and footers of every section are kept, each once (test15.doc)', async () => {
    const markdown = await convert('test15.doc', fixture('test15.doc'));
    holds(markdown, [
      'Header test file',
      'Section 3 text',
      '## Headers and footers',
      'Section 1 – first page header',
      'Section 3 – even page footer',
    ]);
    assert.equal(markdown.split('Section 2 – odd page header').length, 2, markdown);
  });

  it('objects embedded in the document are named in a note; its text is kept', async () => {
    const data = rewritten((container) => {
      for (const id of ['_1012299795', '_1012299796']) {
        CFB.utils.cfb_add(container, `/ObjectPool/${id}/\u0001Ole10Native`, Buffer.from('a packaged file'));
      }
    });
    const { markdown, notes } = await convertWithNotes('report.doc', data, { skipOcr: false, maxBytes: 1 << 26 });
    holds(markdown, ['Paragraph 2', '## Footnotes']);
    assert.deepEqual(notes, ['report.doc holds 2 embedded objects that DocChat does not convert, so their content is not indexed.']);
  });

  it("a cell's paragraphs stay in their cell; a table with another number of columns is another table", () => {
    // As word-extractor writes Word's text: a cell ends with a tab, a row after its last cell.
    const text =
      'Name\tDocument1\t\nMethod\tpublic Boolean evaluate()\n(where the logic is).\t\n\nLogic\nA\tB\tC\t\n1\t2\t3\t\nTabbed\tline\n';
    assert.equal(
      blocksToMarkdown(text, true),
      '| Name | Document1 |\n| --- | --- |\n| Method | public Boolean evaluate()<br>(where the logic is). |\n\nLogic\n\n' +
        '| A | B | C |\n| --- | --- | --- |\n| 1 | 2 | 3 |\n\nTabbed line',
    );
    // Held lines followed by a row of another width are paragraphs after the table, in order.
    assert.equal(
      blocksToMarkdown('A\tB\t\nafter the table\nX\tY\tZ\t\n', true),
      '| A | B |\n| --- | --- |\n\nafter the table\n\n| X | Y | Z |\n| --- | --- | --- |',
    );
  });

  it('a .doc that is really DOCX, RTF or a web page is read as what it is; another OLE file is refused with a sentence', async () => {
    holds(await convert('letter.doc', Buffer.from(corpus.RTF)), ['Café opening hours']);
    holds(await convert('geometry.doc', await corpus.richDocx()), ['θ']);
    holds(await convert('page.doc', Buffer.from('<html><body><h1>Minutes</h1><p>Saved as a web page</p></body></html>')), [
      'Saved as a web page',
    ]);
    const xls = await conversionError('sales.doc', await corpus.sheetJsWorkbook('biff8'));
    assert.equal(xls.code, 'corrupt_file');
    assert.match(xls.message, /sales\.doc is not a valid Word document: it has no Word 97–2003 document stream/);
    const text = await conversionError('notes.doc', Buffer.from('plain words'));
    assert.match(text.message, /notes\.doc is not a valid Word 97–2003 file: it is not an OLE compound file/);
  });

  it('a password-protected or Word 6/95 document, and a damaged one, are refused with a sentence', async () => {
    const locked = await conversionError(
      'locked.doc',
      withFib((word) => word.writeUInt16LE(word.readUInt16LE(0x0a) | 0x0100, 0x0a)),
    );
    assert.equal(locked.code, 'unsupported_file');
    assert.match(locked.message, /locked\.doc is password-protected/);
    const old = await conversionError(
      'old.doc',
      withFib((word) => word.writeUInt16LE(0x68, 2)),
    );
    assert.match(old.message, /old\.doc is a Word 6\.0\/95 document, which DocChat cannot read; open it in Word and save it as \.docx/);
    const damaged = await conversionError('damaged.doc', fixture('test13.doc').subarray(0, 3000));
    assert.equal(damaged.code, 'corrupt_file');
    assert.match(damaged.message, /damaged\.doc/);
  });

  it('.doc and .dot files are picked from folders; .ppt is still refused, saying what to do', async () => {
    assert.ok(isConvertibleName('minutes.doc') && isConvertibleName('letterhead.dot'));
    const ppt = await conversionError('deck.ppt', CFB.write(CFB.utils.cfb_new(), { type: 'buffer' }) as Uint8Array);
    assert.equal(ppt.code, 'unsupported_file');
    assert.match(ppt.message, /deck\.ppt is a legacy PowerPoint presentation; save it as \.pptx/);
  });
});
