/**
 * A zip bomb check for ZIP packages (DOCX, XLSX, PPTX, ODF, EPUB, .zip), run before any library
 * unpacks anything: it walks the ZIP central
 * directory and inflates every part, counting
 * the bytes and discarding them, and stops as soon as the total passes the limit. The sizes the
 * archive declares are not trusted; only what really comes out of the inflater counts. No part is
 * skipped by its name: a relationship can name any part (`word/media/…` included) as the document.
 */
import { createInflateRaw } from 'node:zlib';
import { formatBytes } from '../http/body';
import { xmlNestingDepth } from './depth';
import { ConversionError } from './errors';

/** Unpacked XML of a DOCX (document, styles, numbering, …) beyond this is refused. */
export const MAX_DOCX_UNPACKED_BYTES = 64 * 1024 * 1024;
/** Far more parts than any real document has. */
export const MAX_DOCX_ENTRIES = 10_000;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

function corrupt(filename: string, why: string, label = 'DOCX'): ConversionError {
  return new ConversionError('corrupt_file', `${filename} is a corrupt ${label} file and cannot be read (${why}).`);
}

function entries(filename: string, zip: Buffer, label: string): Entry[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw corrupt(filename, 'no ZIP directory', label);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  if (count > MAX_DOCX_ENTRIES) {
    throw new ConversionError(
      'file_too_large',
      `${filename} has ${count} parts; DocChat does not convert ${label} files with more than ${MAX_DOCX_ENTRIES}.`,
    );
  }
  const list: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw corrupt(filename, 'a damaged ZIP directory', label);
    const nameLength = zip.readUInt16LE(at + 28);
    const entry: Entry = {
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      localOffset: zip.readUInt32LE(at + 42),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    };
    if (entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff) {
      throw corrupt(filename, 'ZIP64 parts are not supported', label);
    }
    list.push(entry);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return list;
}

/** Inflates `data`, counting the output (kept in `keep` when given); stops once `budget` is passed. */
function inflatedSize(data: Buffer, budget: number, keep?: Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw();
    let size = 0;
    let done = false;
    const finish = (value: number) => {
      if (done) return;
      done = true;
      resolve(value);
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      keep?.push(chunk);
      if (size > budget) {
        inflate.destroy();
        finish(size);
      }
    });
    inflate.on('end', () => finish(size));
    inflate.on('close', () => finish(size));
    inflate.on('error', (error) => (done ? undefined : ((done = true), reject(error))));
    inflate.end(data);
  });
}

/** XML by name, or by its first byte past a BOM and white space (images never start with `<`). */
function looksLikeXml(name: string, part: Buffer): boolean {
  if (/\.(xml|rels)$/i.test(name)) return true;
  const head = part
    .subarray(0, 64)
    .toString('utf8')
    .replace(/^\uFEFF?\s*/, '');
  return head.startsWith('<');
}

/**
 * Throws a ConversionError when the DOCX would unpack to more than `limit` bytes, is not a ZIP,
 * or has a part nested deeper than `maxDepth` elements (mammoth walks the XML recursively, so a
 * few thousand levels exhaust its stack).
 */
export function checkDocxArchive(filename: string, data: Uint8Array, maxDepth: number, limit = MAX_DOCX_UNPACKED_BYTES): Promise<void> {
  return checkArchive(filename, data, { maxDepth, limit, label: 'DOCX' });
}

/** The same checks for any ZIP package; `label` names its format in the sentences ("XLSX", "ZIP"). */
export async function checkArchive(
  filename: string,
  data: Uint8Array,
  { maxDepth, limit = MAX_DOCX_UNPACKED_BYTES, label }: { maxDepth: number; limit?: number; label: string },
): Promise<void> {
  const zip = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let total = 0;
  for (const entry of entries(filename, zip, label)) {
    if (entry.name.endsWith('/')) continue;
    const at = entry.localOffset;
    if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL) throw corrupt(filename, `a damaged part ${entry.name}`, label);
    const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
    const packed = zip.subarray(start, start + entry.compressedSize);
    // Kept to measure its depth: any part can be named the document by a relationship.
    const xml: Buffer[] = [];
    let size: number;
    if (entry.method === 0) {
      size = packed.length;
      xml.push(packed);
    } else if (entry.method === 8) {
      try {
        size = await inflatedSize(packed, limit - total, xml);
      } catch (error) {
        throw corrupt(filename, `part ${entry.name}: ${(error as Error).message}`, label);
      }
    } else throw corrupt(filename, `part ${entry.name} uses an unsupported compression method`, label);
    total += size;
    if (total > limit) {
      throw new ConversionError(
        'file_too_large',
        `${filename} unpacks to more than ${formatBytes(limit)}, so DocChat does not convert it (it may be a zip bomb).`,
      );
    }
    const part = Buffer.concat(xml);
    if (looksLikeXml(entry.name, part) && xmlNestingDepth(part.toString('utf8'), maxDepth) > maxDepth) {
      throw new ConversionError(
        'conversion_bound',
        `conversion stopped: ${filename} is nested deeper than ${maxDepth} elements (in ${entry.name}). Save it as plain text (or with fewer nested levels) and attach it again.`,
      );
    }
  }
}
