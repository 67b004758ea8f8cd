import os from 'node:os';
import { DEFAULT_OCR_LANGUAGES } from './ocrLanguages';

/** The bounds every conversion runs under; a file past one fails with a sentence naming it. */
export interface ConversionLimits {
  /** Wall time of one conversion (with chunking); past it the worker is terminated. */
  timeoutMs: number;
  /**
   * Longest a conversion may go without reporting a step (a page, a picture, a sheet); past it
   * the worker is terminated and the sentence names the file and its last step.
   */
  stallMs: number;
  /**
   * A conversion running longer than this is "long": when every worker holds one and files are
   * waiting, up to `extraWorkers` more workers start so small files do not wait behind it.
   */
  longMs: number;
  /** Workers started beside long conversions (ended again once idle). */
  extraWorkers: number;
  /** Heap of a conversion worker (V8 old generation), in MiB. */
  maxMemoryMb: number;
  /**
   * WebAssembly memory of a conversion worker's OCR engine, in MiB: outside the heap above, so
   * bounded on its own; past it OCR of the file stops with a note naming the limit.
   */
  maxOcrMemoryMb: number;
  /**
   * The languages OCR reads (Tesseract's names, shipped ones only): the Latin-script ones first,
   * each other script's when that reading is poor.
   */
  ocrLanguages: readonly string[];
  /** Deepest element nesting accepted in HTML, checked before parsing. */
  maxHtmlDepth: number;
  /** Largest markdown a conversion may produce, in bytes. */
  maxOutputBytes: number;
  /** Conversion workers; 0 converts on the serving thread (benchmarks compare both). */
  workers: number;
  /** Conversions waiting for a worker before new ones are refused. */
  maxQueue: number;
}

export const DEFAULT_CONVERSION_LIMITS: ConversionLimits = {
  timeoutMs: 300_000,
  stallMs: 60_000,
  longMs: 2_000,
  extraWorkers: 1,
  maxMemoryMb: 1024,
  // Tesseract's build allows 2 GiB; a 40-megapixel page needs about 1 GiB to be read.
  maxOcrMemoryMb: 1024,
  ocrLanguages: DEFAULT_OCR_LANGUAGES,
  maxHtmlDepth: 512,
  maxOutputBytes: 64 * 1024 * 1024,
  // One core stays with the serving thread.
  workers: Math.max(1, Math.min(4, os.availableParallelism() - 1)),
  maxQueue: 1000,
};
