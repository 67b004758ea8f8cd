/** What the conversion tests share: converting bytes to markdown, rewriting a package part, checking the text. */
import assert from 'node:assert/strict';
import JSZip from 'jszip';
import { convertWithNotes } from '../../../../src/backend/convert/index';

/** The markdown a conversion worker makes of `data` (a string is taken as UTF-8). */
export async function convert(filename: string, data: string | Uint8Array, skipOcr = false): Promise<string> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return (await convertWithNotes(filename, bytes, { skipOcr, maxBytes: 64 * 1024 * 1024 })).markdown;
}

/** The package with `part` rewritten: the same document as another tool would write it. */
export async function rewrite(data: Uint8Array, part: string, change: (xml: string) => string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(data);
  const xml = await zip.file(part)!.async('string');
  const changed = change(xml);
  assert.notEqual(changed, xml, `${part} was not rewritten`);
  zip.file(part, changed);
  return zip.generateAsync({ type: 'nodebuffer' });
}

/** Asserts that `markdown` holds each of `must` (text or pattern) and none of `mustNot`. */
export function holds(markdown: string, must: readonly (string | RegExp)[], mustNot: readonly string[] = []): void {
  for (const m of must) {
    const ok = typeof m === 'string' ? markdown.includes(m) : m.test(markdown);
    assert.ok(ok, `missing ${typeof m === 'string' ? JSON.stringify(m) : String(m)} in:\n${markdown}`);
  }
  for (const m of mustNot) assert.ok(!markdown.includes(m), `unexpected ${JSON.stringify(m)} in:\n${markdown}`);
}
