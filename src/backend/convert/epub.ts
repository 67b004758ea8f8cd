/** EPUB: the OPF spine's XHTML documents in reading order, each through the HTML converter. */
import path from 'node:path';
import type { ConvertContext } from './context';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
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
  const creator = squash(textOf(findFirst(opf, 'dc:creator') ?? { name: '', attrs: {}, children: [] }));
  const out: string[] = [];
  if (title) out.push(`# ${title}${creator ? `\n\n${creator}` : ''}`);
  for (const ref of findAll(opf, 'itemref')) {
    const href = items.get(attr(ref, 'idref') ?? '');
    if (!href) continue;
    const html = await pkg.text(path.posix.normalize(path.posix.join(dir, decodeURIComponent(href))));
    if (!html) continue;
    // The chapter's <title> repeats its heading; the XML prolog is not HTML.
    const body = html.replace(/<\?xml[^>]*>/, '').replace(/<head[\s>][\s\S]*?<\/head>/i, '');
    const markdown = htmlToMarkdown(body, { tables: !ctx.skipOcr, maxDepth: ctx.maxDepth, titleHeading: false });
    if (markdown.trim()) out.push(markdown);
  }
  return out.join('\n\n');
}
