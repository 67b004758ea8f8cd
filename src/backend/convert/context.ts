/** What every converter of one file shares: its name, the options, the OCR reader and the notes. */
import { DEFAULT_CONVERSION_LIMITS } from './limits';
import { checkOcrLanguages, DEFAULT_OCR_LANGUAGES, type OcrLanguage } from './ocrLanguages';

export interface ConvertContext {
  /** The file's name as the user sees it (a ZIP member: `archive.zip/dir/member.docx`). */
  filename: string;
  /** Skip OCR and advanced table recognition. */
  skipOcr: boolean;
  maxDepth: number;
  /** Largest image OCR reads, in pixels (width × height), checked from the header before decoding. */
  maxImagePixels: number;
  /** Most images OCR reads in one file. */
  maxOcrImages: number;
  /** Largest the OCR engine's WebAssembly memory may grow to while it reads this file, in bytes. */
  maxOcrMemoryBytes: number;
  /** Sentences naming what the conversion left out (appended to the markdown). */
  notes: string[];
  /** Images read so far by OCR in this file. */
  ocrImages: number;
  /** The languages OCR reads this file's images in (checked: shipped ones only). */
  ocrLanguages: readonly OcrLanguage[];
  /** The language set that read this file's last image best: its next image is read with it first. */
  ocrPreferred?: string;
  /** Set when OCR of this file stopped at the memory cap: the sentence naming it. */
  ocrStopped?: string;
  /** ZIP archives this file sits in (a member's ZIP members are not opened past the limit). */
  archiveDepth: number;
}

/**
 * Where a conversion reports its steps ("reading page 2"): in a conversion worker, to the pool,
 * which stops a conversion that reports nothing for too long and names its last step.
 */
let progressSink: ((step: string) => void) | undefined;

export function onProgress(sink: ((step: string) => void) | undefined): void {
  progressSink = sink;
}

/** Reports that the conversion of `ctx`'s file reached `step` (e.g. "reading the pictures on page 2"). */
export function progress(ctx: Pick<ConvertContext, 'filename' | 'archiveDepth'>, step: string): void {
  // A member of an archive is named, so "page 2" says of which file.
  progressSink?.(ctx.archiveDepth > 0 && !step.includes(ctx.filename) ? `${step} of ${ctx.filename}` : step);
}

export const DEFAULT_MAX_IMAGE_PIXELS = 40_000_000;
export const DEFAULT_MAX_OCR_IMAGES = 200;

export function createContext(
  filename: string,
  options: {
    skipOcr: boolean;
    maxHtmlDepth?: number;
    maxImagePixels?: number;
    maxOcrImages?: number;
    maxOcrMemoryMb?: number;
    ocrLanguages?: readonly string[];
  },
): ConvertContext {
  return {
    filename,
    skipOcr: options.skipOcr,
    maxDepth: options.maxHtmlDepth ?? DEFAULT_CONVERSION_LIMITS.maxHtmlDepth,
    maxImagePixels: options.maxImagePixels ?? DEFAULT_MAX_IMAGE_PIXELS,
    maxOcrImages: options.maxOcrImages ?? DEFAULT_MAX_OCR_IMAGES,
    maxOcrMemoryBytes: (options.maxOcrMemoryMb ?? DEFAULT_CONVERSION_LIMITS.maxOcrMemoryMb) * 1024 * 1024,
    ocrLanguages: options.ocrLanguages ? checkOcrLanguages(options.ocrLanguages) : DEFAULT_OCR_LANGUAGES,
    notes: [],
    ocrImages: 0,
    archiveDepth: 0,
  };
}

/** Adds a note once. */
export function note(ctx: ConvertContext, sentence: string): void {
  if (!ctx.notes.includes(sentence)) ctx.notes.push(sentence);
}
