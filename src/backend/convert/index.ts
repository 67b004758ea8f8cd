/**
 * Turns an uploaded file into markdown: text and markdown as they are, source code fenced with
 * its language, HTML (main content) with turndown, PDF with unpdf, DOCX with mammoth, DOC with
 * word-extractor,
 * spreadsheets, presentations, ODF, RTF, EPUB, e-mail, notebooks, JSON, XML and feeds, ZIP
 * members, and images through OCR. Failures are ConversionErrors whose message says why
 * (unsupported type, corrupt file, too large, no text, past a bound).
 */
import { formatBytes } from '../http/body';
import { zipToMarkdown } from './archive';
import { createContext, type ConvertContext } from './context';
import { jsonToMarkdown, notebookToMarkdown, xmlToMarkdown } from './data';
import { detectFormat } from './detect';
import { docToMarkdown } from './doc';
import { docxToMarkdown } from './docx';
import { epubToMarkdown } from './epub';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { imageToMarkdown } from './image';
import { DEFAULT_CONVERSION_LIMITS } from './limits';
import { emlToMarkdown, msgToMarkdown } from './mail';
import { notesSection } from './markdown';
import { releaseOcrEngine } from './ocr';
import { pdfToMarkdown } from './pdf';
import { rtfToMarkdown } from './rtf';
import { delimitedToMarkdown, odsToMarkdown, xlsToMarkdown, xlsxToMarkdown } from './sheets';
import { odpToMarkdown, odtToMarkdown, pptxToMarkdown } from './slides';
import { codeToMarkdown, decodeText, normalizeNewlines } from './text';

export { ConversionError } from './errors';
export { DEFAULT_CONVERSION_LIMITS, type ConversionLimits } from './limits';

export interface ConvertOptions {
  /** Skip OCR and advanced table recognition (faster, less accurate). */
  skipOcr: boolean;
  /** Files above this size fail as too large. */
  maxBytes: number;
  /** Deepest HTML nesting accepted (default 512). */
  maxHtmlDepth?: number;
  /** Largest markdown accepted, in bytes (default 64 MiB). */
  maxOutputBytes?: number;
  /** Largest image OCR reads, in pixels (default 40 megapixels). */
  maxImagePixels?: number;
  /** Most images OCR reads in one file (default 200). */
  maxOcrImages?: number;
  /** Largest the OCR engine's WebAssembly memory may grow to, in MiB (default 1024). */
  maxOcrMemoryMb?: number;
  /** The languages OCR reads (default every shipped one: eng, ara, fas, heb); another is an error naming them. */
  ocrLanguages?: readonly string[];
}

export async function convertToMarkdown(filename: string, data: Uint8Array, options: ConvertOptions): Promise<string> {
  return (await convertWithNotes(filename, data, options)).markdown;
}

/** The markdown, with the notes on what was left out (OCR skipped, members not converted) at its end. */
export async function convertWithNotes(
  filename: string,
  data: Uint8Array,
  options: ConvertOptions,
): Promise<{ markdown: string; notes: string[] }> {
  if (data.length > options.maxBytes) {
    throw new ConversionError(
      'file_too_large',
      `${filename} is too large to convert: ${formatBytes(data.length)} (the limit is ${formatBytes(options.maxBytes)}).`,
    );
  }
  if (data.length === 0) throw new ConversionError('no_text', `${filename} is empty.`);
  const ctx = createContext(filename, options);
  let markdown: string;
  try {
    markdown = await convertFile(ctx, data);
  } catch (error) {
    // Nothing converted because OCR stopped at its memory cap: that limit is the reason.
    if (error instanceof ConversionError && error.code === 'no_text' && ctx.ocrStopped) {
      throw new ConversionError('conversion_bound', ctx.ocrStopped);
    }
    if (error instanceof ConversionError) throw error;
    // A library tripping over a damaged file: say so; its own words only when they read as a reason.
    const reason = (error as Error)?.message ?? '';
    const detail = reason && !/undefined|null|\[object|call stack|is not a function|^\s*bug\b/i.test(reason) ? ` (${reason})` : '';
    throw new ConversionError(
      'corrupt_file',
      `${filename} could not be converted: it looks damaged, or it is not what its name says${detail}.`,
    );
  } finally {
    await releaseOcrEngine();
  }
  markdown = normalizeNewlines(markdown).trim();
  const maxOutput = options.maxOutputBytes ?? DEFAULT_CONVERSION_LIMITS.maxOutputBytes;
  if (Buffer.byteLength(markdown) > maxOutput) {
    throw new ConversionError(
      'conversion_bound',
      `conversion stopped: ${filename} turns into more than ${formatBytes(maxOutput)} of text.`,
    );
  }
  if (!markdown && ctx.ocrStopped) throw new ConversionError('conversion_bound', ctx.ocrStopped);
  if (!markdown) {
    throw new ConversionError(
      ctx.notes.length ? 'ocr_skipped' : 'no_text',
      `${filename} contains no text.${ctx.notes.length ? ` ${ctx.notes.join(' ')}` : ''}`,
    );
  }
  const notes = notesSection(ctx.notes);
  return { markdown: `${markdown}${notes ? `\n\n${notes}` : ''}\n`, notes: ctx.notes };
}

/** One file (or ZIP member) of any supported format to markdown. */
async function convertFile(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const { filename } = ctx;
  const format = detectFormat(filename, data);
  const tables = !ctx.skipOcr;
  switch (format.kind) {
    case 'markdown':
    case 'text':
      return decodeText(data);
    case 'code': {
      const code = decodeText(data);
      if (!code.trim()) throw new ConversionError('no_text', `${filename} contains no text.`);
      return codeToMarkdown(filename, format.language, code);
    }
    case 'html':
      return htmlToMarkdown(decodeText(data), { tables, maxDepth: ctx.maxDepth });
    case 'pdf':
      return pdfToMarkdown(ctx, data);
    case 'docx':
      return docxToMarkdown(ctx, data);
    case 'doc':
      return docToMarkdown(ctx, data);
    case 'csv':
      return delimitedToMarkdown(ctx, data, format.tsv);
    case 'xlsx':
      return xlsxToMarkdown(ctx, data);
    case 'xls':
      return xlsToMarkdown(ctx, data);
    case 'ods':
      return odsToMarkdown(ctx, data);
    case 'pptx':
      return pptxToMarkdown(ctx, data);
    case 'odp':
      return odpToMarkdown(ctx, data);
    case 'odt':
      return odtToMarkdown(ctx, data);
    case 'rtf':
      return rtfToMarkdown(ctx, data);
    case 'epub':
      return epubToMarkdown(ctx, data);
    case 'msg':
      return msgToMarkdown(ctx, data);
    case 'eml':
      return emlToMarkdown(ctx, data);
    case 'ipynb':
      return notebookToMarkdown(ctx, decodeText(data));
    case 'json':
      return jsonToMarkdown(ctx, decodeText(data));
    case 'xml':
      return xmlToMarkdown(ctx, decodeText(data));
    case 'zip':
      return zipToMarkdown(ctx, data, convertFile);
    case 'image':
      return imageToMarkdown(ctx, data);
  }
}
