/**
 * What the OCR engine's thread (ocrThread.ts) and the OCR reader (ocr.ts) share about the
 * engine's WebAssembly memory; kept apart so the engine's thread loads nothing else of DocChat.
 */

/** The environment variable that gives the engine's thread its memory cap, in bytes. */
export const OCR_MEMORY_ENV = 'DOCCHAT_OCR_MAX_MEMORY_BYTES';

/** Sent by the engine's thread just before each job's answer, as `{ ocrMemory: report }`. */
export interface OcrMemoryReport {
  /** The engine's WebAssembly memory now (it never shrinks, so also its peak). */
  bytes: number;
  /** Whether a growth past the cap was refused since the engine started. */
  refused: boolean;
}
