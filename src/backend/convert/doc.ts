/**
 * Word 97–2003 documents (.doc): the text of the body, its tables, text boxes, footnotes,
 * endnotes, comments, headers and footers, read with word-extractor. The compound file is first
 * read and written again with `cfb` (which stops at a looping sector chain), so the extractor only
 * ever sees a well-formed container. Word 6/95 files and password-protected ones are refused with
 * a sentence; embedded objects are named in a note. Pictures are not read (word-extractor gives
 * text only).
 */
import { note, progress, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { markdownTable } from './markdown';

/** FIB flag (MS-DOC 2.5.2, FibBase): the document is encrypted with a password. */
const F_ENCRYPTED = 0x0100;
/** The first nFib of Word 97 (earlier files are Word 6.0 and 95, another format). */
const WORD97_NFIB = 0xc0;

export async function docToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const { filename } = ctx;
  progress(ctx, 'reading the Word document');
  const CFB = await import('cfb');
  let container: ReturnType<typeof CFB.read>;
  let wordStream: Buffer | undefined;
  try {
    container = CFB.read(Buffer.from(data), { type: 'buffer' });
    const entry = CFB.find(container, 'WordDocument');
    wordStream = entry?.content ? Buffer.from(entry.content as Uint8Array) : undefined;
  } catch (error) {
    // The container reader's words when they name what is wrong ("Header Signature: Expected …"), not a slip of its own.
    const reason = (error as Error)?.message ?? '';
    const detail = reason && !/undefined|null|\[object|is not a function/i.test(reason) ? ` (${reason})` : '';
    throw new ConversionError('corrupt_file', `${filename} is a corrupt Word document and cannot be read${detail}.`);
  }
  if (!wordStream || wordStream.length < 0x20 || wordStream.readUInt16LE(0) !== 0xa5ec) {
    throw new ConversionError('corrupt_file', `${filename} is not a valid Word document: it has no Word 97–2003 document stream.`);
  }
  if (wordStream.readUInt16LE(2) < WORD97_NFIB) {
    throw new ConversionError(
      'unsupported_file',
      `${filename} is a Word 6.0/95 document, which DocChat cannot read; open it in Word and save it as .docx.`,
    );
  }
  if (wordStream.readUInt16LE(0x0a) & F_ENCRYPTED) {
    throw new ConversionError('unsupported_file', `${filename} is password-protected; remove the password, save it and attach it again.`);
  }
  // Objects embedded in the document (a workbook, an equation, a package) are storages under ObjectPool.
  const objects = new Set(
    container.FullPaths.map((full) => /^[^/]*\/ObjectPool\/([^/]+)\//.exec(full)?.[1]).filter((name): name is string => !!name),
  ).size;
  if (objects) {
    note(
      ctx,
      `${filename} holds ${objects === 1 ? 'an embedded object' : `${objects} embedded objects`} that DocChat does not convert, so ${objects === 1 ? 'its' : 'their'} content is not indexed.`,
    );
  }
  const clean = Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
  const { default: WordExtractor } = await import('word-extractor');
  const doc = await new WordExtractor().extract(clean);
  const keep = { filterUnicode: false };
  const tables = !ctx.skipOcr;
  const parts = [blocksToMarkdown(doc.getBody(keep), tables)];
  const section = (title: string, text: string) => {
    const body = blocksToMarkdown(text, tables);
    if (body) parts.push(`## ${title}\n\n${body}`);
  };
  section('Text boxes', doc.getTextboxes({ ...keep, includeHeadersAndFooters: false }));
  section('Footnotes', doc.getFootnotes(keep));
  section('Endnotes', doc.getEndnotes(keep));
  section('Comments', doc.getAnnotations(keep));
  // Headers and footers repeat from section to section: each line once.
  const furniture = [
    doc.getHeaders({ ...keep, includeFooters: false }),
    doc.getFooters(keep),
    doc.getTextboxes({ ...keep, includeBody: false }),
  ].join('\n');
  section('Headers and footers', [...new Set(furniture.split('\n').map((line) => line.trim()))].join('\n\n'));
  return parts.filter(Boolean).join('\n\n');
}

/**
 * Word's text to markdown: each paragraph a markdown paragraph, runs of table rows a table.
 * word-extractor ends each cell with a tab (Word's cell mark), so a row is a line ending with a tab,
 * with the lines before it that belong to its cells: a cell's paragraphs are kept apart by `<br>`.
 * Lines held for a row are paragraphs after all when no row of two or more cells (and, inside a
 * table, of as many cells as the row before) follows them.
 */
export function blocksToMarkdown(text: string, tables: boolean): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let rows: string[][] = [];
  let pending: string[] = [];
  const endTable = () => {
    if (rows.length) out.push(markdownTable(rows, tables));
    rows = [];
  };
  const paragraph = (line: string) => {
    const trimmed = line.replace(/[ \t\u00a0]+/g, ' ').trim();
    if (trimmed) out.push(trimmed);
  };
  const cellsOf = (held: string[]) => held.join('\n').split('\t').slice(0, -1);
  const isRow = (cells: string[]) => cells.length >= 2 && (!rows.length || cells.length === rows[rows.length - 1]!.length);
  for (const line of lines) {
    if (line.endsWith('\t') && isRow(cellsOf([...pending, line]))) {
      rows.push(cellsOf([...pending, line]));
      pending = [];
    } else if (line.endsWith('\t') && cellsOf([line]).length >= 2) {
      // A row of another table (another number of cells): the lines held were paragraphs.
      endTable();
      for (const held of pending) paragraph(held);
      pending = [];
      rows.push(cellsOf([line]));
    } else if (line.trim() && (rows.length || line.includes('\t')) && pending.length < 50) {
      pending.push(line);
    } else {
      endTable();
      for (const held of pending) paragraph(held);
      pending = [];
      paragraph(line);
    }
  }
  endTable();
  for (const held of pending) paragraph(held);
  return out.join('\n\n');
}
