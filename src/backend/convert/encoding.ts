/**
 * Text in any common encoding: a BOM decides first (UTF-8, UTF-16 LE/BE), then valid UTF-8 is
 * UTF-8, and anything else is detected with chardet (Windows code pages, Shift-JIS, EUC-JP,
 * GB18030, Big5, EUC-KR, KOI8-R, ISO-8859-x, UTF-16 without BOM) and decoded with iconv-lite.
 */
import chardet from 'chardet';
import iconv from 'iconv-lite';

export function decodeLegacyText(data: Uint8Array): { text: string; encoding: string } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: bytes.toString('utf8', 3), encoding: 'UTF-8' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: iconv.decode(bytes.subarray(2), 'utf16le'), encoding: 'UTF-16LE' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: iconv.decode(bytes.subarray(2), 'utf16be'), encoding: 'UTF-16BE' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'UTF-8' };
  } catch {
    // not UTF-8: detect below
  }
  const sample = bytes.subarray(0, 64 * 1024);
  let encoding = chardet.detect(sample) ?? 'windows-1252';
  // Browsers read ISO-8859-1 as its superset windows-1252 (curly quotes, euro sign).
  if (/^ISO-8859-1$/i.test(encoding) || !iconv.encodingExists(encoding)) encoding = 'windows-1252';
  return { text: iconv.decode(bytes, encoding), encoding };
}
