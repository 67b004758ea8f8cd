/** Images (PNG, JPEG, TIFF — every frame of a multi-page one —, WebP, BMP, GIF): the text OCR reads in them. */
import { note, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { checkImage, MAX_TIFF_FRAMES, ocrSkippedMessage, readImage, tiffFrame, tiffFrameOffsets } from './ocr';

export async function imageToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  if (ctx.skipOcr) throw new ConversionError('ocr_skipped', ocrSkippedMessage(ctx.filename, 'the file is an image'));
  checkImage(ctx, data, ctx.filename);
  const frames = tiffFrameOffsets(data);
  if (frames.length > 1) return framesToMarkdown(ctx, data, frames);
  const text = await readImage(ctx, data, ctx.filename, 'the image was not read');
  if (!text) throw new ConversionError('no_text', `${ctx.filename}: OCR found no text in this image.`);
  return text;
}

/** A multi-page TIFF (a fax, a scanned document): each frame is read as a page, `## Page N`. */
async function framesToMarkdown(ctx: ConvertContext, data: Uint8Array, frames: number[]): Promise<string> {
  if (frames.length > MAX_TIFF_FRAMES) {
    note(
      ctx,
      `only the first ${MAX_TIFF_FRAMES} pages of ${ctx.filename} were read by OCR (the limit per TIFF); the rest are not indexed.`,
    );
  }
  const pages: string[] = [];
  for (const [i, offset] of frames.slice(0, MAX_TIFF_FRAMES).entries()) {
    const where = `page ${i + 1} of ${ctx.filename}`;
    const frame = tiffFrame(data, offset);
    const text = await readImage(ctx, frame, where, `${where} was not read`);
    if (text) pages.push(`## Page ${i + 1}\n\n${text}`);
  }
  if (!pages.length) throw new ConversionError('no_text', `${ctx.filename}: OCR found no text in its ${frames.length} pages.`);
  return pages.join('\n\n');
}
