/**
 * PDF text extraction with unpdf (PDF.js, serverless build). Pages become `## Page N` sections.
 * A page with images but no text layer would need OCR; there is none here, so such a PDF fails
 * with a message that says so instead of completing with missing text.
 */
import { ConversionError } from './errors';
import { ocrMessage } from './ocr';

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

/** Lines from the order and positions of PDF.js text items; a large vertical gap is a paragraph break. */
export function textFromItems(items: readonly unknown[]): string {
  let out = '';
  let lastY: number | undefined;
  let lastHeight = 0;
  for (const raw of items) {
    const item = raw as TextItemLike;
    if (typeof item?.str !== 'string') continue;
    const y = item.transform?.[5] ?? lastY ?? 0;
    const height = Math.abs(item.transform?.[3] ?? 0) || item.height || 10;
    if (lastY !== undefined && item.str) {
      const gap = lastY - y;
      if (gap > Math.max(height, lastHeight) * 1.8) {
        out = out.replace(/\n?$/, '\n\n');
      } else if (Math.abs(gap) > height * 0.5 && !out.endsWith('\n')) {
        out += '\n';
      }
    }
    out += item.str;
    if (item.hasEOL && !out.endsWith('\n')) out += '\n';
    if (item.str) {
      lastY = y;
      lastHeight = height;
    }
  }
  return out
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export async function pdfToMarkdown(filename: string, data: Uint8Array, skipOcr: boolean): Promise<string> {
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
    // A copy: PDF.js may transfer (detach) the buffer it is given.
    pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0, isEvalSupported: false, disableFontFace: true });
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
      const page = await pdf.getPage(n);
      const text = textFromItems((await page.getTextContent()).items);
      if (!text) {
        const operators = await page.getOperatorList();
        if (operators.fnArray.some((op: number) => imageOps.has(op))) imageOnlyPages.push(n);
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
  if (imageOnlyPages.length) {
    const which = imageOnlyPages.length === 1 ? `page ${imageOnlyPages[0]}` : `pages ${imageOnlyPages.join(', ')}`;
    throw new ConversionError(
      skipOcr ? 'ocr_skipped' : 'ocr_unavailable',
      ocrMessage(filename, `${which} of ${pages.length} contain${imageOnlyPages.length === 1 ? 's' : ''} only images`, skipOcr),
    );
  }
  const sections = pages.map((text, i) => (text ? `## Page ${i + 1}\n\n${text}` : '')).filter(Boolean);
  if (!sections.length) throw new ConversionError('no_text', `${filename} contains no text.`);
  return sections.join('\n\n');
}
