/** Plain text, markdown and source code. */
import path from 'node:path';
import { decodeLegacyText } from './encoding';

/** UTF-8 (BOM dropped); other encodings are detected (see decodeLegacyText). */
export function decodeText(data: Uint8Array): string {
  return decodeLegacyText(data).text;
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** A fence longer than any backtick run in the code, so the code can never close it. */
function fenceFor(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

export function codeToMarkdown(filename: string, language: string, code: string): string {
  const fence = fenceFor(code);
  return `# ${path.basename(filename)}\n\n${fence}${language}\n${normalizeNewlines(code).replace(/\n+$/, '')}\n${fence}\n`;
}
