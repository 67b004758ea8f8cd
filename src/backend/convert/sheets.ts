/**
 * Spreadsheets: XLSX and ODS (their XML read directly), XLS (BIFF8 records in an OLE compound file
 * read with `cfb`), CSV and TSV (encoding detected with chardet, decoded with iconv-lite). Each
 * sheet becomes `## Sheet: <name>` and one markdown table, so a passage from it names its sheet.
 * Pictures on an XLSX sheet follow its table (alt text, and the text OCR reads in them).
 * Only cells that exist are kept; a sheet whose table would pass MAX_SHEET_CELLS fails with a
 * sentence naming the limit (a sheet can declare a cell at row 1,048,576 without holding data).
 */
import path from 'node:path';
import type { ConvertContext } from './context';
import { ConversionError } from './errors';
import { markdownTable, trimRows } from './markdown';
import { decodeLegacyText } from './encoding';
import { chartToMarkdown } from './charts';
import { sheetComments } from './comments';
import { readImage } from './ocr';
import { odfContent, openPackage, relationships, type Package } from './zipPackage';
import { attr, childrenNamed, findAll, findFirst, localName, textOf, type XmlNode } from './xml';

/** Cells of one sheet's table (rows × widest row) beyond this are refused. */
export const MAX_SHEET_CELLS = 2_000_000;

export interface Sheet {
  name: string;
  /** row -> column -> text */
  cells: Map<number, Map<number, string>>;
  /** Text placed on the sheet besides its cells (comments, pictures' alt text and what OCR reads), after its table. */
  pictures?: string[];
}

function tooLarge(ctx: ConvertContext, sheet: string, cells: number): ConversionError {
  return new ConversionError(
    'conversion_bound',
    `conversion stopped: sheet "${sheet}" of ${ctx.filename} spans ${cells.toLocaleString('en-US')} cells, more than the limit of ${MAX_SHEET_CELLS.toLocaleString('en-US')}. Split the sheet or delete its empty rows and columns.`,
  );
}

function put(sheet: Sheet, row: number, col: number, text: string): void {
  if (!text) return;
  let line = sheet.cells.get(row);
  if (!line) sheet.cells.set(row, (line = new Map()));
  line.set(col, text);
}

/** One sheet as rows of text, empty rows dropped, bounded. */
export function sheetRows(ctx: ConvertContext, sheet: Sheet): string[][] {
  const rowNumbers = [...sheet.cells.keys()].sort((a, b) => a - b);
  let width = 0;
  for (const line of sheet.cells.values()) for (const col of line.keys()) width = Math.max(width, col + 1);
  if (rowNumbers.length * width > MAX_SHEET_CELLS) throw tooLarge(ctx, sheet.name, rowNumbers.length * width);
  return trimRows(rowNumbers.map((r) => Array.from({ length: width }, (_, c) => sheet.cells.get(r)?.get(c) ?? '')));
}

export function sheetsToMarkdown(ctx: ConvertContext, sheets: Sheet[]): string {
  const out: string[] = [];
  for (const sheet of sheets) {
    const rows = sheetRows(ctx, sheet);
    const pictures = sheet.pictures?.filter(Boolean) ?? [];
    if (!rows.length && !pictures.length) continue;
    out.push([`## Sheet: ${sheet.name}`, ...(rows.length ? [markdownTable(rows)] : []), ...pictures].join('\n\n'));
  }
  return out.join('\n\n');
}

/** `B12` -> { row: 11, col: 1 } */
function cellRef(ref: string): { row: number; col: number } | undefined {
  const match = /^\$?([A-Z]{1,3})\$?(\d+)$/.exec(ref);
  if (!match) return undefined;
  let col = 0;
  for (const ch of match[1]!) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { row: Number(match[2]) - 1, col: col - 1 };
}

/**
 * True for a number format that shows a date or a time: the built-in ones (ECMA-376 18.8.30 /
 * MS-XLS 2.5.165: 14–22, 45–47) and custom codes with day, month-and-year or hour parts outside
 * quoted text, escapes and bracketed colours or conditions (`[Red]0.00` is not a date).
 */
export function isDateFormat(id: number, code = ''): boolean {
  if ((id >= 14 && id <= 22) || (id >= 45 && id <= 47)) return true;
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  return /[dyh]/i.test(bare);
}

/** Built-in date formats and custom ones with date parts, by cell style index. */
function dateStyles(styles: XmlNode | undefined): Set<number> {
  const dates = new Set<number>();
  if (!styles) return dates;
  const custom = new Map<number, string>();
  for (const fmt of findAll(styles, 'numFmt')) custom.set(Number(attr(fmt, 'numFmtId')), attr(fmt, 'formatCode') ?? '');
  const xfs = findFirst(styles, 'cellXfs');
  childrenNamed(xfs ?? { name: '', attrs: {}, children: [] }, 'xf').forEach((xf, index) => {
    const id = Number(attr(xf, 'numFmtId') ?? 0);
    if (isDateFormat(id, custom.get(id))) dates.add(index);
  });
  return dates;
}

/** Days between the 1900 and the 1904 date systems' day zero. */
const DAYS_1904 = 1462;

/**
 * An Excel serial date as ISO text: the date alone when it has no time of day, the time alone
 * when it has no date (a duration or a time of day), otherwise both. `date1904`: the workbook
 * counts from 1904 (old Mac workbooks).
 */
export function excelDate(serial: number, date1904 = false): string {
  if (serial >= 0 && serial < 1) return new Date(Math.round(serial * 86400) * 1000).toISOString().slice(11, 19);
  const ms = Math.round((serial + (date1904 ? DAYS_1904 : 0) - 25569) * 86400 * 1000);
  const iso = new Date(ms).toISOString();
  return serial % 1 === 0 ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}

/** A cell of type `d` (an ISO 8601 date, ECMA-376 18.18.11) as the serial dates are written. */
function isoCellDate(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(value.trim());
  if (!match) return value;
  return !match[2] || match[2] === '00:00:00' ? match[1]! : `${match[1]} ${match[2]}`;
}

export async function xlsxToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const pkg = await openPackage(ctx, data, 'XLSX');
  const workbook = await pkg.xml('xl/workbook.xml');
  if (!workbook) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt XLSX file and cannot be read (it has no workbook).`);
  }
  const rels = await relationships(pkg, 'xl/workbook.xml');
  const shared = await pkg.xml('xl/sharedStrings.xml');
  // Phonetic runs (<rPh>) are readings, not the cell's text.
  const strings = shared
    ? findAll(shared, 'si').map((si) =>
        findAll(si, 't', 'rPh')
          .filter((t) => t.name !== 'rPh' && !t.name.endsWith(':rPh'))
          .map(textOf)
          .join(''),
      )
    : [];
  const dates = dateStyles(await pkg.xml('xl/styles.xml'));
  const date1904 = /^(1|true)$/.test(attr(findFirst(workbook, 'workbookPr') ?? { name: '', attrs: {}, children: [] }, 'date1904') ?? '');
  const sheets: Sheet[] = [];
  for (const entry of findAll(workbook, 'sheet')) {
    const target = rels.get(attr(entry, 'id') ?? '')?.target;
    const xml = target ? await pkg.xml(target) : undefined;
    if (!xml) continue;
    const sheet: Sheet = { name: attr(entry, 'name') ?? `Sheet ${sheets.length + 1}`, cells: new Map() };
    let rowIndex = -1;
    for (const row of findAll(xml, 'row')) {
      rowIndex = attr(row, 'r') ? Number(attr(row, 'r')) - 1 : rowIndex + 1;
      let colIndex = -1;
      for (const cell of childrenNamed(row, 'c')) {
        const ref = cellRef(attr(cell, 'r') ?? '');
        colIndex = ref ? ref.col : colIndex + 1;
        const type = attr(cell, 't') ?? 'n';
        const value = textOf(findFirst(cell, 'v') ?? { name: '', attrs: {}, children: [] });
        let text: string;
        if (type === 's') text = strings[Number(value)] ?? '';
        else if (type === 'inlineStr') {
          text = findAll(findFirst(cell, 'is') ?? cell, 't')
            .map(textOf)
            .join('');
        } else if (type === 'b') text = value === '1' ? 'TRUE' : value === '0' ? 'FALSE' : value;
        else if (type === 'd') text = isoCellDate(value);
        else if (type === 'n' && value && dates.has(Number(attr(cell, 's') ?? -1)) && Number.isFinite(Number(value))) {
          text = excelDate(Number(value), date1904);
        } else text = value;
        put(sheet, ref?.row ?? rowIndex, colIndex, text);
      }
    }
    sheet.pictures = [...(await sheetComments(pkg, target!)), ...(await sheetPictures(ctx, pkg, target!, sheet.name))];
    sheets.push(sheet);
  }
  return sheetsToMarkdown(ctx, sheets);
}

/**
 * The pictures placed on a sheet (its drawing part): each one's alt text and the text OCR reads in
 * it, in the drawing's order, bounded like pictures in any document; then its charts as text.
 */
async function sheetPictures(ctx: ConvertContext, pkg: Package, sheetPart: string, sheetName: string): Promise<string[]> {
  const out: string[] = [];
  for (const rel of (await relationships(pkg, sheetPart)).values()) {
    if (rel.external || !rel.type.endsWith('/drawing')) continue;
    const drawing = await pkg.xml(rel.target);
    if (!drawing) continue;
    const drawingRels = await relationships(pkg, rel.target);
    let index = 0;
    for (const pic of findAll(drawing, 'xdr:pic')) {
      index++;
      const props = findFirst(pic, 'xdr:cNvPr');
      const alt = (attr(props ?? pic, 'descr') ?? '').trim();
      if (alt) out.push(`[image: ${alt}]`);
      const embed = attr(findFirst(pic, 'a:blip') ?? pic, 'r:embed');
      const image = embed ? drawingRels.get(embed) : undefined;
      if (!image || image.external) continue;
      const bytes = await pkg.bytes(image.target);
      if (!bytes) continue;
      const where = `sheet "${sheetName}"`;
      const text = await readImage(
        ctx,
        bytes,
        `${ctx.filename} (${where}, ${path.posix.basename(image.target)})`,
        `picture ${index} on ${where} was not read`,
      );
      if (text) out.push(text);
    }
    for (const chartRef of findAll(drawing, 'c:chart')) {
      const chart = drawingRels.get(attr(chartRef, 'r:id') ?? '');
      const xml = chart && !chart.external ? await pkg.xml(chart.target) : undefined;
      if (xml) out.push(chartToMarkdown(xml));
    }
  }
  return out;
}

/** ODF repeat counts are bounded: only repeats of cells with content are expanded. */
function repeat(node: XmlNode, name: string): number {
  const n = Number(attr(node, name) ?? 1);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 1;
}

/** Text of an ODF paragraph-ish node: `text:s` spaces, tabs and line breaks kept. */
export function odfText(node: XmlNode): string {
  if (node.text !== undefined) return node.text;
  const local = node.name.replace(/^.*:/, '');
  if (local === 's') return ' '.repeat(Math.min(repeat(node, 'text:c'), 100));
  if (local === 'tab') return '\t';
  if (local === 'line-break') return '\n';
  if (local === 'note' || local === 'annotation') return '';
  return node.children.map(odfText).join('');
}

/** An ODF cell's paragraphs on lines of their own, list items as `- item`. */
function odfCellText(cell: XmlNode): string {
  const lines: string[] = [];
  const walk = (node: XmlNode, depth: number) => {
    for (const child of node.children) {
      const local = localName(child.name);
      if (local === 'p' || local === 'h') lines.push(odfText(child));
      else if (local === 'list') {
        for (const item of childrenNamed(child, 'list-item', 'list-header')) {
          const start = lines.length;
          walk(item, depth + 1);
          if (lines.length > start) lines[start] = `${'  '.repeat(depth)}- ${lines[start]!.trim()}`;
        }
      } else if (local === 'section') walk(child, depth);
    }
  };
  walk(cell, 0);
  return lines.join('\n').trim();
}

/** The rows of an ODF `table:table` (spreadsheet or table in a text), repeats expanded within bounds. */
export function odfTableRows(ctx: ConvertContext, table: XmlNode, name: string): string[][] {
  const sheet: Sheet = { name, cells: new Map() };
  let row = 0;
  for (const tr of findAll(table, 'table-row')) {
    let col = 0;
    const cells = childrenNamed(tr, 'table-cell', 'covered-table-cell');
    const rowCells: [number, string][] = [];
    for (const cell of cells) {
      const text = odfCellText(cell);
      const times = repeat(cell, 'table:number-columns-repeated');
      if (text) for (let i = 0; i < Math.min(times, 1024); i++) rowCells.push([col + i, text]);
      col += times;
    }
    const rows = repeat(tr, 'table:number-rows-repeated');
    if (rowCells.length) {
      if (rows * rowCells.length > MAX_SHEET_CELLS) throw tooLarge(ctx, name, rows * rowCells.length);
      for (let i = 0; i < rows; i++) for (const [c, text] of rowCells) put(sheet, row + i, c, text);
    }
    row += rows;
  }
  return sheetRows(ctx, sheet);
}

export async function odsToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const content = await odfContent(ctx, data, 'ODS');
  const out: string[] = [];
  for (const table of findAll(content, 'table:table')) {
    const name = attr(table, 'table:name') ?? `Sheet ${out.length + 1}`;
    const rows = odfTableRows(ctx, table, name);
    if (rows.length) out.push(`## Sheet: ${name}\n\n${markdownTable(rows)}`);
  }
  return out.join('\n\n');
}

/** RFC 4180 CSV (quotes, doubled quotes, line breaks in quoted cells) with the given delimiter. */
export function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === delimiter) {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** The delimiter of a CSV: the candidate that splits the first lines most consistently. */
function sniffDelimiter(text: string, fallback: string): string {
  const lines = text.split(/\r?\n/, 10).filter(Boolean);
  let best = fallback;
  let bestScore = 0;
  for (const candidate of [',', ';', '\t', '|']) {
    const counts = lines.map((l) => l.split(candidate).length - 1);
    const min = Math.min(...counts);
    if (min > 0 && min >= bestScore && counts.every((c) => c === counts[0])) {
      if (min > bestScore || candidate === fallback) best = candidate;
      bestScore = min;
    }
  }
  return best;
}

export function delimitedToMarkdown(ctx: ConvertContext, data: Uint8Array, tsv: boolean): string {
  const { text, encoding } = decodeLegacyText(data);
  const rows = trimRows(parseDelimited(text.replace(/^\uFEFF/, ''), sniffDelimiter(text, tsv ? '\t' : ',')));
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (rows.length * width > MAX_SHEET_CELLS) throw tooLarge(ctx, ctx.filename, rows.length * width);
  const name = ctx.filename.replace(/^.*[\\/]/, '');
  const table = markdownTable(rows);
  return table ? `## Sheet: ${name}\n\n${table}${encoding && !/^(utf-?8|ascii)$/i.test(encoding) ? `\n\n_Read as ${encoding}._` : ''}` : '';
}

// ---------------------------------------------------------------- XLS (BIFF8)

const BOF = 0x0809;
const EOF_RECORD = 0x000a;
const BOUNDSHEET = 0x0085;
const SST = 0x00fc;
const CONTINUE = 0x003c;
const LABELSST = 0x00fd;
const LABEL = 0x0204;
const NUMBER = 0x0203;
const RK = 0x027e;
const MULRK = 0x00bd;
const FORMULA = 0x0006;
const STRING = 0x0207;
const BOOLERR = 0x0205;
const FILEPASS = 0x002f;
const FORMAT = 0x041e;
const XF = 0x00e0;
const DATEMODE = 0x0022;

function rkValue(rk: number): number {
  let value: number;
  if (rk & 2) value = rk >> 2;
  else {
    const buffer = Buffer.alloc(8);
    buffer.writeInt32LE(rk & 0xfffffffc, 4);
    value = buffer.readDoubleLE(0);
  }
  return rk & 1 ? value / 100 : value;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
}

/** Records of a BIFF stream; a record's CONTINUE parts are returned with it (boundaries kept for SST). */
function* records(stream: Buffer): Generator<{ type: number; data: Buffer; parts: Buffer[] }> {
  let at = 0;
  while (at + 4 <= stream.length) {
    const type = stream.readUInt16LE(at);
    const length = stream.readUInt16LE(at + 2);
    const parts = [stream.subarray(at + 4, at + 4 + length)];
    at += 4 + length;
    while (at + 4 <= stream.length && stream.readUInt16LE(at) === CONTINUE && type !== CONTINUE) {
      const more = stream.readUInt16LE(at + 2);
      parts.push(stream.subarray(at + 4, at + 4 + more));
      at += 4 + more;
    }
    yield { type, data: Buffer.concat(parts), parts };
  }
}

/** The shared strings table: strings may continue across CONTINUE records, each restarting with an encoding flag. */
function readSst(parts: Buffer[]): string[] {
  const strings: string[] = [];
  let part = 0;
  let at = 8;
  const total = parts[0]!.length >= 8 ? parts[0]!.readUInt32LE(4) : 0;
  const need = (n: number) => {
    if (at + n > parts[part]!.length && part + 1 < parts.length && at >= parts[part]!.length) {
      part++;
      at = 0;
    }
  };
  for (let s = 0; s < total && part < parts.length; s++) {
    need(3);
    let buf = parts[part]!;
    if (at + 3 > buf.length) break;
    let remaining = buf.readUInt16LE(at);
    let flags = buf[at + 2]!;
    at += 3;
    const rich = flags & 0x08 ? buf.readUInt16LE(at) : 0;
    if (flags & 0x08) at += 2;
    const ext = flags & 0x04 ? buf.readUInt32LE(at) : 0;
    if (flags & 0x04) at += 4;
    let text = '';
    while (remaining > 0) {
      const wide = flags & 0x01;
      const available = Math.floor((buf.length - at) / (wide ? 2 : 1));
      const take = Math.min(remaining, available);
      text += wide ? buf.toString('utf16le', at, at + take * 2) : buf.toString('latin1', at, at + take);
      at += take * (wide ? 2 : 1);
      remaining -= take;
      if (remaining > 0) {
        part++;
        if (part >= parts.length) break;
        buf = parts[part]!;
        flags = buf[0]!;
        at = 1;
      }
    }
    strings.push(text);
    // Formatting runs and phonetic data follow the characters, possibly in the next part.
    let skip = rich * 4 + ext;
    while (skip > 0 && part < parts.length) {
      const step = Math.min(skip, parts[part]!.length - at);
      at += step;
      skip -= step;
      if (skip > 0) {
        part++;
        at = 0;
      }
    }
  }
  return strings;
}

function xlsString(data: Buffer, at: number, lengthBytes: 1 | 2): string {
  const count = lengthBytes === 2 ? data.readUInt16LE(at) : data[at]!;
  const wide = data[at + lengthBytes]! & 1;
  const start = at + lengthBytes + 1;
  return wide ? data.toString('utf16le', start, start + count * 2) : data.toString('latin1', start, start + count);
}

export async function xlsToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const CFB = await import('cfb');
  let stream: Buffer | undefined;
  try {
    const container = CFB.read(Buffer.from(data), { type: 'buffer' });
    const entry = CFB.find(container, 'Workbook') ?? CFB.find(container, 'Book');
    stream = entry?.content ? Buffer.from(entry.content as Uint8Array) : undefined;
  } catch (error) {
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is a corrupt XLS file and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  if (!stream) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt XLS file and cannot be read (it has no workbook stream).`);
  }
  const sheetsAt = new Map<number, string>();
  let strings: string[] = [];
  const sheets: Sheet[] = [];
  let current: Sheet | undefined;
  let pendingFormula: { row: number; col: number } | undefined;
  // Number formats by id, the format of each cell style (XF, by index) and the date system: a
  // number whose style shows a date is written as one.
  const formats = new Map<number, string>();
  const styleFormats: number[] = [];
  let date1904 = false;
  const numberText = (value: number, style: number): string => {
    const id = styleFormats[style];
    return id !== undefined && isDateFormat(id, formats.get(id)) && Number.isFinite(value)
      ? excelDate(value, date1904)
      : formatNumber(value);
  };
  try {
    for (const { type, data: rec, parts } of records(stream)) {
      switch (type) {
        case FILEPASS:
          throw new ConversionError(
            'unsupported_file',
            `${ctx.filename} is password-protected; remove the password, save it and attach it again.`,
          );
        case BOUNDSHEET:
          // Worksheets only (dt 0); the name is a ShortXLUnicodeString.
          if (rec[5] === 0) sheetsAt.set(rec.readUInt32LE(0), xlsString(rec, 6, 1));
          break;
        case SST:
          strings = readSst(parts);
          break;
        case FORMAT:
          if (rec.length >= 5) formats.set(rec.readUInt16LE(0), xlsString(rec, 2, 2));
          break;
        case XF:
          if (rec.length >= 4) styleFormats.push(rec.readUInt16LE(2));
          break;
        case DATEMODE:
          if (rec.length >= 2) date1904 = rec.readUInt16LE(0) === 1;
          break;
        case BOF: {
          const name = [...sheetsAt.entries()].find(([, n]) => !sheets.some((s) => s.name === n))?.[1];
          current = rec.readUInt16LE(2) === 0x0010 && name !== undefined ? { name, cells: new Map() } : undefined;
          if (current) sheets.push(current);
          break;
        }
        case EOF_RECORD:
          current = undefined;
          break;
        default:
          if (!current || rec.length < 6) break;
          {
            const row = rec.readUInt16LE(0);
            const col = rec.readUInt16LE(2);
            if (type === LABELSST) put(current, row, col, strings[rec.readUInt32LE(6)] ?? '');
            else if (type === LABEL) put(current, row, col, xlsString(rec, 6, 2));
            else if (type === NUMBER) put(current, row, col, numberText(rec.readDoubleLE(6), rec.readUInt16LE(4)));
            else if (type === RK) put(current, row, col, numberText(rkValue(rec.readInt32LE(6)), rec.readUInt16LE(4)));
            else if (type === MULRK) {
              const last = rec.readUInt16LE(rec.length - 2);
              for (let c = col, at = 4; c <= last && at + 6 <= rec.length - 2; c++, at += 6) {
                put(current, row, c, numberText(rkValue(rec.readInt32LE(at + 2)), rec.readUInt16LE(at)));
              }
            } else if (type === BOOLERR) put(current, row, col, rec[7] === 0 ? (rec[6] ? 'TRUE' : 'FALSE') : '#ERROR');
            else if (type === FORMULA) {
              if (rec.readUInt16LE(12) !== 0xffff) put(current, row, col, numberText(rec.readDoubleLE(6), rec.readUInt16LE(4)));
              else if (rec[6] === 0) pendingFormula = { row, col };
              else if (rec[6] === 1) put(current, row, col, rec[8] ? 'TRUE' : 'FALSE');
            }
          }
      }
      if (type === STRING && current && pendingFormula && rec.length >= 3) {
        put(current, pendingFormula.row, pendingFormula.col, xlsString(rec, 0, 2));
        pendingFormula = undefined;
      }
    }
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is a corrupt XLS file and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  return sheetsToMarkdown(ctx, sheets);
}
