/** Decides how a file is converted, from its name and its first bytes. */
import path from 'node:path';
import { BY_EXTENSION, CODE_LANGUAGES, type DocumentKind, HTML, MARKDOWN, TEXT } from '../../api/documents/fileTypes';
import { ConversionError } from './errors';

export type Format =
  | { kind: 'markdown' }
  | { kind: 'text' }
  | { kind: 'code'; language: string }
  | { kind: 'html' }
  | { kind: 'pdf' }
  | { kind: 'docx' }
  | { kind: 'csv'; tsv: boolean }
  | { kind: DocumentKind };

const ZIP_KINDS = new Set<Format['kind']>(['xlsx', 'ods', 'pptx', 'odp', 'odt', 'epub', 'zip']);
const FORMAT_LABEL: Partial<Record<Format['kind'], string>> = {
  xlsx: 'XLSX',
  ods: 'ODS',
  pptx: 'PPTX',
  odp: 'ODP',
  odt: 'ODT',
  epub: 'EPUB',
  zip: 'ZIP',
  xls: 'XLS',
  doc: 'Word 97–2003',
  msg: 'Outlook message',
};

/** Types people try that cannot be converted here, with the reason shown to them. */
const AUDIO_VIDEO =
  'audio or video, which DocChat does not convert (it reads documents and images, not sound); attach a transcript or the slides instead';
const UNSUPPORTED: Record<string, string> = {
  '.heic': 'an HEIC photo, which OCR cannot read; export it as PNG or JPEG',
  '.heif': 'an HEIF photo, which OCR cannot read; export it as PNG or JPEG',
  '.ppt': 'a legacy PowerPoint presentation; save it as .pptx',
  '.gz': 'a gzip archive; attach its files, or a .zip of them',
  '.tgz': 'a compressed tar archive; attach its files, or a .zip of them',
  '.tar': 'a tar archive; attach its files, or a .zip of them',
  '.7z': 'a 7-Zip archive; attach its files, or a .zip of them',
  '.rar': 'a RAR archive; attach its files, or a .zip of them',
  '.exe': 'a program',
  '.dll': 'a library',
  '.so': 'a library',
  '.bin': 'binary data',
  ...Object.fromEntries(
    [
      '.mp3',
      '.wav',
      '.m4a',
      '.aac',
      '.flac',
      '.ogg',
      '.oga',
      '.opus',
      '.wma',
      '.aiff',
      '.mid',
      '.midi',
      '.mp4',
      '.m4v',
      '.mov',
      '.avi',
      '.mkv',
      '.webm',
      '.wmv',
      '.flv',
      '.mpg',
      '.mpeg',
      '.3gp',
    ].map((ext) => [ext, AUDIO_VIDEO]),
  ),
};

export const SUPPORTED_DESCRIPTION =
  'supported: text, markdown, source code, HTML, PDF, Word (.docx, .doc, .odt, .rtf), spreadsheets (.xlsx, .xls, .ods, .csv, .tsv), presentations (.pptx, .odp), .epub, e-mail (.msg, .eml), notebooks, JSON, XML, .zip and images (.png, .jpg, .tif, .webp, .bmp, .gif)';

/** The image type from the first bytes, for files without a known extension. */
function imageMagic(data: Uint8Array): boolean {
  return (
    startsWith(data, '\x89PNG') ||
    (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) ||
    startsWith(data, 'GIF8') ||
    startsWith(data, 'II*\x00') ||
    startsWith(data, 'MM\x00*') ||
    (startsWith(data, 'RIFF') && String.fromCharCode(...data.subarray(8, 12)) === 'WEBP')
  );
}

function startsWith(data: Uint8Array, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (data[i] !== text.charCodeAt(i)) return false;
  return true;
}

/** No NUL byte in the first 8 KiB: the same heuristic git uses for "binary". */
export function looksLikeText(data: Uint8Array): boolean {
  const end = Math.min(data.length, 8192);
  for (let i = 0; i < end; i++) if (data[i] === 0) return false;
  return true;
}

const HTML_START = /^\s*<(!doctype html|html[\s>])/i;

export function detectFormat(filename: string, data: Uint8Array): Format {
  const base = path.basename(filename).toLowerCase();
  const ext = path.extname(base);
  const isZip = startsWith(data, 'PK\x03\x04');
  if (startsWith(data, '%PDF-')) return { kind: 'pdf' };
  if (ext === '.pdf') {
    throw new ConversionError('corrupt_file', `${filename} is not a valid PDF: it does not start with "%PDF-".`);
  }
  if (ext === '.docx' || ext === '.docm' || ext === '.dotx') {
    if (!isZip) throw new ConversionError('corrupt_file', `${filename} is not a valid DOCX file: it is not a ZIP package.`);
    return { kind: 'docx' };
  }
  if (ext === '.csv' || ext === '.tsv' || ext === '.tab') return { kind: 'csv', tsv: ext !== '.csv' };
  const isOle = data[0] === 0xd0 && data[1] === 0xcf && data[2] === 0x11 && data[3] === 0xe0;
  let kind = BY_EXTENSION[ext];
  // An .xls that is really XLSX (a common mislabel) is read as what it is.
  if (kind === 'xls' && isZip) kind = 'xlsx';
  // So is a .doc that is really DOCX, RTF or a web page (Word and other editors write all three under that name).
  if (kind === 'doc' && !isOle) {
    if (isZip) return { kind: 'docx' };
    if (startsWith(data, '{\\rtf')) return { kind: 'rtf' };
    if (looksLikeText(data) && HTML_START.test(Buffer.from(data.subarray(0, 512)).toString('utf8'))) return { kind: 'html' };
  }
  if (kind) {
    if (ZIP_KINDS.has(kind) && !isZip) {
      throw new ConversionError('corrupt_file', `${filename} is not a valid ${FORMAT_LABEL[kind]} file: it is not a ZIP package.`);
    }
    if ((kind === 'xls' || kind === 'msg' || kind === 'doc') && !isOle) {
      throw new ConversionError('corrupt_file', `${filename} is not a valid ${FORMAT_LABEL[kind]} file: it is not an OLE compound file.`);
    }
    return { kind } as Format;
  }
  if (ext in UNSUPPORTED) {
    throw new ConversionError('unsupported_file', `Unsupported file type: ${filename} is ${UNSUPPORTED[ext]}; ${SUPPORTED_DESCRIPTION}.`);
  }
  if (imageMagic(data)) return { kind: 'image' };
  if (!looksLikeText(data) || isZip) {
    throw new ConversionError(
      'unsupported_file',
      `Unsupported file type: ${filename} is binary data of an unknown type; ${SUPPORTED_DESCRIPTION}.`,
    );
  }
  if (MARKDOWN.has(ext)) return { kind: 'markdown' };
  if (HTML.has(ext)) return { kind: 'html' };
  const language = CODE_LANGUAGES[ext] ?? CODE_LANGUAGES[base.replace(/\.[^.]*$/, '')] ?? CODE_LANGUAGES[base];
  if (language) return { kind: 'code', language };
  if (!TEXT.has(ext) && HTML_START.test(Buffer.from(data.subarray(0, 512)).toString('utf8'))) {
    return { kind: 'html' };
  }
  return { kind: 'text' };
}
