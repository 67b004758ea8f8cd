/**
 * EPUB: the OPF spine's XHTML documents in reading order, each through the HTML converter, each
 * followed by the text OCR reads in its pictures (bounded like pictures in any document).
 */
import path from 'node:path';
import type { ConvertContext } from './context';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { readImage } from './ocr';
import { openPackage } from './zipPackage';
import { attr, findAll, findFirst, squash, textOf } from './xml';

export async function epubToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const pkg = await openPackage(ctx, data, 'EPUB');
  const container = await pkg.xml('META-INF/container.xml');
  const opfPath = container ? attr(findFirst(container, 'rootfile') ?? container, 'full-path') : undefined;
  const opf = opfPath ? await pkg.xml(opfPath) : undefined;
  if (!opf || !opfPath) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt EPUB file and cannot be read (it has no package document).`);
  }
  const dir = path.posix.dirname(opfPath);
  const items = new Map(findAll(opf, 'item').map((item) => [attr(item, 'id') ?? '', attr(item, 'href') ?? '']));
  const title = squash(textOf(findFirst(opf, 'dc:title') ?? { name: '', attrs: {}, children: [] }));
  const metadata = findFirst(opf, 'opf:metadata', 'metadata') ?? opf;
  const authors = findAll(metadata, 'dc:creator')
    .map((node) => squash(textOf(node)))
    .filter(Boolean);
  // A description may hold HTML (escaped in the package): read as text.
  const description = findAll(metadata, 'dc:description')
    .map((node) => squash(htmlToMarkdown(textOf(node), { tables: false, maxDepth: ctx.maxDepth, titleHeading: false, mainContent: false })))
    .filter(Boolean);
  const out: string[] = [];
  const about = [
    authors.length ? `- ${authors.length > 1 ? 'Authors' : 'Author'}: ${authors.join(', ')}` : '',
    ...description.map((text) => `- Description: ${text}`),
  ].filter(Boolean);
  if (title || about.length) out.push([title ? `# ${title}` : '', about.join('\n')].filter(Boolean).join('\n\n'));
  for (const ref of findAll(opf, 'itemref')) {
    const href = items.get(attr(ref, 'idref') ?? '');
    if (!href) continue;
    const chapter = path.posix.normalize(path.posix.join(dir, decodeURIComponent(href)));
    const html = await pkg.text(chapter);
    if (!html) continue;
    // The chapter's <title> repeats its heading; the XML prolog is not HTML.
    const body = html.replace(/<\?xml[^>]*>/, '').replace(/<head[\s>][\s\S]*?<\/head>/i, '');
    const markdown = htmlToMarkdown(body, { tables: !ctx.skipOcr, maxDepth: ctx.maxDepth, titleHeading: false });
    if (markdown.trim()) out.push(markdown);
    for (const source of pictureSources(body)) {
      const picture = path.posix.normalize(path.posix.join(path.posix.dirname(chapter), safeDecode(source)));
      const bytes = await pkg.bytes(picture);
      if (!bytes) continue;
      const where = path.posix.basename(chapter);
      const text = await readImage(
        ctx,
        bytes,
        `${ctx.filename} (${where}, ${path.posix.basename(picture)})`,
        `a picture in ${where} was not read`,
      );
      if (text) out.push(text);
    }
  }
  return out.join('\n\n');
}

/** The package-relative pictures of a chapter: `<img src>` and SVG `<image href>`, each once, in order; no linked (`http:`, `data:`) ones. */
function pictureSources(html: string): string[] {
  const sources = new Set<string>();
  for (const match of html.matchAll(/<(?:img|image)\b[^>]*?\s(?:src|href|xlink:href)\s*=\s*(["'])([^"'<>]{1,2000})\1/gi)) {
    const source = match[2]!.split('#')[0]!.trim();
    if (source && !/^[a-z][a-z0-9+.-]*:/i.test(source)) sources.add(source);
  }
  return [...sources];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
