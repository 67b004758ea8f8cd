/**
 * Turns an uploaded file into markdown: text and markdown as they are, source code fenced with
 * its language, HTML with turndown, PDF with unpdf, DOCX with mammoth. Failures are
 * ConversionErrors whose message says why (unsupported type, corrupt file, too large, no text).
 */
import { formatBytes } from '../http/body';
import { detectFormat } from './detect';
import { docxToMarkdown } from './docx';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { DEFAULT_CONVERSION_LIMITS } from './limits';
import { pdfToMarkdown } from './pdf';
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
}

export async function convertToMarkdown(filename: string, data: Uint8Array, options: ConvertOptions): Promise<string> {
  if (data.length > options.maxBytes) {
    throw new ConversionError(
      'file_too_large',
      `${filename} is too large to convert: ${formatBytes(data.length)} (the limit is ${formatBytes(options.maxBytes)}).`,
    );
  }
  if (data.length === 0) throw new ConversionError('no_text', `${filename} is empty.`);
  const format = detectFormat(filename, data);
  let markdown: string;
  switch (format.kind) {
    case 'markdown':
    case 'text':
      markdown = decodeText(data);
      break;
    case 'code':
      markdown = codeToMarkdown(filename, format.language, decodeText(data));
      break;
    case 'html':
      markdown = htmlToMarkdown(decodeText(data), { tables: !options.skipOcr, maxDepth: options.maxHtmlDepth });
      break;
    case 'pdf':
      markdown = await pdfToMarkdown(filename, data, options.skipOcr);
      break;
    case 'docx':
      markdown = await docxToMarkdown(filename, data, options.skipOcr, options.maxHtmlDepth);
      break;
  }
  markdown = normalizeNewlines(markdown).trim();
  const maxOutput = options.maxOutputBytes ?? DEFAULT_CONVERSION_LIMITS.maxOutputBytes;
  if (Buffer.byteLength(markdown) > maxOutput) {
    throw new ConversionError(
      'conversion_bound',
      `conversion stopped: ${filename} turns into more than ${formatBytes(maxOutput)} of text.`,
    );
  }
  if (!markdown || (format.kind === 'code' && !decodeText(data).trim())) {
    throw new ConversionError('no_text', `${filename} contains no text.`);
  }
  return `${markdown}\n`;
}
