/**
 * The chat webview's stand-in for the `entities` package, which markdown-it uses to decode a named
 * character reference (`&copy;`). The browser's HTML parser already holds the HTML standard's
 * table, so the panel does not ship a second copy (23 KB of its script); esbuild.mjs aliases the
 * package to this file in the webview bundle only. Strict like entities' `decodeHTMLStrict`: only
 * a whole `&name;` decodes.
 */
let decoder: HTMLTextAreaElement | undefined;

export function decodeHTMLStrict(text: string): string {
  if (!/^&[A-Za-z][A-Za-z0-9]*;$/.test(text)) return text;
  // A textarea's content is text only (RCDATA): setting it creates no element, runs nothing.
  decoder ??= document.createElement('textarea');
  decoder.innerHTML = text;
  const decoded = decoder.value;
  // A named reference stands for one or two code points. More means the parser decoded only a
  // legacy prefix without its semicolon (`&notit;` → `¬it;`), which strict decoding leaves alone.
  return [...decoded].length <= 2 ? decoded : text;
}
