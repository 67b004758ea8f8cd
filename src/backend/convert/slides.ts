/**
 * Presentations: PPTX (PresentationML read directly) and ODP (ODF). Each slide becomes
 * `## Slide N: <title>` with its text, tables, chart titles and values, picture alt text (and the
 * text OCR reads in its pictures) and, last, its speaker notes, so a passage names its slide.
 */
import path from 'node:path';
import type { ConvertContext } from './context';
import { ConversionError } from './errors';
import { markdownTable } from './markdown';
import { slideComments } from './comments';
import { chartToMarkdown } from './charts';
import { readImage } from './ocr';
import { odfTableRows, odfText } from './sheets';
import { openPackage, relationships, type Package } from './zipPackage';
import { attr, childrenNamed, findAll, findFirst, localName, squash, textOf, type XmlNode } from './xml';

/** Paragraph texts of a DrawingML text body (`a:p` with `a:t` runs and `a:br` breaks). */
function paragraphs(body: XmlNode): string[] {
  return findAll(body, 'a:p')
    .map((p) => {
      let out = '';
      const walk = (node: XmlNode) => {
        if (node.name === 'a:t') out += textOf(node);
        else if (node.name === 'a:br') out += '\n';
        else node.children.forEach(walk);
      };
      walk(p);
      return out.trim();
    })
    .filter(Boolean);
}

async function pictureText(ctx: ConvertContext, pkg: Package, target: string | undefined, where: string): Promise<string> {
  if (!target) return '';
  const bytes = await pkg.bytes(target);
  if (!bytes) return '';
  return readImage(ctx, bytes, `${ctx.filename} (${where}, ${path.posix.basename(target)})`, `a picture on ${where} was not read`);
}

/** One slide's shapes in document order. */
async function slideBody(ctx: ConvertContext, pkg: Package, part: string, label: string): Promise<{ title: string; body: string[] }> {
  const xml = await pkg.xml(part);
  if (!xml) return { title: '', body: [] };
  const rels = await relationships(pkg, part);
  let title = '';
  const body: string[] = [];
  const tree = findFirst(xml, 'p:spTree');
  const shapes: XmlNode[] = [];
  const collect = (node: XmlNode) => {
    for (const child of node.children) {
      if (child.name === 'p:grpSp') collect(child);
      else if (['p:sp', 'p:graphicFrame', 'p:pic'].includes(child.name)) shapes.push(child);
    }
  };
  if (tree) collect(tree);
  for (const shape of shapes) {
    if (shape.name === 'p:sp') {
      const placeholder = attr(findFirst(shape, 'p:ph') ?? { name: '', attrs: {}, children: [] }, 'type') ?? '';
      const texts = paragraphs(findFirst(shape, 'p:txBody') ?? { name: '', attrs: {}, children: [] });
      if (['sldNum', 'dt', 'ftr'].includes(placeholder)) continue;
      if ((placeholder === 'title' || placeholder === 'ctrTitle') && !title) title = squash(texts.join(' '));
      else if (texts.length) body.push(texts.join('\n\n'));
    } else if (shape.name === 'p:pic') {
      const alt = squash(attr(findFirst(shape, 'p:cNvPr') ?? shape, 'descr') ?? '');
      if (alt) body.push(`[image: ${alt}]`);
      const embed = attr(findFirst(shape, 'a:blip') ?? shape, 'r:embed');
      const text = await pictureText(ctx, pkg, embed ? rels.get(embed)?.target : undefined, label);
      if (text) body.push(text);
    } else {
      const table = findFirst(shape, 'a:tbl');
      if (table) {
        const rows = findAll(table, 'a:tr').map((tr) => findAll(tr, 'a:tc').map((tc) => paragraphs(tc).join('\n')));
        if (rows.length) body.push(markdownTable(rows, !ctx.skipOcr));
      }
      const chartRef = findFirst(shape, 'c:chart');
      const chartId = chartRef ? attr(chartRef, 'r:id') : undefined;
      const chartPart = chartId ? rels.get(chartId)?.target : undefined;
      const chart = chartPart ? await pkg.xml(chartPart) : undefined;
      if (chart) body.push(chartToMarkdown(chart));
    }
  }
  // No title placeholder (slides made by tools that use plain text boxes): a short first line is the title.
  if (!title && body[0] && !body[0].includes('\n') && body[0].length <= 120 && !body[0].startsWith('|') && !body[0].startsWith('[')) {
    title = body.shift()!;
  }
  return { title, body };
}

export async function pptxToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const pkg = await openPackage(ctx, data, 'PPTX');
  const presentation = await pkg.xml('ppt/presentation.xml');
  if (!presentation) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt PPTX file and cannot be read (it has no presentation part).`);
  }
  const rels = await relationships(pkg, 'ppt/presentation.xml');
  const out: string[] = [];
  let number = 0;
  for (const id of findAll(presentation, 'p:sldId')) {
    const part = rels.get(attr(id, 'r:id') ?? '')?.target;
    if (!part) continue;
    number++;
    const label = `slide ${number}`;
    const { title, body } = await slideBody(ctx, pkg, part, label);
    const sections = [`## Slide ${number}${title ? `: ${title}` : ''}`, ...body];
    const comments = await slideComments(pkg, part);
    if (comments) sections.push(comments);
    const notesPart = [...(await relationships(pkg, part)).values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
    if (notesPart) {
      const notes = await slideBody({ ...ctx, skipOcr: true, notes: [] }, pkg, notesPart, label);
      const text = [notes.title, ...notes.body].filter(Boolean).join('\n\n').trim();
      if (text) sections.push(`### Speaker notes\n\n${text}`);
    }
    out.push(sections.join('\n\n'));
  }
  return out.join('\n\n');
}

/** ODF text content (text:h, text:p, lists, tables, frames with their descriptions) as markdown blocks. */
export function odfBlocks(ctx: ConvertContext, node: XmlNode): string[] {
  const out: string[] = [];
  const walk = (current: XmlNode, listDepth: number) => {
    for (const child of current.children) {
      const local = localName(child.name);
      if (child.name === 'text:h') {
        const level = Math.min(6, Math.max(1, Number(attr(child, 'text:outline-level') ?? 1)));
        const text = squash(odfText(child));
        if (text) out.push(`${'#'.repeat(level)} ${text}`);
      } else if (child.name === 'text:p') {
        const text = odfText(child).trim();
        if (text) out.push(listDepth ? `${'  '.repeat(listDepth - 1)}- ${squash(text)}` : text);
        for (const frame of findAll(child, 'draw:frame')) walk({ ...frame, children: frame.children }, listDepth);
      } else if (child.name === 'text:list') walk(child, listDepth + 1);
      else if (child.name === 'table:table') {
        const rows = odfTableRows(ctx, child, attr(child, 'table:name') ?? 'table');
        if (rows.length) out.push(markdownTable(rows, !ctx.skipOcr));
      } else if (local === 'desc' || local === 'title') {
        const text = squash(textOf(child));
        if (text && (child.name === 'svg:desc' || child.name === 'svg:title')) out.push(`[image: ${text}]`);
      } else if (child.name === 'office:annotation') {
        const text = squash(childrenNamed(child, 'p').map(odfText).join(' '));
        if (text) out.push(`> Comment: ${text}`);
      } else if (child.name === 'text:note') {
        const text = squash(odfText(findFirst(child, 'text:note-body') ?? child));
        if (text) out.push(`> Note: ${text}`);
      } else if (!['presentation:notes', 'text:tracked-changes', 'office:forms', 'text:sequence-decls'].includes(child.name)) {
        walk(child, listDepth);
      }
    }
  };
  walk(node, 0);
  return out;
}

export async function odpToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const pkg = await openPackage(ctx, data, 'ODP');
  const content = await pkg.xml('content.xml');
  if (!content) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt ODP file and cannot be read (it has no content.xml).`);
  }
  const out: string[] = [];
  for (const [i, page] of findAll(content, 'draw:page').entries()) {
    let title = '';
    const body: string[] = [];
    for (const frame of childrenNamed(page, 'frame', 'custom-shape', 'g')) {
      const blocks = odfBlocks(ctx, frame);
      if (!title && attr(frame, 'presentation:class') === 'title') title = squash(blocks.join(' '));
      else body.push(...blocks);
      // Pictures: OCR their text, like pictures on a PowerPoint slide.
      for (const image of findAll(frame, 'draw:image')) {
        const text = await odfPictureText(ctx, pkg, attr(image, 'xlink:href'), `slide ${i + 1}`);
        if (text) body.push(text);
      }
    }
    const sections = [`## Slide ${i + 1}${title ? `: ${title}` : ''}`, ...body];
    const notes = findFirst(page, 'presentation:notes');
    if (notes) {
      const text = odfBlocks(ctx, notes).join('\n\n').trim();
      if (text) sections.push(`### Speaker notes\n\n${text}`);
    }
    out.push(sections.join('\n\n'));
  }
  return out.join('\n\n');
}

/** The text OCR reads in an ODF package's picture (`Pictures/…`); nothing for a linked one. */
async function odfPictureText(ctx: ConvertContext, pkg: Package, href: string | undefined, where: string): Promise<string> {
  if (!href || /^[a-z][a-z0-9+.-]*:/i.test(href)) return '';
  const bytes = await pkg.bytes(href.replace(/^\.\//, ''));
  if (!bytes) return '';
  return readImage(ctx, bytes, `${ctx.filename} (${where}, ${path.posix.basename(href)})`, `a picture on ${where} was not read`);
}

export async function odtToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const pkg = await openPackage(ctx, data, 'ODT');
  const content = await pkg.xml('content.xml');
  const body = content ? findFirst(content, 'office:text') : undefined;
  if (!body) throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt ODT file and cannot be read (it has no text body).`);
  const blocks = odfBlocks(ctx, body);
  // Pictures: OCR their text, like pictures in any document.
  for (const frame of findAll(body, 'draw:image')) {
    const href = attr(frame, 'xlink:href');
    if (!href || /^[a-z]+:/i.test(href)) continue;
    const bytes = await pkg.bytes(href);
    if (!bytes) continue;
    const text = await readImage(ctx, bytes, `${ctx.filename} (${href})`, `a picture (${path.posix.basename(href)}) was not read`);
    if (text) blocks.push(text);
  }
  return blocks.join('\n\n');
}
