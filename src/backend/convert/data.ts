/**
 * Structured text: Jupyter notebooks (markdown cells as text, code cells fenced in the kernel's
 * language, outputs as text), JSON (as an indented outline of keys and values), RSS and Atom feeds
 * (one section per item) and other XML (its elements' text under their names).
 */
import type { ConvertContext } from './context';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { childrenNamed, findAll, findFirst, localName, parseXml, squash, textOf, attr, type XmlNode } from './xml';

function fence(code: string, language: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${code.replace(/\n+$/, '')}\n${marks}`;
}

function parseJson(ctx: ConvertContext, text: string, what: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is not valid ${what} and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
}

const joinSource = (value: unknown): string => (Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : '');

export function notebookToMarkdown(ctx: ConvertContext, text: string): string {
  const notebook = parseJson(ctx, text, 'a Jupyter notebook') as {
    cells?: { cell_type?: string; source?: unknown; outputs?: Record<string, unknown>[] }[];
    metadata?: { kernelspec?: { language?: string }; language_info?: { name?: string } };
  };
  if (!notebook || !Array.isArray(notebook.cells)) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is not a valid Jupyter notebook: it has no cells.`);
  }
  const language = notebook.metadata?.language_info?.name ?? notebook.metadata?.kernelspec?.language ?? '';
  const out: string[] = [];
  for (const cell of notebook.cells) {
    const source = joinSource(cell.source).trim();
    if (cell.cell_type === 'markdown' && source) out.push(source);
    else if (cell.cell_type === 'raw' && source) out.push(source);
    else if (cell.cell_type === 'code') {
      if (source) out.push(fence(source, language));
      for (const output of cell.outputs ?? []) {
        const data = output.data as Record<string, unknown> | undefined;
        const result =
          joinSource(output.text) ||
          joinSource(data?.['text/markdown']) ||
          joinSource(data?.['text/plain']) ||
          (output.output_type === 'error' ? `${String(output.ename)}: ${String(output.evalue)}` : '');
        if (result.trim()) out.push(fence(result.trim(), 'text'));
      }
    }
  }
  return out.join('\n\n');
}

const MAX_JSON_LINES = 200_000;

/** JSON as an outline: `- key: value`, nested objects and arrays indented. */
export function jsonToMarkdown(ctx: ConvertContext, text: string): string {
  const value = parseJson(ctx, text, 'JSON');
  const lines: string[] = [];
  const scalar = (v: unknown) => (v === null ? 'null' : typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : String(v));
  const walk = (v: unknown, depth: number, label: string) => {
    if (lines.length > MAX_JSON_LINES) {
      throw new ConversionError(
        'conversion_bound',
        `conversion stopped: ${ctx.filename} has more than ${MAX_JSON_LINES.toLocaleString('en-US')} values.`,
      );
    }
    if (depth > ctx.maxDepth) {
      throw new ConversionError('conversion_bound', `conversion stopped: ${ctx.filename} is nested deeper than ${ctx.maxDepth} levels.`);
    }
    const indent = '  '.repeat(Math.max(0, depth - 1));
    const prefix = label ? `${label}:` : '';
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((item, i) => [String(i + 1), item] as const) : Object.entries(v);
      if (depth > 0) lines.push(`${indent}- ${prefix || '(item)'}`.trimEnd());
      for (const [key, item] of entries) walk(item, depth + 1, Array.isArray(v) ? `${key}.` : `**${key}**`);
    } else lines.push(`${indent}- ${prefix} ${scalar(v)}`.replace(/- {2}/, '- '));
  };
  walk(value, 0, '');
  return lines.map((l) => l.replace(/^(\s*)- (\d+\.):/, '$1- $2')).join('\n');
}

function feedItemToMarkdown(ctx: ConvertContext, item: XmlNode): string {
  const field = (...names: string[]) => {
    const node = names.map((n) => childrenNamed(item, n)[0]).find(Boolean);
    return node ? textOf(node).trim() : '';
  };
  const title = squash(field('title')) || '(untitled)';
  const link = field('link') || attr(childrenNamed(item, 'link')[0] ?? item, 'href') || '';
  const date = field('pubDate', 'published', 'updated', 'dc:date');
  const author = squash(field('author', 'dc:creator'));
  const summary = field('content:encoded', 'content', 'description', 'summary');
  const body = /<[a-z][\s\S]*>/i.test(summary)
    ? htmlToMarkdown(summary, { tables: !ctx.skipOcr, maxDepth: ctx.maxDepth, titleHeading: false, mainContent: false })
    : summary;
  return [
    `## ${title}`,
    [link && `- Link: ${link}`, date && `- Date: ${date}`, author && `- Author: ${author}`].filter(Boolean).join('\n'),
    body,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Element text under its path, for XML that is not a feed. */
function genericXml(root: XmlNode): string {
  const lines: string[] = [];
  const walk = (node: XmlNode, depth: number) => {
    const elements = node.children.filter((c) => c.text === undefined);
    const own = squash(
      node.children
        .filter((c) => c.text !== undefined)
        .map((c) => c.text)
        .join(' '),
    );
    const attributes = Object.entries(node.attrs).filter(([k]) => !k.startsWith('xmlns'));
    if (node.name !== '#document') {
      const label = `${'  '.repeat(Math.max(0, depth - 1))}- ${localName(node.name)}`;
      const attrText = attributes.length ? ` (${attributes.map(([k, v]) => `${localName(k)}: ${v}`).join(', ')})` : '';
      lines.push(`${label}${attrText}${own ? `: ${own}` : ''}`);
    }
    for (const child of elements) walk(child, depth + 1);
  };
  walk(root, 0);
  return lines.join('\n');
}

export function xmlToMarkdown(ctx: ConvertContext, text: string): string {
  const root = parseXml(text, ctx.filename, ctx.maxDepth);
  const rss = findFirst(root, 'rss', 'rdf:RDF');
  const atom = root.children.find((c) => localName(c.name) === 'feed');
  if (rss || atom) {
    const channel = rss ? (findFirst(rss, 'channel') ?? rss) : atom!;
    const title = squash(textOf(childrenNamed(channel, 'title')[0] ?? { name: '', attrs: {}, children: [] }));
    const items = findAll(rss ?? atom!, 'item', 'entry');
    return [title ? `# ${title}` : '', ...items.map((item) => feedItemToMarkdown(ctx, item))].filter(Boolean).join('\n\n');
  }
  return genericXml(root);
}
