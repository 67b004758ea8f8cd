/**
 * RTF to text: a tokenizer over groups and control words. Font, colour and style tables,
 * pictures and other `\*` destinations are left out; `\'hh` bytes are decoded in the document's
 * code page (`\ansicpg`, with iconv-lite), `\uN` as Unicode; table rows become pipe-separated lines.
 */
import iconv from 'iconv-lite';
import type { ConvertContext } from './context';
import { ConversionError } from './errors';

const SKIP_DESTINATIONS = new Set([
  'fonttbl',
  'colortbl',
  'stylesheet',
  'info',
  'pict',
  'object',
  'header',
  'footer',
  'headerl',
  'headerr',
  'footerl',
  'footerr',
  'listtable',
  'listoverridetable',
  'revtbl',
  'rsidtbl',
  'generator',
  'xmlnstbl',
  'themedata',
  'colorschememapping',
  'latentstyles',
  'datastore',
  'fldinst',
  'filetbl',
  'pgdsctbl',
  'operator',
]);

export function rtfToMarkdown(ctx: ConvertContext, data: Uint8Array): string {
  const source = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  if (!source.startsWith('{\\rtf')) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is not a valid RTF file: it does not start with "{\\rtf".`);
  }
  let codePage = 'windows-1252';
  let out = '';
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += iconv.decode(Buffer.from(bytes), codePage);
    bytes = [];
  };
  const stack: { skip: boolean; uc: number }[] = [];
  let state = { skip: false, uc: 1 };
  let pendingSkip = 0;
  let depth = 0;
  for (let i = 0; i < source.length;) {
    const ch = source[i]!;
    if (ch === '{') {
      stack.push(state);
      state = { ...state };
      if (++depth > ctx.maxDepth) {
        throw new ConversionError(
          'conversion_bound',
          `conversion stopped: ${ctx.filename} is nested deeper than ${ctx.maxDepth} groups. Save it as plain text (or with fewer nested levels) and attach it again.`,
        );
      }
      i++;
      if (source.startsWith('\\*', i)) state.skip = true;
    } else if (ch === '}') {
      flush();
      state = stack.pop() ?? state;
      depth--;
      i++;
    } else if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (next === "'") {
        const byte = parseInt(source.slice(i + 2, i + 4), 16);
        i += 4;
        if (pendingSkip > 0) pendingSkip--;
        else if (!state.skip && Number.isFinite(byte)) bytes.push(byte);
        continue;
      }
      const word = /^\\([a-zA-Z]+)(-?\d+)? ?/.exec(source.slice(i, i + 40));
      if (!word) {
        // Control symbol: \\ \{ \} \~ \- \_ or a line break.
        if (!state.skip && '\\{}'.includes(next)) {
          flush();
          out += next;
        } else if (!state.skip && next === '~') out += '\u00a0';
        else if (!state.skip && (next === '\n' || next === '\r')) {
          flush();
          out += '\n';
        }
        i += 2;
        continue;
      }
      i += word[0].length;
      const name = word[1]!;
      const param = word[2] === undefined ? undefined : Number(word[2]);
      if (SKIP_DESTINATIONS.has(name)) {
        state.skip = true;
        continue;
      }
      if (name === 'ansicpg' && param) codePage = iconv.encodingExists(`cp${param}`) ? `cp${param}` : codePage;
      if (name === 'uc' && param !== undefined) state.uc = param;
      if (state.skip) continue;
      if (name === 'u' && param !== undefined) {
        flush();
        out += String.fromCharCode(param < 0 ? param + 65536 : param);
        pendingSkip = state.uc;
      } else if (name === 'par' || name === 'line' || name === 'sect' || name === 'page') {
        flush();
        out += '\n';
      } else if (name === 'row') {
        flush();
        out = out.replace(/ \| $/, '') + '\n';
      } else if (name === 'cell') {
        flush();
        out += ' | ';
      } else if (name === 'tab') {
        flush();
        out += '\t';
      }
    } else if (ch === '\r' || ch === '\n') i++;
    else {
      if (pendingSkip > 0) pendingSkip--;
      else if (!state.skip) bytes.push(source.charCodeAt(i) & 0xff);
      i++;
    }
  }
  flush();
  return out
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
