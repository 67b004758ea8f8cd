/**
 * PDF text extraction with unpdf (PDF.js, serverless build). Pages become `## Page N` sections.
 * Pictures on a page (a scanned page is one picture) are decoded by PDF.js and read by OCR;
 * with skip_ocr they are not, and the notes name the pages left out.
 */
import { note, progress, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { markdownTable } from './markdown';
import { checkImageSize, cropPgm, encodePgm, enlargeSmallScan, missingLines, ocrSkippedMessage, readImage } from './ocr';

/** Pages beyond this are "too large" for the local backend. */
export const MAX_PDF_PAGES = 2000;

/**
 * PDF.js 5 calls ArrayBuffer#transferToFixedLength (ES2024), which Node 20 lacks; without it
 * font loading fails and the operator lists used to find images come back incomplete.
 */
function polyfillNode20(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: unknown };
  if (typeof proto.transferToFixedLength === 'function') return;
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number) {
      const size = length ?? this.byteLength;
      const copy = new ArrayBuffer(size);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
      return copy;
    },
  });
}

interface TextItemLike {
  str: string;
  hasEOL?: boolean;
  transform?: number[];
  height?: number;
}

const squashSpaces = (text: string) => text.trim().replace(/\s+/g, ' ');

/** Text lines shorter than this (characters) can be headings; a longer line is body text set large. */
const MAX_HEADING_CHARS = 150;

/**
 * The markdown heading level of a line set in `size` on a page whose body text is `body`: a line
 * clearly larger than the body is a heading, the larger the higher; 0 for body text.
 */
export function headingLevel(size: number, body: number): number {
  if (!(body > 0)) return 0;
  const ratio = size / body;
  return ratio >= 1.9 ? 1 : ratio >= 1.45 ? 2 : ratio >= 1.18 ? 3 : 0;
}

/**
 * The heading level of each line of a page (0: body text). The body size is the font height most
 * of the page's characters are set in; a heading wraps over two lines at most, so a longer run of
 * large lines is text set large (a form, a banner).
 */
function headingLevels(lines: { text: string; size: number; blankBefore: boolean }[]): number[] {
  // The body size: the font height most characters on the page are set in.
  const weight = new Map<number, number>();
  for (const line of lines) {
    if (!Number.isFinite(line.size)) continue;
    const size = Math.round(line.size * 2) / 2;
    weight.set(size, (weight.get(size) ?? 0) + line.text.trim().length);
  }
  const body = [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
  const levels = lines.map((line) => {
    const plain = line.text.trim();
    return plain.length >= 2 && plain.length <= MAX_HEADING_CHARS && /\p{L}/u.test(plain) && Number.isFinite(line.size)
      ? headingLevel(line.size, body)
      : 0;
  });
  // A heading wraps over two lines at most: a longer run of large lines is text set large (a form, a banner).
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (levels[i] && j < lines.length && levels[j] === levels[i] && !lines[j]!.blankBefore) j++;
    const joined = lines.slice(i, j).reduce((n, l) => n + l.text.trim().length + 1, 0);
    if (j - i > 2 || joined > MAX_HEADING_CHARS) for (let k = i; k < j; k++) levels[k] = 0;
    i = j;
  }
  return levels;
}

/**
 * Lines from the order and positions of PDF.js text items; a large vertical gap is a paragraph
 * break, and a short line set clearly larger than the page's body text (the size most of its
 * characters have) is a markdown heading, its level by how much larger.
 */
export function textFromItems(items: readonly unknown[]): string {
  interface Line {
    text: string;
    /** The smallest font height of the line's non-blank items. */
    min: number;
    blankBefore: boolean;
  }
  const lines: Line[] = [];
  let current: Line | undefined;
  let blankNext = false;
  const end = (blank = false) => {
    if (current) lines.push(current);
    current = undefined;
    blankNext ||= blank;
  };
  let lastY: number | undefined;
  let lastHeight = 0;
  for (const raw of items) {
    const item = raw as TextItemLike;
    if (typeof item?.str !== 'string') continue;
    const y = item.transform?.[5] ?? lastY ?? 0;
    const height = Math.abs(item.transform?.[3] ?? 0) || item.height || 10;
    if (lastY !== undefined && item.str) {
      const gap = lastY - y;
      if (gap > Math.max(height, lastHeight) * 1.8) end(true);
      else if (Math.abs(gap) > height * 0.5) end();
    }
    if (item.str) {
      current ??= { text: '', min: Infinity, blankBefore: blankNext };
      blankNext = false;
      current.text += item.str;
      if (item.str.trim()) current.min = Math.min(current.min, height);
    }
    if (item.hasEOL) end();
    if (item.str) {
      lastY = y;
      lastHeight = height;
    }
  }
  end();
  const levels = headingLevels(lines.map((l) => ({ text: l.text, size: l.min, blankBefore: l.blankBefore })));
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const text = line.text.replace(/\s+$/, '');
    const plain = text.trim().replace(/\s+/g, ' ');
    const level = levels[i]!;
    if (level && i > 0 && levels[i - 1] === level && !line.blankBefore) {
      // The second line of a wrapped heading.
      out[out.length - 2] += ` ${plain}`;
    } else if (level) out.push('', `${'#'.repeat(level)} ${plain}`, '');
    else {
      if (line.blankBefore) out.push('');
      out.push(text);
    }
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface Cell {
  x: number;
  end: number;
  text: string;
}

/**
 * Table recognition (skipped with skip_ocr): text items grouped into lines by their baseline and
 * split into cells where the gap between items is wider than twice the font height. Two or more
 * consecutive lines with the same number of cells (at least two) whose cells start in the same
 * columns form a table. Returns undefined when the page has no such run (its text is then laid out
 * by textFromItems).
 */
export function tablesFromItems(items: readonly unknown[]): string | undefined {
  const lines: { y: number; height: number; cells: Cell[] }[] = [];
  for (const raw of items) {
    const item = raw as TextItemLike & { width?: number };
    if (typeof item?.str !== 'string' || !item.str.trim() || !item.transform) continue;
    const x = item.transform[4] ?? 0;
    const y = item.transform[5] ?? 0;
    const height = Math.abs(item.transform[3] ?? 0) || item.height || 10;
    let line = lines[lines.length - 1];
    if (!line || Math.abs(line.y - y) > height * 0.5) lines.push((line = { y, height, cells: [] }));
    const last = line.cells[line.cells.length - 1];
    if (last && x - last.end < height * 2) {
      last.text += (x - last.end > height * 0.15 ? ' ' : '') + item.str;
      last.end = x + (item.width ?? 0);
    } else line.cells.push({ x, end: x + (item.width ?? 0), text: item.str });
  }
  const aligned = (a: Cell[], b: Cell[], tolerance: number) =>
    a.length === b.length && a.length >= 2 && a.every((cell, i) => Math.abs(cell.x - b[i]!.x) <= tolerance);
  const out: string[] = [];
  let found = false;
  const levels = headingLevels(lines.map((l) => ({ text: l.cells.map((c) => c.text).join(' '), size: l.height, blankBefore: false })));
  for (let i = 0; i < lines.length;) {
    let j = i + 1;
    while (j < lines.length && aligned(lines[i]!.cells, lines[j]!.cells, lines[i]!.height * 2)) j++;
    if (j - i >= 2) {
      found = true;
      out.push('', markdownTable(lines.slice(i, j).map((l) => l.cells.map((c) => c.text))), '');
    } else {
      const text = lines[i]!.cells.map((c) => c.text).join(' ');
      const level = levels[i]!;
      if (level && i > 0 && levels[i - 1] === level && out[out.length - 1] === '') out[out.length - 2] += ` ${squashSpaces(text)}`;
      else if (level) out.push('', `${'#'.repeat(level)} ${squashSpaces(text)}`, '');
      else out.push(text);
    }
    i = j;
  }
  return found
    ? out
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()
    : undefined;
}

/** Pictures smaller than this (icons, rules, logos) are not worth OCR. */
const MIN_OCR_WIDTH = 64;
const MIN_OCR_HEIGHT = 24;

interface PdfImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/** PDF.js image kinds: 1 = 1 bit gray (packed), 2 = RGB, 3 = RGBA. */
function imageToPgm(image: PdfImage): Buffer | undefined {
  const { width, height, data, kind } = image;
  if (!data || !width || !height) return undefined;
  if (kind === 1) {
    const rowBytes = Math.ceil(width / 8);
    const gray = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) gray[y * width + x] = (data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
    return encodePgm(width, height, gray, 1);
  }
  return encodePgm(width, height, data, kind === 3 ? 4 : 3);
}

/** Pictures at least this wide and high are read as page scans (their header and footer bands too). */
const PAGE_SCAN_MIN_WIDTH = 500;

/**
 * A page scan's text with the lines of its header and footer bands that the page's reading
 * missed. Tesseract's page segmentation takes a letterhead (large type far above the body) or
 * a footer line for a picture and skips it; read on its own, the band is a line of text.
 */
async function withBands(ctx: ConvertContext, scan: Buffer, text: string, n: number): Promise<string> {
  const top = cropPgm(scan, 0, 0.15);
  const bottom = cropPgm(scan, 0.9, 1);
  const header = top ? missingLines(await readImage(ctx, top, `the top of page ${n} of ${ctx.filename}`, `page ${n}`), text) : [];
  const footer = bottom ? missingLines(await readImage(ctx, bottom, `the foot of page ${n} of ${ctx.filename}`, `page ${n}`), text) : [];
  return [header.join('\n'), text, footer.join('\n')].filter(Boolean).join('\n');
}

/** Longest a picture's pixels are waited for once its page's operators are read (they are decoded by then). */
export const PDF_OBJECT_WAIT_MS = 10_000;

interface PdfObjects {
  has(name: string): boolean;
  get(name: string, callback?: (value: unknown) => void): unknown;
}

/**
 * A picture's pixels by name. PDF.js keeps pictures shared between pages (names starting `g_`)
 * in the document's common objects and the page's own in `page.objs`; asking the wrong one
 * with a callback neither throws nor ever calls back, so the wait is bounded, and a picture
 * that does not arrive is skipped with a note instead of holding the conversion.
 */
export async function pdfObject(
  page: { objs: PdfObjects; commonObjs: PdfObjects },
  name: string,
  waitMs = PDF_OBJECT_WAIT_MS,
): Promise<unknown> {
  const stores = name.startsWith('g_') ? [page.commonObjs, page.objs] : [page.objs, page.commonObjs];
  for (const objs of stores) {
    try {
      if (objs.has(name)) return objs.get(name);
    } catch {
      // Not resolved yet in this store: waited for below.
    }
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    const done = (value: unknown) => {
      clearTimeout(timer);
      resolve(value);
    };
    try {
      stores[0]!.get(name, done);
    } catch {
      done(undefined);
    }
  });
}

export async function pdfToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const filename = ctx.filename;
  polyfillNode20();
  const { getDocumentProxy, getResolvedPDFJS } = await import('unpdf');
  const { OPS } = await getResolvedPDFJS();
  const imageOps = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintInlineImageXObject,
    OPS.paintImageMaskXObject,
    OPS.paintImageXObjectRepeat,
  ]);
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: PDF.js may transfer (detach) the buffer it is given. Raw pixels, not ImageBitmaps, for OCR.
    pdf = await getDocumentProxy(new Uint8Array(data), {
      verbosity: 0,
      isEvalSupported: false,
      disableFontFace: true,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      // The pixel bound, applied by PDF.js before it decodes an image.
      maxImageSize: ctx.maxImagePixels,
    } as Parameters<typeof getDocumentProxy>[1]);
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === 'PasswordException') {
      throw new ConversionError('unsupported_file', `${filename} is password-protected; remove the password and upload it again.`);
    }
    throw new ConversionError('corrupt_file', `${filename} is a corrupt PDF and cannot be read (${(error as Error)?.message ?? error}).`);
  }
  const pages: string[] = [];
  const imageOnlyPages: number[] = [];
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new ConversionError(
        'file_too_large',
        `${filename} is too large to convert: ${pdf.numPages} pages (the limit is ${MAX_PDF_PAGES}).`,
      );
    }
    for (let n = 1; n <= pdf.numPages; n++) {
      progress(ctx, `reading page ${n}`);
      const page = await pdf.getPage(n);
      const { items } = await page.getTextContent();
      let text = (!ctx.skipOcr && tablesFromItems(items)) || textFromItems(items);
      const operators = await page.getOperatorList();
      const images: string[] = [];
      operators.fnArray.forEach((op: number, i: number) => {
        if (op === OPS.paintImageXObject || op === OPS.paintImageXObjectRepeat) {
          images.push(String((operators.argsArray[i] as unknown[])[0]));
        }
      });
      const hasImages = operators.fnArray.some((op: number) => imageOps.has(op));
      if (!text && hasImages) imageOnlyPages.push(n);
      if (hasImages) {
        if (ctx.skipOcr) {
          note(
            ctx,
            text
              ? `the pictures on page ${n} were not read; OCR was skipped (skip_ocr: true), so any text in them is not indexed. Attach the file again with full conversion to read it.`
              : `page ${n} has only an image; OCR was skipped (skip_ocr: true), so its text is not indexed. Attach the file again with full conversion to read it.`,
          );
        } else {
          const read: string[] = [];
          for (const name of new Set(images)) {
            progress(ctx, `reading the pictures on page ${n}`);
            const image = (await pdfObject(page as never, name)) as PdfImage | undefined;
            if (!image) {
              note(ctx, `a picture on page ${n} could not be decoded, so any text in it is not indexed.`);
              continue;
            }
            if (image.width < MIN_OCR_WIDTH || image.height < MIN_OCR_HEIGHT) continue;
            if (image.width * image.height > ctx.maxImagePixels) checkImageSize(ctx, image.width, image.height, `page ${n} of ${filename}`);
            const pgm = imageToPgm(image);
            if (!pgm) continue;
            progress(ctx, `reading the pictures on page ${n}`);
            const scan = enlargeSmallScan(pgm, ctx.maxImagePixels);
            let found = await readImage(ctx, scan, `a picture on page ${n} of ${filename}`, `page ${n}`);
            if (found && image.width >= PAGE_SCAN_MIN_WIDTH && image.height >= PAGE_SCAN_MIN_WIDTH) {
              found = await withBands(ctx, scan, found, n);
            }
            if (found) read.push(found);
          }
          if (read.length) text = [text, ...read].filter(Boolean).join('\n\n');
          else if (!text && !ctx.ocrStopped) note(ctx, `page ${n} has only an image, and OCR found no text in it.`);
        }
      }
      pages.push(text);
      page.cleanup();
    }
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    throw new ConversionError('corrupt_file', `${filename} is a corrupt PDF: ${(error as Error)?.message ?? error}.`);
  } finally {
    await pdf.destroy();
  }
  const sections = pages.map((text, i) => (text ? `## Page ${i + 1}\n\n${text}` : '')).filter(Boolean);
  if (!sections.length && imageOnlyPages.length) {
    const which = imageOnlyPages.length === 1 ? `page ${imageOnlyPages[0]}` : `pages ${imageOnlyPages.join(', ')}`;
    const what = `${which} of ${pages.length} contain${imageOnlyPages.length === 1 ? 's' : ''} only images`;
    if (ctx.skipOcr) throw new ConversionError('ocr_skipped', ocrSkippedMessage(filename, what));
    throw new ConversionError('no_text', `${filename}: ${what}, and OCR found no text in them.`);
  }
  if (!sections.length) throw new ConversionError('no_text', `${filename} contains no text.`);
  return sections.join('\n\n');
}
