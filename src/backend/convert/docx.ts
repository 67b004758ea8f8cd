/** DOCX via mammoth (to HTML) and turndown (to markdown). Embedded images are dropped. */
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { DEFAULT_CONVERSION_LIMITS } from './limits';
import { ocrMessage } from './ocr';
import { checkDocxArchive } from './zipGuard';

export async function docxToMarkdown(
  filename: string,
  data: Uint8Array,
  skipOcr: boolean,
  maxDepth = DEFAULT_CONVERSION_LIMITS.maxHtmlDepth,
): Promise<string> {
  await checkDocxArchive(filename, data, maxDepth);
  const mammoth = (await import('mammoth')).default;
  let images = 0;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(data) },
      {
        convertImage: mammoth.images.imgElement(async () => {
          images++;
          return { src: '' };
        }),
      },
    );
    html = result.value;
  } catch (error) {
    throw new ConversionError(
      'corrupt_file',
      `${filename} is a corrupt DOCX file and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  const markdown = htmlToMarkdown(html, { tables: !skipOcr, maxDepth });
  if (!markdown.trim()) {
    if (images > 0) {
      throw new ConversionError(
        skipOcr ? 'ocr_skipped' : 'ocr_unavailable',
        ocrMessage(filename, 'the document contains only images', skipOcr),
      );
    }
    throw new ConversionError('no_text', `${filename} contains no text.`);
  }
  return markdown;
}
