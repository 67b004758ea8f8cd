import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

// A .vsix is a plain zip. Reading it here keeps the harness free of an unzip dependency.

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

export interface ZipEntry {
  name: string;
  data(): Buffer;
}

export function readZip(file: string): ZipEntry[] {
  const zip = readFileSync(file);
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error(`${file} is not a zip file`);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_FILE_HEADER) throw new Error(`${file}: bad central directory`);
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    entries.push({
      name,
      data() {
        if (zip.readUInt32LE(localOffset) !== LOCAL_FILE_HEADER) throw new Error(`${file}: bad entry ${name}`);
        const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
        const raw = zip.subarray(start, start + compressedSize);
        if (method === 0) return Buffer.from(raw);
        if (method === 8) return inflateRawSync(raw);
        throw new Error(`${file}: entry ${name} uses unsupported compression ${method}`);
      },
    });
  }
  return entries;
}

/** Extracts the entries under `prefix` (e.g. `extension/`) into `destination`. */
export function extractZip(file: string, destination: string, prefix = ''): number {
  let written = 0;
  for (const entry of readZip(file)) {
    if (!entry.name.startsWith(prefix) || entry.name.endsWith('/')) continue;
    const relative = entry.name.slice(prefix.length);
    const target = path.resolve(destination, relative);
    if (!target.startsWith(path.resolve(destination) + path.sep)) {
      throw new Error(`${file}: entry ${entry.name} escapes the destination`);
    }
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, entry.data());
    written++;
  }
  return written;
}
