/** Images (PNG, JPEG, TIFF, WebP, BMP, GIF): the text OCR reads in them. */
import type { ConvertContext } from './context';
import { ConversionError } from './errors';
import { checkImage, ocrSkippedMessage, readImage } from './ocr';

export async function imageToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  if (ctx.skipOcr) throw new ConversionError('ocr_skipped', ocrSkippedMessage(ctx.filename, 'the file is an image'));
  checkImage(ctx, data, ctx.filename);
  const text = await readImage(ctx, data, ctx.filename, 'the image was not read');
  if (!text) throw new ConversionError('no_text', `${ctx.filename}: OCR found no text in this image.`);
  return text;
}
