/**
 * OCR with tesseract.js (Tesseract's LSTM engine compiled to WebAssembly), entirely offline: the
 * engine's worker script, its WebAssembly and the English language data ship with DocChat
 * (dist/ocr/ in the package; node_modules when running from source), and nothing is fetched or
 * cached on disk. The engine runs in its own thread below the conversion worker, so it ends with
 * it when a conversion passes its time or memory bound. Every image's size is read from its
 * header before anything decodes it: a decompression bomb fails with a sentence naming the limit.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { imageSize } from 'image-size';
import type { Worker as TesseractWorker } from 'tesseract.js';
import { note, type ConvertContext } from './context';
import { ConversionError } from './errors';

/** Images narrower or lower than this hold no readable text and are not read. */
const MIN_TEXT_PIXELS = 8;

/** Image types Tesseract's image library reads. */
export const OCR_IMAGE_TYPES = new Set(['png', 'jpg', 'bmp', 'webp', 'gif', 'tiff']);

/** The sentence for a file whose only content is images when OCR was skipped. */
export function ocrSkippedMessage(filename: string, what: string): string {
  return (
    `${filename}: ${what} and OCR was skipped (skip_ocr: true), so there is no text to index. ` +
    'Attach it again with full conversion (OCR on) to read the text in its images.'
  );
}

function enginePaths(): { workerPath: string; langPath: string } {
  // Bundled: dist/ocr/ next to convert-worker.js / backend.js (see esbuild.mjs).
  const bundled = path.join(__dirname, 'ocr');
  if (existsSync(path.join(bundled, 'worker.js'))) return { workerPath: path.join(bundled, 'worker.js'), langPath: bundled };
  // From the sources (tests): the packages themselves. Names in variables keep bundlers from resolving them.
  const worker = 'tesseract.js/src/worker-script/node/index.js';
  const data = '@tesseract.js-data/eng/package.json';
  return { workerPath: require.resolve(worker), langPath: path.join(path.dirname(require.resolve(data)), '4.0.0_best_int') };
}

let engine: Promise<TesseractWorker> | undefined;

function getEngine(): Promise<TesseractWorker> {
  engine ??= (async () => {
    const { createWorker, OEM } = await import('tesseract.js');
    const { workerPath, langPath } = enginePaths();
    return createWorker('eng', OEM.LSTM_ONLY, { workerPath, langPath, gzip: true, cacheMethod: 'none', errorHandler: () => undefined });
  })();
  engine.catch(() => (engine = undefined));
  return engine;
}

/**
 * Ends the OCR engine. A conversion worker keeps it between files (the pool ends the worker); a
 * conversion on the serving thread ends it after each file so no thread is left behind.
 */
export async function releaseOcrEngine(force = false): Promise<void> {
  if (!engine || (!force && !isMainThread)) return;
  const pending = engine;
  engine = undefined;
  await (await pending.catch(() => undefined))?.terminate();
}

/** Width and height from the header, or a ConversionError naming the limit or the damage. */
export function checkImage(ctx: ConvertContext, data: Uint8Array, where: string): { width: number; height: number; type: string } {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(data);
  } catch {
    throw new ConversionError('corrupt_file', `${where} is not a readable image: its header is damaged or of an unknown type.`);
  }
  const width = size.width ?? 0;
  const height = size.height ?? 0;
  if (!width || !height) throw new ConversionError('corrupt_file', `${where} is not a readable image: it has no size.`);
  checkImageSize(ctx, width, height, where);
  return { width, height, type: size.type ?? '' };
}

/** Fails with the sentence naming the pixel limit when width × height passes it. */
export function checkImageSize(ctx: ConvertContext, width: number, height: number, where: string): void {
  if (width * height <= ctx.maxImagePixels) return;
  throw new ConversionError(
    'conversion_bound',
    `conversion stopped: ${where} is ${width} × ${height} pixels, more than the limit of ${formatPixels(ctx.maxImagePixels)} for OCR (it may be a decompression bomb). Scale the image down and attach it again.`,
  );
}

function formatPixels(pixels: number): string {
  return pixels >= 1e6 ? `${Number((pixels / 1e6).toFixed(1))} megapixels` : `${pixels.toLocaleString('en-US')} pixels`;
}

/**
 * The text Tesseract reads in an encoded image ('' when it finds none). With skip_ocr nothing is
 * read: the sentence `skipped` (e.g. "page 3 has only an image") goes into the notes instead.
 */
export async function readImage(ctx: ConvertContext, data: Uint8Array, where: string, skipped: string): Promise<string> {
  if (ctx.skipOcr) {
    note(
      ctx,
      `${skipped}; OCR was skipped (skip_ocr: true), so its text is not indexed. Attach the file again with full conversion to read it.`,
    );
    return '';
  }
  const { type, width, height } = checkImage(ctx, data, where);
  // Too small to hold a line of text (spacers, bullets, tracking pixels).
  if (width < MIN_TEXT_PIXELS || height < MIN_TEXT_PIXELS) return '';
  if (!OCR_IMAGE_TYPES.has(type)) {
    note(ctx, `${where} is a ${type || 'unknown'} image, which OCR cannot read, so its text is not indexed.`);
    return '';
  }
  if (ctx.ocrImages >= ctx.maxOcrImages) {
    note(
      ctx,
      `only the first ${ctx.maxOcrImages} images of ${ctx.filename} were read by OCR (the limit per file); the rest are not indexed.`,
    );
    return '';
  }
  ctx.ocrImages++;
  const worker = await getEngine();
  try {
    const result = await worker.recognize(Buffer.from(data));
    return tidyOcrText(result.data.text ?? '');
  } catch (error) {
    note(ctx, `OCR could not read ${where} (${(error as Error)?.message ?? error}).`);
    return '';
  }
}

/** Lines as Tesseract found them, paragraphs kept, stray white space and noise-only lines dropped. */
export function tidyOcrText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
    .filter((line) => line === '' || /[\p{L}\p{N}]/u.test(line))
    .join('\n')
    .trim();
}

/**
 * A 24-bit BMP of raw pixels (what PDF.js decodes an image XObject to): `channels` 1 (gray),
 * 3 (RGB) or 4 (RGBA). Tesseract reads BMP directly.
 */
export function encodeBmp(width: number, height: number, pixels: Uint8Array | Uint8ClampedArray, channels: number): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const out = Buffer.alloc(54 + row * height);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  out.writeUInt32LE(row * height, 34);
  for (let y = 0; y < height; y++) {
    const target = 54 + (height - 1 - y) * row;
    for (let x = 0; x < width; x++) {
      const source = (y * width + x) * channels;
      const r = pixels[source] ?? 255;
      const g = channels >= 3 ? (pixels[source + 1] ?? 255) : r;
      const b = channels >= 3 ? (pixels[source + 2] ?? 255) : r;
      // Transparent pixels over white, as a viewer shows them.
      const alpha = channels === 4 ? (pixels[source + 3] ?? 255) / 255 : 1;
      out[target + x * 3] = Math.round(b * alpha + 255 * (1 - alpha));
      out[target + x * 3 + 1] = Math.round(g * alpha + 255 * (1 - alpha));
      out[target + x * 3 + 2] = Math.round(r * alpha + 255 * (1 - alpha));
    }
  }
  return out;
}
