/** The sentence for content that only OCR could read; the local backend has no OCR engine. */
export function ocrMessage(filename: string, what: string, skipOcr: boolean): string {
  return skipOcr
    ? `${filename}: ${what} and OCR was skipped (skip_ocr: true), so there is no text to index. ` +
        'The local DocChat backend has no OCR engine in any case; attach a version with a text layer.'
    : `${filename}: ${what} and would need OCR, but the local DocChat backend has no OCR engine. ` +
        'Attach a version with a text layer, or use a documents service that runs OCR.';
}
