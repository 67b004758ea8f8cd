/** HTML to markdown with turndown: ATX headings, fenced code with its language, GFM tables. */
import TurndownService from 'turndown';
import { assertHtmlDepth } from './depth';
import { DEFAULT_CONVERSION_LIMITS } from './limits';
import { markdownTable } from './markdown';

export interface HtmlOptions {
  /**
   * Tables as GFM pipe tables (the "advanced table recognition" the skip option turns off);
   * otherwise one line per row.
   */
  tables: boolean;
  /** Deepest element nesting accepted (default 512); deeper documents fail before parsing. */
  maxDepth?: number;
  /** Start with `# <title>` when the page has a title and no h1 (default true). */
  titleHeading?: boolean;
  /**
   * Keep the page's main content only: navigation, sidebars, headers, footers and forms out
   * (default true). `<main>`/`<article>` when the page marks it; otherwise, for a page with such
   * boilerplate, Mozilla's Readability picks the content.
   */
  mainContent?: boolean;
}

const BOILERPLATE_SELECTOR = [
  'nav',
  'aside',
  'footer',
  'header',
  'form',
  'dialog',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
  '[aria-hidden="true"]',
  '[hidden]',
].join(', ');
const BOILERPLATE_NAME =
  /(^|[\s_-])(sidebar|navbar|nav|menu|breadcrumbs?|cookie|cookies|banner|advert|ads?|share|social|related|newsletter|subscribe|skip-link)([\s_-]|$)/i;

/** Query parameters that only track the reader. */
const TRACKING_PARAM = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|yclid|_hsenc|_hsmi|igshid|ref_src)$/i;
const REDIRECT_PARAM = ['url', 'q', 'u', 'target', 'dest', 'destination', 'redirect', 'redirect_url', 'redirect_uri', 'to', 'link'];

/** A click-tracking redirector's encoded target (`/ck/a?…&u=a1<base64url>`): the URL, or undefined. */
function encodedTarget(url: URL): string | undefined {
  const value = url.searchParams.get('u');
  if (!value || !/^a1[A-Za-z0-9_-]+={0,2}$/.test(value)) return undefined;
  const decoded = Buffer.from(value.slice(2).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  // Any scheme: a redirector to `javascript:void(0)` is no link at all (the links rule keeps its text).
  if (/^[a-z][a-z0-9+.-]*:[^\s]+$/i.test(decoded)) return decoded;
  // A target on the redirector's own site ("/?FORM=…"), resolved when the redirector's site is known.
  if (/^\/[^\s/]/.test(decoded) && url.hostname !== RELATIVE_BASE.hostname) return new URL(decoded, url).toString();
  return undefined;
}

/** Base for reading a relative link's query; never part of a result. */
const RELATIVE_BASE = new URL('https://relative.invalid/');

/** A link's real destination: a redirector's target (`google.com/url?q=…`, `/ck/a?…&u=a1…`) and no tracking parameters. */
export function cleanLink(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    // A relative link that is a redirector (`/ck/a?…&u=a1…`): its target when that is a full URL.
    try {
      const relative = new URL(href, RELATIVE_BASE);
      const target =
        encodedTarget(relative) ?? REDIRECT_PARAM.map((p) => relative.searchParams.get(p)).find((v) => v && /^https?:\/\//i.test(v));
      return target ? (/^https?:/i.test(target) ? cleanLink(target) : target) : href;
    } catch {
      return href;
    }
  }
  for (let hop = 0; hop < 3; hop++) {
    const inner = encodedTarget(url) ?? REDIRECT_PARAM.map((p) => url.searchParams.get(p)).find((v) => v && /^https?:\/\//i.test(v));
    if (!inner) break;
    if (!/^https?:/i.test(inner)) return inner;
    try {
      url = new URL(inner);
    } catch {
      break;
    }
  }
  for (const key of [...url.searchParams.keys()]) if (TRACKING_PARAM.test(key)) url.searchParams.delete(key);
  return url.toString();
}

/** The page's main content as HTML, or the page itself when it has no boilerplate to remove. */
function mainContentHtml(html: string): string {
  if (
    !/<(nav|aside|footer|header|form)[\s>]|role=["']?(navigation|banner|contentinfo|complementary)|(class|id)=["'][^"']*(sidebar|menu|nav)/i.test(
      html,
    )
  ) {
    return html;
  }
  // linkedom: a light DOM for Node, enough for selectors and Readability.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseHTML } = require('linkedom') as { parseHTML: (html: string) => { document: Document } };
  const { document } = parseHTML(html);
  const marked =
    document.querySelector('main, [role="main"]') ??
    (document.querySelectorAll('article').length === 1 ? document.querySelector('article') : null);
  const root = marked ?? document.body;
  if (!root) return html;
  for (const node of Array.from(root.querySelectorAll(BOILERPLATE_SELECTOR))) {
    // Inside the page's marked main content a banner or contentinfo role is not the page's
    // header or footer (a search result's caption is marked so): it stays.
    const role = node.getAttribute('role');
    if (marked && (role === 'contentinfo' || role === 'banner') && !/^(HEADER|FOOTER)$/.test(node.tagName)) continue;
    node.remove();
  }
  for (const node of Array.from(root.querySelectorAll('[class], [id]'))) {
    const name = `${node.getAttribute('class') ?? ''} ${node.getAttribute('id') ?? ''}`;
    // Tabs hold content (the sections of a card), whatever their container is called.
    if (node.querySelector('[role="tab"], [role="tabpanel"]') || /^tab(list|panel)?$/.test(node.getAttribute('role') ?? '')) continue;
    if (BOILERPLATE_NAME.test(name) && node.tagName !== 'BODY' && node.tagName !== 'MAIN' && node.tagName !== 'ARTICLE') node.remove();
  }
  if (marked) return `<html><body>${marked.outerHTML}</body></html>`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Readability } = require('@mozilla/readability') as typeof import('@mozilla/readability');
  const article = new Readability(document as unknown as Document, { keepClasses: true }).parse();
  if (article?.content && (article.textContent ?? '').trim().length > 0) {
    return `<html><body>${article.content}</body></html>`;
  }
  return `<html><body>${document.body.innerHTML}</body></html>`;
}

/** Elements that start a line of their own inside a table cell. */
const CELL_BLOCKS = new Set([
  'P',
  'DIV',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'UL',
  'OL',
  'LI',
  'PRE',
  'BLOCKQUOTE',
  'TABLE',
  'TR',
  'DL',
  'DT',
  'DD',
]);

/** A cell's text with its paragraphs, line breaks and list items on lines of their own (`- item`, `1. item`). */
function textOfCell(cell: Element): string {
  let out = '';
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      out += node.nodeValue ?? '';
      return;
    }
    if (node.nodeType !== 1) return;
    const element = node as Element;
    const tag = element.nodeName.toUpperCase();
    if (tag === 'BR') {
      out += '\n';
      return;
    }
    if (tag === 'SCRIPT' || tag === 'STYLE') return;
    const block = CELL_BLOCKS.has(tag);
    if (block) out += '\n';
    if (tag === 'LI') {
      const list = element.parentNode as Element | null;
      const ordered = list?.nodeName.toUpperCase() === 'OL';
      const index = list
        ? Array.from(list.childNodes)
            .filter((c) => c.nodeName.toUpperCase() === 'LI')
            .indexOf(element)
        : 0;
      out += ordered ? `${index + 1}. ` : '- ';
    }
    for (const child of Array.from(element.childNodes)) walk(child);
    if (block) out += '\n';
  };
  for (const child of Array.from(cell.childNodes)) walk(child);
  return out;
}

/** The nearest ancestor with this tag (turndown's DOM in Node has no `closest`). */
function ancestor(node: Element, tag: string): Element | null {
  let current = node.parentNode as Element | null;
  while (current && current.nodeName !== tag) current = current.parentNode as Element | null;
  return current;
}

function tableRows(table: HTMLElement): string[][] {
  const rows: string[][] = [];
  // Array.from: the DOM used by turndown in Node has NodeLists without forEach.
  for (const row of Array.from(table.querySelectorAll('tr'))) {
    if (ancestor(row, 'TABLE') !== table) continue; // rows of nested tables belong to them
    const cells = Array.from(row.querySelectorAll('th, td'))
      .filter((cell) => ancestor(cell, 'TR') === row)
      .map(textOfCell);
    if (cells.length) rows.push(cells);
  }
  return rows;
}

/** An href a reader may follow: http(s), mailto, or one without a scheme (relative, `#anchor`). */
const OPENABLE_HREF = /^\s*(?:https?:|mailto:|(?![a-z][a-z0-9+.-]*:))/i;

/** A link's or picture's title attribute as markdown writes it: ` "title"` after the target, or nothing. */
function linkTitle(node: TurndownService.Node): string {
  const title = ((node as HTMLElement).getAttribute('title') ?? '').replace(/\s+/g, ' ').trim();
  return title ? ` "${title.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : '';
}

function createService(options: HtmlOptions): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    hr: '---',
  });
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'head', 'object', 'embed', 'canvas']);
  // Text that was escaped in the page ("&lt;script&gt;") stays text in the markdown: a `<` of a
  // text node is written as an entity, so no markdown renderer reads it as a tag.
  const escapeMarkdown = service.escape.bind(service);
  service.escape = (text: string) => escapeMarkdown(text).replace(/</g, '&lt;');
  service.addRule('images', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node.getAttribute('alt') ?? '').trim();
      const src = node.getAttribute('src') ?? '';
      // Text OCR read in a document's picture (set by the DOCX converter).
      const ocr = (node.getAttribute('data-ocr') ?? '').trim();
      // Inline data URIs would bury the text under base64.
      if (!src || src.startsWith('data:')) {
        const parts = [alt ? `[image: ${alt}]` : '', ocr].filter(Boolean);
        return parts.length ? `\n\n${parts.join('\n\n')}\n\n` : '';
      }
      return `![${alt}](${src}${linkTitle(node)})`;
    },
  });
  service.addRule('links', {
    filter: (node) => node.nodeName === 'A' && !!node.getAttribute('href'),
    replacement: (content, node) => {
      const href = (node as HTMLElement).getAttribute('href') ?? '';
      // Only web, mail and relative links stay links: `javascript:`, `command:`, `vscode:`, `file:`… keep their text.
      if (!OPENABLE_HREF.test(href) || !content.trim()) return content;
      const target = cleanLink(href);
      return OPENABLE_HREF.test(target) ? `[${content}](${target}${linkTitle(node)})` : content;
    },
  });
  service.addRule('tables', {
    filter: 'table',
    replacement: (_content, node) => {
      const rows = tableRows(node);
      if (!rows.length) return '';
      return `\n\n${markdownTable(rows, options.tables)}\n\n`;
    },
  });
  return service;
}

export function htmlToMarkdown(html: string, options: HtmlOptions): string {
  assertHtmlDepth(html, options.maxDepth ?? DEFAULT_CONVERSION_LIMITS.maxHtmlDepth);
  const content = options.mainContent === false ? html : mainContentHtml(html);
  const markdown = createService(options).turndown(content).trim();
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  if (options.titleHeading !== false && title && !/<h1[\s>]/i.test(content)) return `# ${title}\n\n${markdown}`;
  return markdown;
}

/** The `<title>` of a page, for the web crawl tool. */
export function htmlTitle(html: string): string | undefined {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  return title || undefined;
}
