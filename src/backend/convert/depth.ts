/**
 * The element nesting depth of an HTML document, measured by a linear scan of its tags before
 * any parser sees it: turndown walks the DOM recursively, so a document nested tens of thousands
 * deep would exhaust the stack or keep a core busy for minutes.
 */
import { ConversionError } from './errors';

// Elements that never hold children, or that the parser closes implicitly when a sibling opens;
// counting them as open would overstate the depth of ordinary pages.
const NOT_NESTING = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  'p',
  'li',
  'dt',
  'dd',
  'tr',
  'td',
  'th',
  'option',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'rt',
  'rp',
  'optgroup',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'template']);

/** The maximum depth, or stops as soon as `limit` is passed and returns a number above it. */
export function htmlNestingDepth(html: string, limit = Infinity): number {
  const tag = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>|<!--[\s\S]*?-->/g;
  let depth = 0;
  let max = 0;
  let match: RegExpExecArray | null;
  while ((match = tag.exec(html))) {
    const name = match[2]?.toLowerCase();
    if (!name) continue; // comment
    if (match[1]) {
      if (!NOT_NESTING.has(name)) depth = Math.max(0, depth - 1);
      continue;
    }
    if (RAW_TEXT.has(name)) {
      const close = new RegExp(`</${name}`, 'ig');
      close.lastIndex = tag.lastIndex;
      if (!close.exec(html)) break;
      tag.lastIndex = close.lastIndex;
      continue;
    }
    if (match[3] || NOT_NESTING.has(name)) continue;
    depth++;
    if (depth > max) {
      max = depth;
      if (max > limit) return max;
    }
  }
  return max;
}

/** The element nesting depth of XML (a DOCX part), by the same kind of linear scan. */
export function xmlNestingDepth(xml: string, limit = Infinity): number {
  const tag = /<(\/?)[A-Za-z_][\w:.-]*(?:[^<>"']|"[^"<]*"|'[^'<]*')*?(\/?)>/g;
  let depth = 0;
  let max = 0;
  let match: RegExpExecArray | null;
  while ((match = tag.exec(xml))) {
    if (match[1]) depth = Math.max(0, depth - 1);
    else if (!match[2] && ++depth > max) {
      max = depth;
      if (max > limit) return max;
    }
  }
  return max;
}

export function assertHtmlDepth(html: string, maxDepth: number): void {
  if (htmlNestingDepth(html, maxDepth) > maxDepth) {
    throw new ConversionError(
      'conversion_bound',
      `conversion stopped: the HTML is nested deeper than ${maxDepth} elements. Save it as plain text (or with fewer nested levels) and attach it again.`,
    );
  }
}
