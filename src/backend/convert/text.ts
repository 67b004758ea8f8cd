/** Plain text, markdown and source code. */
import path from 'node:path';

/** UTF-8 (BOM dropped); files that are not valid UTF-8 are read as Windows-1252. */
export function decodeText(data: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return new TextDecoder('windows-1252').decode(data);
  }
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
