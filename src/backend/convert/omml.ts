/**
 * Office Math (OMML, `m:oMath`) as LaTeX-style text: fractions, scripts, radicals, delimiters,
 * n-ary operators (sums, integrals), functions, matrices and equation arrays. Word documents keep
 * equations in OMML, which mammoth drops; the DOCX converter puts this text in their place.
 */
import { findAll, localName, parseXml, textOf, type XmlNode } from './xml';

const NARY: Record<string, string> = {
  '∑': '\\sum',
  '∏': '\\prod',
  '∫': '\\int',
  '∬': '\\iint',
  '∭': '\\iiint',
  '∮': '\\oint',
  '⋃': '\\bigcup',
  '⋂': '\\bigcap',
};

function child(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((c) => localName(c.name) === name);
}

function prop(node: XmlNode, pr: string, name: string): string | undefined {
  const props = child(node, pr);
  const item = props ? child(props, name) : undefined;
  return item ? Object.entries(item.attrs).find(([k]) => localName(k) === 'val')?.[1] : undefined;
}

function arg(node: XmlNode | undefined): string {
  return node ? latex(node) : '';
}

function group(text: string): string {
  return text.length === 1 ? text : `{${text}}`;
}

export function latex(node: XmlNode): string {
  if (node.text !== undefined) return '';
  switch (localName(node.name)) {
    case 'r':
      return findAll(node, 't').map(textOf).join('');
    case 'f':
      return `\\frac{${arg(child(node, 'num'))}}{${arg(child(node, 'den'))}}`;
    case 'sSup':
      return `${group(arg(child(node, 'e')))}^${group(arg(child(node, 'sup')))}`;
    case 'sSub':
      return `${group(arg(child(node, 'e')))}_${group(arg(child(node, 'sub')))}`;
    case 'sSubSup':
      return `${group(arg(child(node, 'e')))}_${group(arg(child(node, 'sub')))}^${group(arg(child(node, 'sup')))}`;
    case 'sPre':
      return `{}_${group(arg(child(node, 'sub')))}^${group(arg(child(node, 'sup')))}${arg(child(node, 'e'))}`;
    case 'rad': {
      const degree = arg(child(node, 'deg'));
      return `\\sqrt${degree ? `[${degree}]` : ''}{${arg(child(node, 'e'))}}`;
    }
    case 'd': {
      const open = prop(node, 'dPr', 'begChr') ?? '(';
      const close = prop(node, 'dPr', 'endChr') ?? ')';
      const separator = prop(node, 'dPr', 'sepChr') ?? ',';
      return `${open}${node.children
        .filter((c) => localName(c.name) === 'e')
        .map(latex)
        .join(separator)}${close}`;
    }
    case 'nary': {
      const chr = prop(node, 'naryPr', 'chr') ?? '∫';
      const sub = arg(child(node, 'sub'));
      const sup = arg(child(node, 'sup'));
      return `${NARY[chr] ?? chr}${sub ? `_${group(sub)}` : ''}${sup ? `^${group(sup)}` : ''} ${arg(child(node, 'e'))}`;
    }
    case 'func': {
      const name = arg(child(node, 'fName')).trim();
      return `${/^[a-z]+$/.test(name) ? `\\${name}` : name} ${arg(child(node, 'e'))}`;
    }
    case 'limLow':
      return `${arg(child(node, 'e'))}_${group(arg(child(node, 'lim')))}`;
    case 'limUpp':
      return `${arg(child(node, 'e'))}^${group(arg(child(node, 'lim')))}`;
    case 'm':
      return `\\begin{matrix}${node.children
        .filter((c) => localName(c.name) === 'mr')
        .map((row) =>
          row.children
            .filter((c) => localName(c.name) === 'e')
            .map(latex)
            .join(' & '),
        )
        .join(' \\\\ ')}\\end{matrix}`;
    case 'eqArr':
      return node.children
        .filter((c) => localName(c.name) === 'e')
        .map(latex)
        .join(' \\\\ ');
    case 'bar':
      return `\\overline{${arg(child(node, 'e'))}}`;
    case 'acc': {
      const chr = prop(node, 'accPr', 'chr') ?? '^';
      const command = chr === '̂' || chr === '^' ? '\\hat' : chr === '̃' ? '\\tilde' : chr === '̇' ? '\\dot' : chr === '⃗' ? '\\vec' : '\\hat';
      return `${command}{${arg(child(node, 'e'))}}`;
    }
    case 'rPr':
    case 'ctrlPr':
    case 'fPr':
    case 'radPr':
    case 'dPr':
    case 'naryPr':
    case 'sSupPr':
    case 'sSubPr':
    case 'sSubSupPr':
    case 'funcPr':
    case 'oMathParaPr':
    case 'mPr':
    case 'accPr':
    case 'barPr':
    case 'eqArrPr':
    case 'limLowPr':
    case 'limUppPr':
      return '';
    default:
      return node.children.map(latex).join('');
  }
}

export const MATH_NAMESPACE = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
export const WORD_NAMESPACE = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** LaTeX-style text of one `<m:oMath>` or `<m:oMathPara>` element's XML. */
export function ommlToLatex(xml: string, maxDepth: number, prefixes: { m: string[]; w: string } = { m: ['m'], w: 'w' }): string {
  // The fragment's prefixes, declared with their namespaces: read as m: and w: whatever they are.
  const declared = prefixes.m.map((m) => `xmlns:${m}="${MATH_NAMESPACE}"`).join(' ');
  const root = parseXml(`<root ${declared} xmlns:${prefixes.w}="${WORD_NAMESPACE}">${xml}</root>`, 'an equation', maxDepth);
  const maths = findAll(root, 'm:oMath');
  return maths.map((m) => latex(m).replace(/\s+/g, ' ').trim()).join(' ');
}
