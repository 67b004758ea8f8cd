/**
 * DOCX via mammoth (to HTML) and turndown (to markdown): headings, lists, tables, links,
 * automatic heading and list numbering ("2.3.2 Software constraints"), footnotes and endnotes, charts (title and series as a table), comments (as a "Comments" list), equations (OMML as LaTeX-style text,
 * put in place before mammoth reads the document), pictures (their alt text, and the text OCR
 * reads in them unless OCR is skipped), and the text of page headers and footers (which mammoth
 * drops), before and after the body.
 */
import type { ConvertContext } from './context';
import { chartToMarkdown } from './charts';
import { ConversionError } from './errors';
import { htmlToMarkdown } from './html';
import { ocrSkippedMessage, readImage } from './ocr';
import { readNumbering, withNumbersAsText } from './numbering';
import { MATH_NAMESPACE, ommlToLatex, WORD_NAMESPACE } from './omml';
import { localName, type XmlNode } from './xml';
import { openPackage, relationships, type Package } from './zipPackage';

/** The prefixes a part declares for `namespace` (files written by other tools use other prefixes). */
function prefixesOf(xml: string, namespace: string, fallback: string): string[] {
  const escaped = namespace.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const found = [...xml.matchAll(new RegExp(`xmlns:([\\w.-]+)=["']${escaped}["']`, 'g'))].map((m) => m[1]!);
  return found.length ? [...new Set(found)] : [fallback];
}

/** Every equation of a part: `<m:oMathPara>…` or `<m:oMath>…`, with each prefix the part uses for the math namespace. */
function mathPattern(prefixes: string[]): RegExp {
  const m = `(?:${prefixes.map((p) => p.replace(/\./g, '\\.')).join('|')})`;
  return new RegExp(`<(${m}):oMathPara\\b[\\s\\S]*?<\\/\\1:oMathPara>|<(${m}):oMath\\b[\\s\\S]*?<\\/\\2:oMath>`, 'g');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The package with every equation replaced by a run of its LaTeX-style text (`$…$`) and every
 * automatic heading or list number written as text; the input when there are none.
 */
async function withEquationsAsText(
  ctx: ConvertContext,
  data: Uint8Array,
): Promise<{ source: Uint8Array; charts: Map<string, string>; margins: { headers: string[]; footers: string[] } }> {
  const pkg = await openPackage(ctx, data, 'DOCX');
  const margins = await headersAndFooters(pkg);
  let changed = false;
  const charts = new Map<string, string>();
  const numberingPart = await pkg.xml('word/numbering.xml');
  const numbering = numberingPart ? readNumbering(numberingPart, await pkg.xml('word/styles.xml')) : undefined;
  for (const part of ['word/document.xml', 'word/footnotes.xml', 'word/endnotes.xml', 'word/comments.xml']) {
    const xml = await pkg.text(part);
    if (!xml) continue;
    const prefixes = { m: prefixesOf(xml, MATH_NAMESPACE, 'm'), w: prefixesOf(xml, WORD_NAMESPACE, 'w')[0]! };
    let numbered = part === 'word/document.xml' && numbering ? withNumbersAsText(xml, numbering, prefixes.w) : xml;
    if (part === 'word/document.xml') numbered = await withChartsMarked(pkg, numbered, prefixes.w, charts);
    const math = mathPattern(prefixes.m);
    if (!math.test(numbered)) {
      if (numbered !== xml) {
        pkg.zip.file(part, numbered);
        changed = true;
      }
      continue;
    }
    math.lastIndex = 0;
    const replaced = numbered.replace(math, (equation) => {
      const text = ommlToLatex(equation, ctx.maxDepth, prefixes);
      const w = prefixes.w;
      return text ? `<${w}:r><${w}:t xml:space="preserve">$${escapeXml(text)}$</${w}:t></${w}:r>` : '';
    });
    pkg.zip.file(part, replaced);
    changed = true;
  }
  return { source: changed ? await pkg.zip.generateAsync({ type: 'uint8array' }) : data, charts, margins };
}

/**
 * A paragraph's text as Word shows it: its text runs, tabs and breaks as spaces; not field codes
 * (`PAGE`), deleted text, or the fallback copy of a drawing (its text box is read once).
 */
function paragraphText(node: XmlNode): string {
  let out = '';
  const walk = (n: XmlNode) => {
    const name = localName(n.name);
    if (name === 'instrText' || name === 'delText' || name === 'delInstrText' || name === 'Fallback') return;
    if (name === 't') {
      for (const child of n.children) out += child.text ?? '';
      return;
    }
    if (name === 'tab' || name === 'br' || name === 'cr') out += ' ';
    for (const child of n.children) walk(child);
  };
  walk(node);
  return out.replace(/\s+/g, ' ').trim();
}

/** The paragraphs of a part (a text box's paragraphs inside a paragraph are their own). */
function paragraphsOf(root: XmlNode): string[] {
  const out: string[] = [];
  const walk = (n: XmlNode) => {
    if (localName(n.name) === 'p') {
      const nested = n.children.some(function has(c: XmlNode): boolean {
        return localName(c.name) === 'p' || c.children.some(has);
      });
      if (!nested) {
        out.push(paragraphText(n));
        return;
      }
    }
    if (localName(n.name) === 'Fallback') return;
    for (const child of n.children) walk(child);
  };
  walk(root);
  return out;
}

/**
 * The text of the document's page headers and footers (mammoth reads neither): each paragraph
 * with a letter in it once, in the order the parts are related to the document (a first-page and
 * a default header that say the same are one). A page number alone is left out.
 */
async function headersAndFooters(pkg: Package): Promise<{ headers: string[]; footers: string[] }> {
  const headers: string[] = [];
  const footers: string[] = [];
  const seen = new Set<string>();
  for (const rel of (await relationships(pkg, 'word/document.xml')).values()) {
    const kind = rel.type.split('/').pop();
    if (rel.external || (kind !== 'header' && kind !== 'footer')) continue;
    const root = await pkg.xml(rel.target);
    if (!root) continue;
    for (const text of paragraphsOf(root)) {
      if (!/\p{L}/u.test(text) || seen.has(text)) continue;
      seen.add(text);
      (kind === 'header' ? headers : footers).push(text);
    }
  }
  return { headers, footers };
}

/**
 * Charts, which mammoth drops: each drawing that shows a chart is replaced by a marker word, and
 * `charts` maps the marker to the chart's text (title, series table) put in its place after conversion.
 */
async function withChartsMarked(pkg: Package, xml: string, w: string, charts: Map<string, string>): Promise<string> {
  const drawing = new RegExp(`<${w}:drawing\\b[\\s\\S]*?</${w}:drawing>`, 'g');
  const found = [...xml.matchAll(drawing)].filter((m) => /<[\w.-]+:chart\b/.test(m[0]));
  if (!found.length) return xml;
  const rels = await relationships(pkg, 'word/document.xml');
  const texts = new Map<string, string>();
  for (const match of found) {
    const id = /<[\w.-]+:chart\b[^>]*?\s[\w.-]+:id=["']([^"']+)["']/.exec(match[0])?.[1];
    const rel = id ? rels.get(id) : undefined;
    const chart = rel && !rel.external ? await pkg.xml(rel.target) : undefined;
    if (!chart) continue;
    const marker = `DocChatChart${charts.size + 1}x${Math.random().toString(36).slice(2, 10)}`;
    charts.set(marker, chartToMarkdown(chart));
    texts.set(match[0], marker);
  }
  return xml.replace(drawing, (whole) => (texts.has(whole) ? `<${w}:t xml:space="preserve">${texts.get(whole)}</${w}:t>` : whole));
}

export async function docxToMarkdown(ctx: ConvertContext, data: Uint8Array): Promise<string> {
  const { source, charts, margins } = await withEquationsAsText(ctx, data);
  const mammoth = (await import('mammoth')).default;
  let images = 0;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(source) },
      {
        // Comments: mammoth keeps them only with a style mapping for their references.
        styleMap: ['comment-reference => sup'],
        convertImage: mammoth.images.imgElement(async (image) => {
          images++;
          const bytes = await image.readAsBuffer();
          const text = await readImage(ctx, bytes, `${ctx.filename} (picture ${images})`, `picture ${images} was not read`);
          // mammoth adds the picture's alt text itself.
          const attributes: Record<string, string> = { src: '' };
          if (text) attributes['data-ocr'] = text;
          return attributes as { src: string };
        }),
      },
    );
    html = result.value;
  } catch (error) {
    if (error instanceof ConversionError) throw error;
    throw new ConversionError(
      'corrupt_file',
      `${ctx.filename} is a corrupt DOCX file and cannot be read (${(error as Error)?.message ?? error}).`,
    );
  }
  let markdown = htmlToMarkdown(html, { tables: !ctx.skipOcr, maxDepth: ctx.maxDepth, mainContent: false });
  for (const [marker, chart] of charts) markdown = markdown.replace(marker, () => `\n\n${chart}\n\n`).replace(/\n{3,}/g, '\n\n');
  if (markdown.trim() && (margins.headers.length || margins.footers.length)) {
    const escape = (text: string) => text.replace(/([\\`*_[\]<>#|])/g, '\\$1');
    markdown = [...margins.headers.map(escape), markdown.trim(), ...margins.footers.map(escape)].join('\n\n');
  }
  if (!markdown.trim()) {
    if (images > 0 && ctx.skipOcr) {
      throw new ConversionError('ocr_skipped', ocrSkippedMessage(ctx.filename, 'the document contains only images'));
    }
    if (images > 0) throw new ConversionError('no_text', `${ctx.filename} contains only images, and OCR found no text in them.`);
    throw new ConversionError('no_text', `${ctx.filename} contains no text.`);
  }
  return markdown;
}
