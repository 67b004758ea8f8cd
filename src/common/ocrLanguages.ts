/**
 * The OCR languages DocChat ships: what the settings offer, the backend's options accept and
 * the package holds (esbuild.mjs copies each one's data into dist/ocr/).
 */

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
