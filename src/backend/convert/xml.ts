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

function build(items: Ordered): XmlNode[] {
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
        out.push({ name: key, attrs: (item[':@'] as Record<string, string>) ?? {}, children: build(value as Ordered) });
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
