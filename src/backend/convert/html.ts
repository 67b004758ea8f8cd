/** HTML to markdown with turndown: ATX headings, fenced code with its language, GFM tables. */
import TurndownService from 'turndown';
import { assertHtmlDepth } from './depth';
import { DEFAULT_CONVERSION_LIMITS } from './limits';

export interface HtmlOptions {
  /**
   * Tables as GFM pipe tables (the "advanced table recognition" the skip option turns off);
   * otherwise one line per row.
   */
  tables: boolean;
  /** Deepest element nesting accepted (default 512); deeper documents fail before parsing. */
  maxDepth?: number;
}

function cellText(cell: Element): string {
  return (cell.textContent ?? '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
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
      .map(cellText);
    if (cells.length) rows.push(cells);
  }
  return rows;
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
  service.addRule('images', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node.getAttribute('alt') ?? '').trim();
      const src = node.getAttribute('src') ?? '';
      // Inline data URIs would bury the text under base64.
      if (!src || src.startsWith('data:')) return alt ? `[image: ${alt}]` : '';
      return `![${alt}](${src})`;
    },
  });
  service.addRule('tables', {
    filter: 'table',
    replacement: (_content, node) => {
      const rows = tableRows(node);
      if (!rows.length) return '';
      if (!options.tables) return `\n\n${rows.map((cells) => cells.join(' | ')).join('\n')}\n\n`;
      const width = Math.max(...rows.map((r) => r.length));
      const line = (cells: string[]) => `| ${[...cells, ...Array(width - cells.length).fill('')].join(' | ')} |`;
      const [head, ...body] = rows;
      return `\n\n${[line(head!), line(Array(width).fill('---')), ...body.map(line)].join('\n')}\n\n`;
    },
  });
  return service;
}

export function htmlToMarkdown(html: string, options: HtmlOptions): string {
  assertHtmlDepth(html, options.maxDepth ?? DEFAULT_CONVERSION_LIMITS.maxHtmlDepth);
  const markdown = createService(options).turndown(html).trim();
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  if (title && !/<h1[\s>]/i.test(html)) return `# ${title}\n\n${markdown}`;
  return markdown;
}

/** The `<title>` of a page, for the web crawl tool. */
export function htmlTitle(html: string): string | undefined {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  return title || undefined;
}
