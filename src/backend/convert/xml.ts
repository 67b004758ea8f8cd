/**
 * XML as a small tree (fast-xml-parser in document order), with the few walks the office, e-book
 * and feed converters need. Nesting is bounded before parsing (the parser recurses), and the
 * parser's own entity-expansion limits stop "billion laughs" documents.
 */
import { XMLParser } from 'fast-xml-parser';
import { xmlNestingDepth } from './depth';
import { ConversionError } from './errors';
import { DEFAULT_CONVERSION_LIMITS } from './limits';

export interface XmlNode {
  /** Qualified tag name (`a:t`); `#text` for text. */
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Text of a `#text` node. */
  text?: string;
}

type Ordered = Record<string, unknown>[];

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  htmlEntities: true,
  processEntities: true,
  cdataPropName: '#cdata',
});

/**
 * The prefix every reader uses for a namespace, whatever prefix (or default namespace) the file
 * declares: files written by other tools (openpyxl's unprefixed `<pic>`, `x:` for SpreadsheetML,
 * Strict OOXML's namespaces) read as Office writes them. Namespaces mapped to '' are unprefixed.
 */
const CANONICAL_PREFIX: Record<string, string> = {};
function canonical(prefix: string, ...uris: string[]): void {
  for (const uri of uris) CANONICAL_PREFIX[uri] = prefix;
}
const OOXML = 'http://schemas.openxmlformats.org/';
const STRICT = 'http://purl.oclc.org/ooxml/';
canonical('w', `${OOXML}wordprocessingml/2006/main`, `${STRICT}wordprocessingml/main`);
canonical('a', `${OOXML}drawingml/2006/main`, `${STRICT}drawingml/main`);
canonical('p', `${OOXML}presentationml/2006/main`, `${STRICT}presentationml/main`);
canonical('r', `${OOXML}officeDocument/2006/relationships`, `${STRICT}officeDocument/relationships`);
canonical('xdr', `${OOXML}drawingml/2006/spreadsheetDrawing`, `${STRICT}drawingml/spreadsheetDrawing`);
canonical('wp', `${OOXML}drawingml/2006/wordprocessingDrawing`, `${STRICT}drawingml/wordprocessingDrawing`);
canonical('pic', `${OOXML}drawingml/2006/picture`, `${STRICT}drawingml/picture`);
canonical('c', `${OOXML}drawingml/2006/chart`, `${STRICT}drawingml/chart`);
canonical('dgm', `${OOXML}drawingml/2006/diagram`, `${STRICT}drawingml/diagram`);
canonical('m', `${OOXML}officeDocument/2006/math`, `${STRICT}officeDocument/math`);
canonical('mc', `${OOXML}markup-compatibility/2006`);
canonical('cp', `${OOXML}package/2006/metadata/core-properties`);
canonical(
  '',
  `${OOXML}spreadsheetml/2006/main`,
  `${STRICT}spreadsheetml/main`,
  `${OOXML}package/2006/relationships`,
  `${OOXML}package/2006/content-types`,
  'http://www.w3.org/1999/xhtml',
  'urn:oasis:names:tc:opendocument:xmlns:container',
  'http://www.daisy.org/z3986/2005/ncx/',
);
const ODF = 'urn:oasis:names:tc:opendocument:xmlns:';
for (const name of ['office', 'text', 'table', 'style', 'presentation', 'meta', 'number', 'chart', 'form', 'script']) {
  canonical(name, `${ODF}${name}:1.0`);
}
canonical('draw', `${ODF}drawing:1.0`);
canonical('svg', `${ODF}svg-compatible:1.0`);
canonical('fo', `${ODF}xsl-fo-compatible:1.0`);
canonical('xlink', 'http://www.w3.org/1999/xlink');
canonical('dc', 'http://purl.org/dc/elements/1.1/');
canonical('dcterms', 'http://purl.org/dc/terms/');
canonical('opf', 'http://www.idpf.org/2007/opf');
canonical('epub', 'http://www.idpf.org/2007/ops');

type Scope = ReadonlyMap<string, string>;

/** `name` (`x:pic`, `pic`) with the canonical prefix of its namespace; as written when the namespace is unknown. */
function resolve(name: string, scope: Scope, isAttribute: boolean): string {
  const colon = name.indexOf(':');
  const prefix = colon < 0 ? '' : name.slice(0, colon);
  if (prefix === 'xmlns' || prefix === 'xml' || (isAttribute && !prefix)) return name;
  const uri = scope.get(prefix);
  if (uri === undefined) return name;
  const wanted = CANONICAL_PREFIX[uri];
  if (wanted === undefined) return name;
  const local = colon < 0 ? name : name.slice(colon + 1);
  return wanted ? `${wanted}:${local}` : local;
}

/** The namespaces in scope inside an element with these attributes. */
function extendScope(scope: Scope, attrs: Record<string, string> | undefined): Scope {
  if (!attrs) return scope;
  let next: Map<string, string> | undefined;
  for (const [key, value] of Object.entries(attrs)) {
    if (key !== 'xmlns' && !key.startsWith('xmlns:')) continue;
    next ??= new Map(scope);
    next.set(key === 'xmlns' ? '' : key.slice(6), value);
  }
  return next ?? scope;
}

function build(items: Ordered, scope: Scope = new Map()): XmlNode[] {
  const out: XmlNode[] = [];
  for (const item of items) {
    for (const key of Object.keys(item)) {
      if (key === ':@') continue;
      const value = item[key];
      if (key === '#text') out.push({ name: '#text', attrs: {}, children: [], text: String(value) });
      else if (key === '#cdata') {
        const text = build(value as Ordered)
          .map((n) => n.text ?? '')
          .join('');
        out.push({ name: '#text', attrs: {}, children: [], text });
      } else if (!key.startsWith('?') && !key.startsWith('!')) {
        const written = item[':@'] as Record<string, string> | undefined;
        const inner = extendScope(scope, written);
        const attrs: Record<string, string> = {};
        for (const [name, v] of Object.entries(written ?? {})) attrs[resolve(name, inner, true)] = v;
        out.push({ name: resolve(key, inner, false), attrs, children: build(value as Ordered, inner) });
      }
    }
  }
  return out;
}

/** Parses `xml`; `what` names the part in the error sentences (e.g. "slides.pptx (ppt/slides/slide1.xml)"). */
export function parseXml(xml: string, what: string, maxDepth = DEFAULT_CONVERSION_LIMITS.maxHtmlDepth): XmlNode {
  if (xmlNestingDepth(xml, maxDepth) > maxDepth) {
    throw new ConversionError(
      'conversion_bound',
      `conversion stopped: ${what} is nested deeper than ${maxDepth} elements. Save it as plain text (or with fewer nested levels) and attach it again.`,
    );
  }
  try {
    return { name: '#document', attrs: {}, children: build(parser.parse(xml) as Ordered) };
  } catch (error) {
    throw new ConversionError('corrupt_file', `${what} is not valid XML and cannot be read (${(error as Error)?.message ?? error}).`);
  }
}

/** The local part of a qualified name: `a:t` -> `t`. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Descendants (document order) whose qualified or local name is one of `names`; not below a match. */
export function findAll(node: XmlNode, ...names: string[]): XmlNode[] {
  const out: XmlNode[] = [];
  const stack: XmlNode[] = [...node.children].reverse();
  while (stack.length) {
    const current = stack.pop()!;
    if (names.includes(current.name) || names.includes(localName(current.name))) out.push(current);
    else for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i]!);
  }
  return out;
}

export function findFirst(node: XmlNode, ...names: string[]): XmlNode | undefined {
  return findAll(node, ...names)[0];
}

/** Direct children named so (qualified or local name). */
export function childrenNamed(node: XmlNode, ...names: string[]): XmlNode[] {
  return node.children.filter((c) => names.includes(c.name) || names.includes(localName(c.name)));
}

/** All text below `node`, concatenated. */
export function textOf(node: XmlNode): string {
  if (node.text !== undefined) return node.text;
  let out = '';
  const stack: XmlNode[] = [node];
  const parts: string[] = [];
  while (stack.length) {
    const current = stack.pop()!;
    if (current.text !== undefined) parts.push(current.text);
    else for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i]!);
  }
  out = parts.join('');
  return out;
}

/** An attribute by qualified or local name. */
export function attr(node: XmlNode, name: string): string | undefined {
  if (name in node.attrs) return node.attrs[name];
  for (const [key, value] of Object.entries(node.attrs)) if (localName(key) === name) return value;
  return undefined;
}

/** Collapses runs of white space to one space and trims. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
