/** ZIP packages (OOXML, ODF, EPUB, .zip): opened with jszip only after the bomb check passed. */
import path from 'node:path';
import type JSZip from 'jszip';
import { note, type ConvertContext } from './context';
import { ConversionError } from './errors';
import { attr, findAll, parseXml, type XmlNode } from './xml';
import { checkArchive } from './zipGuard';

export interface Package {
  zip: JSZip;
  label: string;
  filename: string;
  maxDepth: number;
  /** A part's text, or undefined when it is absent. */
  text(name: string): Promise<string | undefined>;
  bytes(name: string): Promise<Uint8Array | undefined>;
  /** A part parsed as XML, or undefined when it is absent. */
  xml(name: string): Promise<XmlNode | undefined>;
  /** Names of the files in the package, in archive order. */
  names(): string[];
}

export async function openPackage(ctx: ConvertContext, data: Uint8Array, label: string): Promise<Package> {
  await checkArchive(ctx.filename, data, { maxDepth: ctx.maxDepth, label });
  const JSZipClass = (await import('jszip')).default;
  let zip: JSZip;
  try {
    zip = await JSZipClass.loadAsync(data);
  } catch (error) {
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is a corrupt ${label} file and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  const find = (name: string) => zip.file(name.replace(/^\//, '')) ?? undefined;
  const pkg: Package = {
    zip,
    label,
    filename: ctx.filename,
    maxDepth: ctx.maxDepth,
    text: async (name) => find(name)?.async('string'),
    bytes: async (name) => find(name)?.async('uint8array'),
    xml: async (name) => {
      const text = await pkg.text(name);
      return text === undefined ? undefined : parseXml(text, `${ctx.filename} (${name})`, ctx.maxDepth);
    },
    names: () =>
      Object.values(zip.files)
        .filter((f) => !f.dir)
        .map((f) => f.name),
  };
  noteEmbeddedObjects(ctx, pkg);
  return pkg;
}

/** Objects embedded in an office file (a workbook in a slide, an equation object, an OLE package). */
const EMBEDDED_OBJECT = /^(?:(?:word|xl|ppt)\/embeddings\/|Object \d+\/content\.xml$|Object \d+$)/;

/** Embedded objects are not converted: the notes name them, so the reader knows what is missing. */
function noteEmbeddedObjects(ctx: ConvertContext, pkg: Package): void {
  if (pkg.label === 'ZIP' || pkg.label === 'EPUB') return;
  const objects = pkg.names().filter((name) => EMBEDDED_OBJECT.test(name));
  if (!objects.length) return;
  const named = objects.slice(0, 5).map((name) => (name.startsWith('Object ') ? name.split('/')[0] : path.posix.basename(name)));
  const more = objects.length > 5 ? ` and ${objects.length - 5} more` : '';
  note(
    ctx,
    `${ctx.filename} holds ${objects.length === 1 ? 'an embedded object' : `${objects.length} embedded objects`} (${named.join(', ')}${more}) that DocChat does not convert, so ${objects.length === 1 ? 'its' : 'their'} content is not indexed.`,
  );
}

/** Relationships of an OOXML part (`ppt/slides/slide1.xml` -> its `_rels/slide1.xml.rels`): id -> target part and type. */
export async function relationships(pkg: Package, part: string): Promise<Map<string, { target: string; type: string; external: boolean }>> {
  const dir = path.posix.dirname(part);
  const rels = await pkg.xml(path.posix.join(dir, '_rels', `${path.posix.basename(part)}.rels`));
  const out = new Map<string, { target: string; type: string; external: boolean }>();
  if (!rels) return out;
  for (const rel of findAll(rels, 'Relationship')) {
    const target = attr(rel, 'Target') ?? '';
    const external = attr(rel, 'TargetMode') === 'External';
    const resolved = external ? target : target.startsWith('/') ? target.slice(1) : path.posix.normalize(path.posix.join(dir, target));
    out.set(attr(rel, 'Id') ?? '', { target: resolved, type: attr(rel, 'Type') ?? '', external });
  }
  return out;
}

export function requireZip(ctx: ConvertContext, data: Uint8Array, label: string): void {
  if (!(data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04)) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is not a valid ${label} file: it is not a ZIP package.`);
  }
}

/** The `content.xml` of an ODF package (ODT, ODS, ODP), or the sentence saying it is missing. */
export async function odfContent(ctx: ConvertContext, data: Uint8Array, label: string): Promise<XmlNode> {
  const pkg = await openPackage(ctx, data, label);
  const content = await pkg.xml('content.xml');
  if (!content) {
    throw new ConversionError('corrupt_file', `${ctx.filename} is a corrupt ${label} file and cannot be read (it has no content.xml).`);
  }
  return content;
}
