/**
 * The OCR languages DocChat ships and how an image's readings are chosen; apart from ocr.ts so
 * settings and the backend's options check languages without loading the engine.
 */
import { ConversionError } from './errors';

/**
 * The OCR languages DocChat ships (Tesseract's names) and the script each reads. Right-to-left
 * text comes out of Tesseract in logical (reading) order, lines top to bottom.
 */
export const OCR_LANGUAGES = {
  eng: { name: 'English', script: 'Latin' },
  ara: { name: 'Arabic', script: 'Arabic' },
  fas: { name: 'Persian', script: 'Arabic' },
  heb: { name: 'Hebrew', script: 'Hebrew' },
} as const;
export type OcrLanguage = keyof typeof OCR_LANGUAGES;
/** Every shipped language: English first, the right-to-left scripts tried when it reads poorly. */
export const DEFAULT_OCR_LANGUAGES: readonly OcrLanguage[] = ['eng', 'ara', 'fas', 'heb'];

/**
 * A reading whose mean word confidence is below this is tried again with the other scripts'
 * languages. Measured: English scans read with English at 75 to 96, Arabic and Persian pages
 * read with English at 25 to 32 (noise), and with Arabic at 80 to 87.
 */
export const OCR_RETRY_CONFIDENCE = 60;

/** Why `languages` cannot be read (a sentence naming the shipped languages), or undefined when they can. */
export function ocrLanguagesError(languages: readonly string[]): string | undefined {
  const shipped = Object.keys(OCR_LANGUAGES);
  const unknown = languages.filter((language) => !shipped.includes(language));
  if (!unknown.length && languages.length) return undefined;
  const list = shipped.map((code) => `${code} (${OCR_LANGUAGES[code as OcrLanguage].name})`).join(', ');
  return unknown.length
    ? `OCR has no language ${unknown.map((u) => JSON.stringify(u)).join(', ')}: the OCR languages DocChat ships are ${list}.`
    : `no OCR language was given: the OCR languages DocChat ships are ${list}.`;
}

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
