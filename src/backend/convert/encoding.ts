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
  const encoding = detectEncoding(bytes.subarray(0, 64 * 1024));
  return { text: iconv.decode(bytes, encoding), encoding };
}

/** Multi-byte encodings a short sample may be in even when chardet ranks a code page first. */
const EAST_ASIAN = ['Shift_JIS', 'EUC-JP', 'GB18030', 'Big5', 'EUC-KR'];
/** Below this share of letters among its non-ASCII characters, chardet's first guess is doubted. */
const PLAUSIBLE = 0.6;

/** Text in a multi-byte East Asian encoding is mostly high bytes; English with curly quotes is not. */
const MOSTLY_HIGH_BYTES = 0.3;

/**
 * chardet's first guess, unless the sample decoded that way is mostly symbols (a few dozen bytes
 * of Shift-JIS read as windows-1252 give `–¼‘O,“sŽs`), the sample is mostly high bytes, and
 * another candidate reads as letters.
 */
function detectEncoding(sample: Buffer): string {
  const ranked = chardet.analyse(sample).map((match) => normalize(match.name));
  const candidates = [...new Set([...ranked, ...EAST_ASIAN, 'windows-1252'])].filter((name) => iconv.encodingExists(name));
  const first = candidates[0] ?? 'windows-1252';
  const firstScore = letterShare(iconv.decode(sample, first));
  if (firstScore >= PLAUSIBLE || highByteShare(sample) < MOSTLY_HIGH_BYTES) return first;
  let best = { name: first, score: firstScore };
  for (const name of candidates.slice(1)) {
    const score = letterShare(iconv.decode(sample, name));
    if (score > best.score) best = { name, score };
  }
  return best.name;
}

function highByteShare(sample: Buffer): number {
  let printable = 0;
  let high = 0;
  for (const byte of sample) {
    if (byte <= 0x20) continue;
    printable++;
    if (byte >= 0x80) high++;
  }
  return printable === 0 ? 0 : high / printable;
}

/** Browsers read ISO-8859-1 as its superset windows-1252 (curly quotes, euro sign). */
function normalize(name: string): string {
  return /^ISO-8859-1$/i.test(name) ? 'windows-1252' : name;
}

/**
 * The share of letters among the non-ASCII characters of `text` (1 when there are none); -1 when
 * it holds a replacement character or a C1 control, which no real text in that encoding has.
 */
function letterShare(text: string): number {
  let nonAscii = 0;
  let letters = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x80) continue;
    if (code === 0xfffd || code < 0xa0) return -1;
    nonAscii++;
    if (/\p{L}/u.test(char)) letters++;
  }
  return nonAscii === 0 ? 1 : letters / nonAscii;
}
