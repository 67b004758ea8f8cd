/**
 * How files are converted: which formats may use OCR and table recognition, and what
 * `docchat.attach.skipOcr` decides for attaching and for a folder sync. Plain TypeScript.
 */
/** `docchat.attach.skipOcr`. */
export type SkipOcrMode = 'ask' | 'always' | 'never';

/** Formats whose conversion can use OCR or table recognition; text formats never ask. */
const OCR_EXTENSIONS = new Set([
  'pdf',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'bmp',
  'tif',
  'tiff',
  'webp',
  'docx',
  'doc',
  'pptx',
  'ppt',
  // OpenDocument, e-books and archives hold pictures and tables too. Spreadsheets do not ask: their
  // tables are read as they are, and the rare picture on a sheet gets OCR all the same.
  'odt',
  'odp',
  'epub',
  'zip',
]);

export function mayUseOcr(filename: string): boolean {
  const dot = filename.lastIndexOf('.');
  return dot >= 0 && OCR_EXTENSIONS.has(filename.slice(dot + 1).toLowerCase());
}

/**
 * How files are converted when `docchat.attach.skipOcr` is `mode`: `true` skips OCR and table
 * recognition, `false` is full conversion, 'ask' means the user is asked. "Always skip" and "Never
 * skip" decide alone; with "Ask", an answer `remembered` for these files (a followed folder's) wins,
 * files that never use OCR need no question, and where no one can be asked (a sync that runs in
 * the background) the files get full conversion.
 */
export function conversionChoice(o: {
  mode: SkipOcrMode;
  /** The names of the files to convert. */
  names: readonly string[];
  remembered?: boolean;
  canAsk: boolean;
}): boolean | 'ask' {
  if (o.mode !== 'ask') return o.mode === 'always';
  if (o.remembered !== undefined) return o.remembered;
  if (!o.names.some((name) => mayUseOcr(name))) return false;
  return o.canAsk ? 'ask' : false;
}
