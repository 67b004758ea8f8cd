export type ConversionErrorCode =
  | 'unsupported_file'
  | 'corrupt_file'
  | 'file_too_large'
  | 'no_text'
  | 'ocr_skipped'
  | 'ocr_unavailable'
  /** Past a bound of the conversion: nesting depth, output size, time or memory. */
  | 'conversion_bound';

/** Why a file could not be turned into markdown; the message becomes the store file's `last_error`. */
export class ConversionError extends Error {
  constructor(
    readonly code: ConversionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ConversionError';
  }
}
