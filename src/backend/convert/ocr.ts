/**
 * OCR with tesseract.js (Tesseract's LSTM engine compiled to WebAssembly), entirely offline: the
 * engine's worker script, its WebAssembly and the language data (English, Arabic, Persian,
 * Hebrew) ship with DocChat (dist/ocr/ in the package; node_modules when running from source),
 * and nothing is fetched or cached on disk. An image is read with the Latin-script languages
 * first; a reading Tesseract is unsure of (a page in another script comes out as low-confidence
 * noise) is read again with each right-to-left script's languages, and the surest reading kept. The engine runs in its own thread below the conversion worker, so it ends with
 * it when a conversion passes its time bound. Its WebAssembly memory is outside the conversion
 * worker's heap limit, so it has a cap of its own (ocrThread.ts refuses every growth past it):
 * when an image needs more, OCR of the file stops with a note naming the limit and the text
 * converted so far is kept. Every image's size is read from its header before anything decodes
 * it: a decompression bomb fails with a sentence naming the limit.
 */
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, type Worker as NodeWorker } from 'node:worker_threads';
import { imageSize } from 'image-size';
import type { RecognizeResult, Worker as TesseractWorker } from 'tesseract.js';
import { formatBytes } from '../http/body';
import { note, progress, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { columnsInReadingOrder, isRightToLeftText } from './ocrLayout';
import { OCR_LANGUAGES, OCR_RETRY_CONFIDENCE, ocrPasses } from './ocrLanguages';
import { OCR_MEMORY_ENV, type OcrMemoryReport } from './ocrMemory';

/** Images narrower or lower than this hold no readable text and are not read. */
const MIN_TEXT_PIXELS = 8;

/** Image types Tesseract's image library reads. */
export const OCR_IMAGE_TYPES = new Set(['png', 'jpg', 'bmp', 'webp', 'gif', 'tiff', 'pnm']);

/** The sentence for a file whose only content is images when OCR was skipped. */
export function ocrSkippedMessage(filename: string, what: string): string {
  return (
    `${filename}: ${what} and OCR was skipped (skip_ocr: true), so there is no text to index. ` +
    'Attach it again with full conversion (OCR on) to read the text in its images.'
  );
}

function enginePaths(): { workerPath: string | URL; langPath: string } {
  // Bundled: dist/ocr/ next to convert-worker.js / backend.js (see esbuild.mjs).
  const bundled = path.join(__dirname, 'ocr');
  if (existsSync(path.join(bundled, 'worker.js'))) return { workerPath: path.join(bundled, 'worker.js'), langPath: bundled };
  // From the sources (tests): ocrThread.ts through tsx, and the language data packages themselves.
  // Names in variables keep bundlers from resolving them.
  const thread = path.join(__dirname, 'ocrThread.ts');
  const loader = `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(thread)}); require('tsx/cjs'); require(${JSON.stringify(thread)});`;
  return { workerPath: new URL(`data:text/javascript,${encodeURIComponent(loader)}`), langPath: sourceLangPath() };
}

let sourceLangs: string | undefined;
/** One folder holding every language package's data (links to node_modules), as dist/ocr/ does. */
function sourceLangPath(): string {
  if (sourceLangs) return sourceLangs;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'docchat-ocr-'));
  for (const language of Object.keys(OCR_LANGUAGES)) {
    const data = `@tesseract.js-data/${language}/package.json`;
    const file = `${language}.traineddata.gz`;
    symlinkSync(path.join(path.dirname(require.resolve(data)), '4.0.0_best_int', file), path.join(folder, file));
  }
  return (sourceLangs = folder);
}

interface Engine {
  worker: TesseractWorker;
  /** What its thread last reported of its memory. */
  memory: OcrMemoryReport;
  /** Rejects with OcrEngineStopped when its thread ends. */
  stopped: Promise<never>;
  /** The language set the engine reads with now ('eng', 'ara+fas+eng'). */
  languages: string;
}

/** The engine's thread ended (it ends itself when it cannot start, e.g. at its memory cap). */
class OcrEngineStopped extends Error {
  constructor(readonly memory: OcrMemoryReport) {
    super(memory.refused ? 'the OCR engine ran out of its memory' : 'the OCR engine stopped');
  }
}

/** Tesseract's LSTM engine (OEM.LSTM_ONLY), the only one shipped. */
const OEM_LSTM_ONLY = 1;
/** What a new engine loads: the default first reading. */
const FIRST_LANGUAGES = 'eng';

let engine: Promise<Engine> | undefined;
/** Reports the progress of the image being read (set while one is). */
let reading: ((fraction: number) => void) | undefined;
let engineCap: number | undefined;

async function getEngine(maxMemoryBytes: number): Promise<Engine> {
  // A thread's cap is fixed when it starts: a file asking for another one gets a new engine.
  if (engine && engineCap !== maxMemoryBytes) await releaseOcrEngine(true);
  engineCap = maxMemoryBytes;
  engine ??= startEngine(maxMemoryBytes);
  engine.catch(() => (engine = undefined));
  return engine;
}

async function startEngine(maxMemoryBytes: number): Promise<Engine> {
  const { createWorker, OEM } = await import('tesseract.js');
  const { workerPath, langPath } = enginePaths();
  // The thread takes its cap from its environment, copied from this thread's when createWorker
  // starts it (synchronously, before its first await); this thread's own stays as it was. Node
  // announces the new thread on the next tick ('worker'): its messages carry the memory reports,
  // and its exit ends a start that tesseract.js would otherwise wait for forever.
  const spawned: NodeWorker[] = [];
  const onWorker = (thread: NodeWorker) => spawned.push(thread);
  process.on('worker', onWorker);
  const previous = process.env[OCR_MEMORY_ENV];
  process.env[OCR_MEMORY_ENV] = String(maxMemoryBytes);
  let starting: Promise<TesseractWorker>;
  try {
    starting = createWorker(FIRST_LANGUAGES, OEM.LSTM_ONLY, {
      workerPath: workerPath as string,
      langPath,
      gzip: true,
      cacheMethod: 'none',
      errorHandler: () => undefined,
      // Tesseract's progress through an image keeps a long read from counting as a stalled conversion.
      logger: (message: { status?: string; progress?: number }) => reading?.(message.progress ?? 0),
    });
  } finally {
    if (previous === undefined) delete process.env[OCR_MEMORY_ENV];
    else process.env[OCR_MEMORY_ENV] = previous;
  }
  await new Promise<void>((resolve) => process.nextTick(resolve));
  process.off('worker', onWorker);
  // The last thread announced before this tick: the one createWorker started just before it was queued.
  const thread = spawned.at(-1);
  if (!thread) throw new Error('the OCR engine did not start');
  const memory: OcrMemoryReport = { bytes: 0, refused: false };
  thread.on('message', (message: { ocrMemory?: OcrMemoryReport }) => {
    if (message?.ocrMemory) Object.assign(memory, message.ocrMemory);
  });
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const stopped = exited.then(() => Promise.reject(new OcrEngineStopped(memory)));
  try {
    return { worker: await Promise.race([starting, stopped]), memory, stopped, languages: FIRST_LANGUAGES };
  } catch (error) {
    void thread.terminate();
    throw error;
  }
}

/**
 * Ends the OCR engine. A conversion worker keeps it between files (the pool ends the worker); a
 * conversion on the serving thread ends it after each file so no thread is left behind.
 */
export async function releaseOcrEngine(force = false): Promise<void> {
  if (!engine || (!force && !isMainThread)) return;
  const pending = engine;
  engine = undefined;
  await (await pending.catch(() => undefined))?.worker.terminate();
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

/** What an image that no image library here decodes is, from its first bytes (for the note naming it). */
export function pictureFormat(data: Uint8Array): string | undefined {
  const ascii = (start: number, length: number) => String.fromCharCode(...data.subarray(start, start + length));
  if (data[0] === 1 && data[1] === 0 && data[2] === 0 && data[3] === 0 && ascii(40, 4) === ' EMF') return 'EMF (Windows enhanced metafile)';
  if (
    (data[0] === 0xd7 && data[1] === 0xcd && data[2] === 0xc6 && data[3] === 0x9a) ||
    (data[1] === 0 && data[2] === 9 && data[3] === 0 && (data[0] === 1 || data[0] === 2))
  ) {
    return 'WMF (Windows metafile)';
  }
  if (ascii(0, 6) === 'VCLMTF') return 'SVM (StarView metafile)';
  if (ascii(0, 5) === '%PDF-') return 'PDF';
  if (ascii(0, 4) === '%!PS' || (data[0] === 0xc5 && data[1] === 0xd0 && data[2] === 0xd3 && data[3] === 0xc6)) return 'EPS (PostScript)';
  return undefined;
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
  let checked: ReturnType<typeof checkImage>;
  try {
    checked = checkImage(ctx, data, where);
  } catch (error) {
    // A picture that cannot be decoded is a note, never a failed document: its text is kept.
    if (!(error instanceof ConversionError) || error.code !== 'corrupt_file') throw error;
    const format = pictureFormat(data);
    note(
      ctx,
      format
        ? `${where} is a picture in ${format} format, which DocChat does not read, so any text in it is not indexed.`
        : `${where} could not be read (the picture is damaged or of an unknown type), so any text in it is not indexed.`,
    );
    return '';
  }
  const { type, width, height } = checked;
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
  if (ctx.ocrStopped) return '';
  ctx.ocrImages++;
  let text = '';
  let failure: unknown;
  let memory: OcrMemoryReport;
  try {
    const ocr = await getEngine(ctx.maxOcrMemoryBytes);
    memory = ocr.memory;
    try {
      // A thread that ends (it should not) fails the image instead of leaving the file waiting.
      let reported = -1;
      reading = (fraction) => {
        const tenth = Math.floor(fraction * 10);
        if (tenth === reported) return;
        reported = tenth;
        progress(ctx, `reading ${where} by OCR (${tenth * 10}%)`);
      };
      progress(ctx, `reading ${where} by OCR`);
      const read = await readBest(ctx, ocr, Buffer.from(data)).finally(() => (reading = undefined));
      text = read.text;
      if (read.pastCap) {
        // The first reading is kept; the engine, past its cap, is not: the file's next picture
        // starts a new one, which reads in the Latin-script languages only.
        await releaseOcrEngine(true);
        ctx.ocrLanguages = ctx.ocrLanguages.filter((language) => OCR_LANGUAGES[language].script === 'Latin');
        const message = ocrScriptsMemoryMessage(ctx, where, read.pastCap);
        if (!ctx.ocrLanguages.length) ctx.ocrStopped = message;
        note(ctx, message);
        return text;
      }
    } catch (error) {
      failure = error;
    }
  } catch (error) {
    // The engine could not start within its cap: the same stop as past it while reading.
    if (!(error instanceof OcrEngineStopped && error.memory.refused)) throw error;
    memory = error.memory;
  }
  if (memory.refused) {
    // Past its cap the engine cannot be trusted with another image: the next file starts a new one.
    await releaseOcrEngine(true);
    ctx.ocrStopped = ocrMemoryMessage(ctx, where);
    note(ctx, ctx.ocrStopped);
    return '';
  }
  if (failure !== undefined) note(ctx, `OCR could not read ${where} (${(failure as Error)?.message ?? failure}).`);
  return text;
}

/**
 * The surest of the image's readings: each language set of ocrPasses in turn (the one that read
 * the file's previous image best first) until one reads at OCR_RETRY_CONFIDENCE or more. A first
 * reading that finds no letter at all (a photo, a rule) is not tried again.
 */
async function readBest(ctx: ConvertContext, ocr: Engine, image: Buffer): Promise<{ text: string; pastCap?: string }> {
  const preferred = ctx.ocrPreferred;
  const passes = ocrPasses(ctx.ocrLanguages).sort((a, b) => Number(b === preferred) - Number(a === preferred));
  let best: { text: string; confidence: number; languages: string } | undefined;
  for (const [i, languages] of passes.entries()) {
    let result: RecognizeResult;
    try {
      if (ocr.languages !== languages) {
        await Promise.race([ocr.worker.reinitialize(languages, OEM_LSTM_ONLY), ocr.stopped]);
        ocr.languages = languages;
      }
      // In a right-to-left script, words and lines with their boxes too: columns Tesseract joined
      // are read apart (ocrLayout.ts); a left-to-right page is left as Tesseract read it.
      const output = { text: true, blocks: readsRightToLeftScript(languages) };
      result = await Promise.race([ocr.worker.recognize(image, {}, output), ocr.stopped]);
    } catch (error) {
      // Another script's data past the memory cap: the reading so far is kept.
      if (best && ocr.memory.refused) return { text: best.text, pastCap: languages };
      throw error;
    }
    const lines = (result.data.blocks ?? []).flatMap((block) => block.paragraphs.flatMap((paragraph) => paragraph.lines));
    const text = tidyOcrText(columnsInReadingOrder(lines) ?? result.data.text ?? '');
    const confidence = result.data.confidence ?? 0;
    // A reading tried again in a right-to-left script counts only when it is text of that script
    // (a logo's few marks read as Persian digits are not).
    const counts = readingCounts(i, languages, text);
    if (counts && (!best || confidence > best.confidence)) best = { text, confidence, languages };
    if (i === 0 && !/\p{L}/u.test(text)) break;
    if (counts && confidence >= OCR_RETRY_CONFIDENCE) break;
  }
  if (best?.text) ctx.ocrPreferred = best.languages;
  return { text: best?.text ?? '' };
}

/** Letters of the right-to-left scripts (Hebrew, Arabic and their presentation forms). */
const RTL_LETTER = /(?=\p{L})[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
/** A reading in a right-to-left script needs at least this many of its letters to count. */
const MIN_RTL_LETTERS = 4;

/**
 * Whether the `index`th reading of an image (with `languages`) may be kept: the first always; one
 * tried again in a right-to-left script only when it is text of that script.
 */
export function readingCounts(index: number, languages: string, text: string): boolean {
  if (index === 0 || !readsRightToLeftScript(languages)) return true;
  return (text.match(RTL_LETTER)?.length ?? 0) >= MIN_RTL_LETTERS && isRightToLeftText(text);
}

/** Whether a Tesseract language set ('ara+fas+eng') reads a right-to-left script. */
function readsRightToLeftScript(languages: string): boolean {
  return languages.split('+').some((language) => OCR_LANGUAGES[language as keyof typeof OCR_LANGUAGES]?.script !== 'Latin');
}

/** The sentence for a picture whose reading in another script (`languages`) passed the memory cap. */
function ocrScriptsMemoryMessage(ctx: ConvertContext, where: string, languages: string): string {
  const names = languages
    .split('+')
    .filter((language) => OCR_LANGUAGES[language as keyof typeof OCR_LANGUAGES]?.script !== 'Latin')
    .map((language) => OCR_LANGUAGES[language as keyof typeof OCR_LANGUAGES].name);
  const latin = ctx.ocrLanguages.map((language) => OCR_LANGUAGES[language].name);
  const limit = `reading ${where} in ${names.join(' and ')} needed more than the limit of ${formatBytes(ctx.maxOcrMemoryBytes)} of OCR memory`;
  return latin.length
    ? `${limit}, so it and the later pictures of ${ctx.filename} were read in ${latin.join(' and ')} only.`
    : `${limit}, so its first reading was kept and the text in any later picture of ${ctx.filename} is not indexed.`;
}

/** The sentence for a file whose OCR stopped at the memory cap. */
function ocrMemoryMessage(ctx: ConvertContext, where: string): string {
  return (
    `OCR stopped: reading ${where} needed more than the limit of ${formatBytes(ctx.maxOcrMemoryBytes)} of OCR memory, ` +
    `so its text and the text in any later image of ${ctx.filename} are not indexed. ` +
    'Scale the images down (or split the file) and attach it again.'
  );
}

/**
 * Lines as Tesseract found them, paragraphs kept, stray white space and noise-only lines dropped.
 * The direction marks Tesseract puts around a Latin run inside right-to-left text (U+200E, U+200F)
 * go: the text is in reading order already, and a mark inside a word would keep it from matching.
 */
export function tidyOcrText(text: string): string {
  return text
    .replace(/[\u200E\u200F\u061C]/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
    .filter((line) => line === '' || /[\p{L}\p{N}]/u.test(line))
    .join('\n')
    .trim();
}

/**
 * An 8-bit gray PGM of raw pixels (what PDF.js decodes an image XObject to): `channels` 1 (gray),
 * 3 (RGB) or 4 (RGBA). Tesseract reads PGM directly, one byte a pixel, and OCR reads gray anyway;
 * tesseract.js would copy a BMP through a JavaScript array of every byte in its thread first.
 */
/**
 * Scans below this many pixels on their longest side are enlarged twice before OCR: a page
 * scanned at 72 to 150 dpi has letters too small for Tesseract (it wants about 300 dpi), and
 * large headings in them (a letterhead) are missed.
 */
export const SMALL_SCAN_PIXELS = 1700;
/** Smaller pictures (logos, icons, stamps) are read as they are. */
const PAGE_SCAN_MIN_PIXELS = 500;

/** A gray PGM (P5) of a page scanned at a low resolution, enlarged twice (bilinear); others as they are. */
export function enlargeSmallScan(pgm: Buffer, maxPixels: number): Buffer {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 32).toString('latin1'));
  if (!header) return pgm;
  const width = Number(header[1]);
  const height = Number(header[2]);
  const longest = Math.max(width, height);
  if (longest >= SMALL_SCAN_PIXELS || longest < PAGE_SCAN_MIN_PIXELS || width * height * 4 > maxPixels) return pgm;
  const source = pgm.subarray(header[0].length);
  const w2 = width * 2;
  const h2 = height * 2;
  const head = Buffer.from(`P5\n${w2} ${h2}\n255\n`, 'latin1');
  const out = Buffer.alloc(head.length + w2 * h2);
  head.copy(out);
  for (let y = 0; y < h2; y++) {
    const sy = Math.max(0, (y + 0.5) / 2 - 0.5);
    const y0 = Math.floor(sy);
    const y1 = Math.min(height - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < w2; x++) {
      const sx = Math.max(0, (x + 0.5) / 2 - 0.5);
      const x0 = Math.floor(sx);
      const x1 = Math.min(width - 1, x0 + 1);
      const fx = sx - x0;
      const top = source[y0 * width + x0]! * (1 - fx) + source[y0 * width + x1]! * fx;
      const bottom = source[y1 * width + x0]! * (1 - fx) + source[y1 * width + x1]! * fx;
      out[head.length + y * w2 + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return out;
}

/** Rows `top` to `bottom` (fractions of the height) of a gray PGM (P5), or undefined when it is not one. */
export function cropPgm(pgm: Buffer, top: number, bottom: number): Buffer | undefined {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 32).toString('latin1'));
  if (!header) return undefined;
  const width = Number(header[1]);
  const height = Number(header[2]);
  const from = Math.floor(height * top);
  const to = Math.ceil(height * bottom);
  if (to - from < 8) return undefined;
  const head = Buffer.from(`P5\n${width} ${to - from}\n255\n`, 'latin1');
  return Buffer.concat([head, pgm.subarray(header[0].length + from * width, header[0].length + to * width)]);
}

/** Lines of `band` whose words the page's text does not already hold (a letterhead the page's reading missed). */
export function missingLines(band: string, page: string): string[] {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  const known = new Set(words(page));
  return band
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => {
      const own = words(line);
      // Noise (one or two letters, symbols) is not a line worth adding.
      if (own.length === 0 || own.join('').length < 4) return false;
      return own.filter((w) => !known.has(w)).length / own.length > 0.5;
    });
}

export function encodePgm(width: number, height: number, pixels: Uint8Array | Uint8ClampedArray, channels: number): Buffer {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  const out = Buffer.alloc(header.length + width * height);
  header.copy(out);
  for (let i = 0; i < width * height; i++) {
    const source = i * channels;
    const r = pixels[source] ?? 255;
    const gray = channels >= 3 ? 0.299 * r + 0.587 * (pixels[source + 1] ?? 255) + 0.114 * (pixels[source + 2] ?? 255) : r;
    // Transparent pixels over white, as a viewer shows them.
    const alpha = channels === 4 ? (pixels[source + 3] ?? 255) / 255 : 1;
    out[header.length + i] = Math.round(gray * alpha + 255 * (1 - alpha));
  }
  return out;
}

/** Frames of a multi-page TIFF read at most (each is one OCR image, within the per-file image limit too). */
export const MAX_TIFF_FRAMES = 500;

/**
 * The offsets of a TIFF's image directories (one per frame, in order), following the chain from
 * the header; [] when `data` is not a classic TIFF. A loop or an offset outside the file ends the chain.
 */
export function tiffFrameOffsets(data: Uint8Array): number[] {
  if (data.length < 8) return [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const little = data[0] === 0x49 && data[1] === 0x49;
  if (!little && !(data[0] === 0x4d && data[1] === 0x4d)) return [];
  if (view.getUint16(2, little) !== 42) return [];
  const offsets: number[] = [];
  const seen = new Set<number>();
  let at = view.getUint32(4, little);
  while (at >= 8 && at + 2 <= data.length && !seen.has(at) && offsets.length < MAX_TIFF_FRAMES + 1) {
    seen.add(at);
    const entries = view.getUint16(at, little);
    const next = at + 2 + entries * 12;
    if (next + 4 > data.length) break;
    offsets.push(at);
    at = view.getUint32(next, little);
  }
  return offsets;
}

/**
 * One frame of a multi-page TIFF as a TIFF of its own: the same bytes (every offset in a TIFF is
 * from the file's start) with the header pointing at that frame's directory, whose chain ends there.
 */
export function tiffFrame(data: Uint8Array, offset: number): Buffer {
  const out = Buffer.from(data);
  const little = out[0] === 0x49;
  const entries = little ? out.readUInt16LE(offset) : out.readUInt16BE(offset);
  if (little) {
    out.writeUInt32LE(offset, 4);
    out.writeUInt32LE(0, offset + 2 + entries * 12);
  } else {
    out.writeUInt32BE(offset, 4);
    out.writeUInt32BE(0, offset + 2 + entries * 12);
  }
  return out;
}
