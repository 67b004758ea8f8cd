/** Decides how a file is converted, from its name and its first bytes. */
import path from 'node:path';
import { CODE_LANGUAGES, HTML, MARKDOWN, TEXT } from '../../api/documents/fileTypes';
import { ConversionError } from './errors';

export type Format =
  { kind: 'markdown' } | { kind: 'text' } | { kind: 'code'; language: string } | { kind: 'html' } | { kind: 'pdf' } | { kind: 'docx' };

/** Types people try that cannot be converted here, with the reason shown to them. */
const UNSUPPORTED: Record<string, string> = {
  '.png': 'an image (there is no OCR engine in the local backend)',
  '.jpg': 'an image (there is no OCR engine in the local backend)',
  '.jpeg': 'an image (there is no OCR engine in the local backend)',
  '.gif': 'an image (there is no OCR engine in the local backend)',
  '.bmp': 'an image (there is no OCR engine in the local backend)',
  '.tif': 'an image (there is no OCR engine in the local backend)',
  '.tiff': 'an image (there is no OCR engine in the local backend)',
  '.webp': 'an image (there is no OCR engine in the local backend)',
  '.heic': 'an image (there is no OCR engine in the local backend)',
  '.doc': 'a legacy Word document; save it as .docx',
  '.rtf': 'rich text; save it as .docx',
  '.odt': 'an OpenDocument text; save it as .docx',
  '.xls': 'a spreadsheet',
  '.xlsx': 'a spreadsheet',
  '.ods': 'a spreadsheet',
  '.ppt': 'a presentation',
  '.pptx': 'a presentation',
  '.odp': 'a presentation',
  '.zip': 'an archive',
  '.gz': 'an archive',
  '.tgz': 'an archive',
  '.tar': 'an archive',
  '.7z': 'an archive',
  '.rar': 'an archive',
  '.exe': 'a program',
  '.dll': 'a library',
  '.so': 'a library',
  '.bin': 'binary data',
  '.mp3': 'audio',
  '.wav': 'audio',
  '.mp4': 'video',
  '.mov': 'video',
  '.avi': 'video',
};

export const SUPPORTED_DESCRIPTION = 'supported: text, markdown, source code, HTML, PDF and DOCX';

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
  if (ext in UNSUPPORTED) {
    throw new ConversionError('unsupported_file', `Unsupported file type: ${filename} is ${UNSUPPORTED[ext]}; ${SUPPORTED_DESCRIPTION}.`);
  }
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
  if (!TEXT.has(ext) && /^\s*<(!doctype html|html[\s>])/i.test(Buffer.from(data.subarray(0, 512)).toString('utf8'))) {
    return { kind: 'html' };
  }
  return { kind: 'text' };
}
