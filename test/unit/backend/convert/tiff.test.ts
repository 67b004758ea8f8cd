import assert from 'node:assert/strict';
import { convertWithNotes } from '../../../../src/backend/convert/index';
import { tiffFrameOffsets } from '../../../../src/backend/convert/ocr';
import * as corpus from './corpus';

/** Single-page little-endian TIFFs joined into one multi-page TIFF (each page's offsets moved, directories chained). */
function multiPageTiff(pages: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  let base = 0;
  const directories: number[] = [];
  for (const [index, page] of pages.entries()) {
    const copy = Buffer.from(page);
    const shift = index === 0 ? 0 : base - 8;
    const body = index === 0 ? copy : copy.subarray(8);
    const ifd = copy.readUInt32LE(4);
    const entries = copy.readUInt16LE(ifd);
    for (let e = 0; e < entries; e++) {
      const at = ifd + 2 + e * 12;
      const tag = copy.readUInt16LE(at);
      const count = copy.readUInt32LE(at + 4);
      // Offsets: strip offsets, and bits per sample when its three values do not fit in the entry.
      if (tag === 273 || (tag === 258 && count > 2)) copy.writeUInt32LE(copy.readUInt32LE(at + 8) + shift, at + 8);
    }
    directories.push(ifd + shift);
    parts.push(body);
    base += body.length;
  }
  const out = Buffer.concat(parts);
  // Chain each directory to the next one.
  for (let i = 0; i < directories.length - 1; i++) {
    const ifd = directories[i]!;
    out.writeUInt32LE(directories[i + 1]!, ifd + 2 + out.readUInt16LE(ifd) * 12);
  }
  return out;
}

describe('backend: multi-page TIFF', function () {
  this.timeout(240_000);

  it('every page of a multi-page TIFF is read by OCR, in order, each under its page heading', async () => {
    const pages = [['INVOICE 2041'], ['DELIVERY NOTE'], ['PAYMENT TERMS']].map((lines) => corpus.textImage(lines, 'tif'));
    const data = multiPageTiff(pages);
    assert.equal(tiffFrameOffsets(data).length, 3);
    const { markdown } = await convertWithNotes('fax.tif', data, { skipOcr: false, maxBytes: 64 * 1024 * 1024 });
    const at = ['## Page 1', 'INVOICE 2041', '## Page 2', 'DELIVERY NOTE', '## Page 3', 'PAYMENT TERMS'].map((m) => {
      const i = markdown.indexOf(m);
      assert.ok(i >= 0, `missing ${m} in:\n${markdown}`);
      return i;
    });
    assert.deepEqual(
      [...at].sort((a, b) => a - b),
      at,
      `pages out of order:\n${markdown}`,
    );
  });

  it('a directory chain that loops back is read once, not forever', () => {
    const data = multiPageTiff([corpus.textImage(['A'], 'tif'), corpus.textImage(['B'], 'tif')]);
    const [first, second] = tiffFrameOffsets(data);
    data.writeUInt32LE(first!, second! + 2 + data.readUInt16LE(second!) * 12);
    assert.deepEqual(tiffFrameOffsets(data), [first, second]);
  });
});
