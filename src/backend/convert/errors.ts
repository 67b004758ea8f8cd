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
  /** The last step the conversion reported before it failed ("reading page 2"), for the log. */
  step?: string;

  constructor(
    readonly code: ConversionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** The conversion was cancelled: its file was deleted or detached while it waited or converted. */
export class ConversionCancelled extends Error {
  constructor(filename: string) {
    super(`The conversion of ${filename} was cancelled.`);
    this.name = 'ConversionCancelled';
  }
}
