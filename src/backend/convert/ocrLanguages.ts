/**
 * How an image's readings are chosen from the OCR languages (src/common/ocrLanguages.ts); apart
 * from ocr.ts so the backend's options check languages without loading the engine.
 */
import { OCR_LANGUAGES, ocrLanguagesError, type OcrLanguage } from '../../common/ocrLanguages';
import { ConversionError } from './errors';

export { DEFAULT_OCR_LANGUAGES, OCR_LANGUAGES, ocrLanguagesError, type OcrLanguage } from '../../common/ocrLanguages';

/**
 * A reading whose mean word confidence is below this is tried again with the other scripts'
 * languages. Measured: English scans read with English at 75 to 96, Arabic and Persian pages
 * read with English at 25 to 32 (noise), and with Arabic at 80 to 87.
 */
export const OCR_RETRY_CONFIDENCE = 60;

/** The languages, each once, in their order; a ConversionError naming the shipped ones when one is not. */
export function checkOcrLanguages(languages: readonly string[]): OcrLanguage[] {
  const error = ocrLanguagesError(languages);
  if (error) throw new ConversionError('ocr_unavailable', error);
  return [...new Set(languages as OcrLanguage[])];
}

/**
 * The readings to try for an image, in order, as Tesseract language sets: the Latin-script
 * languages alone, then each other script's languages with them (Latin words and digits inside
 * Arabic or Hebrew text are read by the Latin model).
 */
export function ocrPasses(languages: readonly OcrLanguage[]): string[] {
  const latin = languages.filter((language) => OCR_LANGUAGES[language].script === 'Latin');
  const scripts = [...new Set(languages.map((language) => OCR_LANGUAGES[language].script))].filter((script) => script !== 'Latin');
  const passes = scripts.map((script) =>
    [...languages.filter((language) => OCR_LANGUAGES[language].script === script), ...latin].join('+'),
  );
  return latin.length ? [latin.join('+'), ...passes] : passes;
}
