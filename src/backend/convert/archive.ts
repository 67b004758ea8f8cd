/**
 * `.zip` archives: each member converted by its own type under `## <path>`, after the archive
 * passed the bomb check (unpacked size, part count, XML depth). Members that cannot be converted
 * are named in the notes; a ZIP inside a ZIP is not opened.
 */
import path from 'node:path';
import type { ConvertContext } from './context';
import { note, progress } from './context';
import { ConversionError } from './errors';
import { openPackage } from './zipPackage';

/** Converts one member (set by index.ts, which knows every format). */
export type MemberConverter = (ctx: ConvertContext, data: Uint8Array) => Promise<string>;

export async function zipToMarkdown(ctx: ConvertContext, data: Uint8Array, convertMember: MemberConverter): Promise<string> {
  if (ctx.archiveDepth >= 1) {
    note(ctx, `${ctx.filename} is a ZIP inside a ZIP and was not opened; attach it on its own.`);
    return '';
  }
  const pkg = await openPackage(ctx, data, 'ZIP');
  const out: string[] = [];
  const failed: string[] = [];
  for (const name of pkg.names()) {
    const base = path.posix.basename(name);
    // Operating-system litter, not documents.
    if (name.startsWith('__MACOSX/') || base === '.DS_Store' || base === 'Thumbs.db' || base === 'desktop.ini') continue;
    const bytes = await pkg.bytes(name);
    if (!bytes?.length) continue;
    const member: ConvertContext = { ...ctx, filename: `${ctx.filename}/${name}`, archiveDepth: ctx.archiveDepth + 1, notes: ctx.notes };
    progress(member, `converting ${member.filename}`);
    try {
      const markdown = (await convertMember(member, bytes)).trim();
      if (markdown) out.push(`## ${name}\n\n${markdown.replace(/^(#{1,5}) /gm, '#$1 ')}`);
    } catch (error) {
      if (!(error instanceof ConversionError) || error.code === 'conversion_bound') throw error;
      failed.push(`${name} (${error.message})`);
    } finally {
      // The OCR bounds are the archive's: the images read and a stop carry over to the next member.
      ctx.ocrImages = member.ocrImages;
      ctx.ocrStopped = member.ocrStopped;
    }
  }
  if (failed.length) note(ctx, `these files in ${ctx.filename} were not converted: ${failed.join('; ')}`);
  if (!out.length && failed.length) {
    throw new ConversionError('no_text', `${ctx.filename} holds no file that DocChat can convert: ${failed.join('; ')}.`);
  }
  return out.join('\n\n');
}
