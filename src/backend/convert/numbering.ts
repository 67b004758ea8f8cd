/**
 * Word's automatic numbering as text: headings and list items numbered by `word/numbering.xml`
 * ("2.3.2 Software constraints", "a) first", "IV. Results") get their number written before their
 * text, because the converter that reads the document (mammoth) keeps only plain ordered lists.
 * Bullets and simple "1." lists are left to it.
 */
import { attr, childrenNamed, findAll, findFirst, type XmlNode } from './xml';

interface Level {
  start: number;
  format: string;
  text: string;
  /** What follows the number: a tab, a space or nothing. */
  suffix: string;
  /** The level (1-based) whose new item restarts this one; 0 never; undefined: any shallower level. */
  restart?: number;
  style?: string;
}

interface Numbering {
  /** numId → its levels (abstract definition with the instance's start overrides). */
  lists: Map<string, { counter: string; levels: Level[] }>;
  /** Paragraph style → its numbering. */
  styles: Map<string, { numId?: string; ilvl?: number; basedOn?: string }>;
}

function val(node: XmlNode | undefined, tag: string): string | undefined {
  const child = node ? findFirst(node, tag) : undefined;
  return child ? attr(child, 'w:val') : undefined;
}

function readLevels(abstract: XmlNode): Level[] {
  const levels: Level[] = [];
  for (const lvl of childrenNamed(abstract, 'w:lvl')) {
    const index = Number(attr(lvl, 'w:ilvl') ?? 0);
    if (!Number.isInteger(index) || index < 0 || index > 8) continue;
    const restart = val(lvl, 'w:lvlRestart');
    levels[index] = {
      start: Number(val(lvl, 'w:start') ?? 1) || 0,
      format: val(lvl, 'w:numFmt') ?? 'decimal',
      text: val(lvl, 'w:lvlText') ?? '',
      suffix: val(lvl, 'w:suff') ?? 'tab',
      restart: restart === undefined ? undefined : Number(restart),
      style: val(lvl, 'w:pStyle'),
    };
  }
  return levels;
}

export function readNumbering(numbering: XmlNode | undefined, styles: XmlNode | undefined): Numbering {
  const abstracts = new Map<string, Level[]>();
  const lists: Numbering['lists'] = new Map();
  if (numbering) {
    for (const abstract of findAll(numbering, 'w:abstractNum')) {
      abstracts.set(attr(abstract, 'w:abstractNumId') ?? '', readLevels(abstract));
    }
    for (const num of findAll(numbering, 'w:num')) {
      const abstract = val(num, 'w:abstractNumId') ?? '';
      const levels = [...(abstracts.get(abstract) ?? [])];
      const numId = attr(num, 'w:numId') ?? '';
      let counter = `abstract ${abstract}`;
      for (const override of childrenNamed(num, 'w:lvlOverride')) {
        const index = Number(attr(override, 'w:ilvl') ?? 0);
        const start = val(override, 'w:startOverride');
        const own = findFirst(override, 'w:lvl');
        const base = own ? readLevels({ name: 'w:abstractNum', attrs: {}, children: [own] })[index] : levels[index];
        if (base) levels[index] = start === undefined ? base : { ...base, start: Number(start) || 0 };
        // A list that overrides its levels counts on its own.
        counter = `num ${numId}`;
      }
      lists.set(numId, { counter, levels });
    }
  }
  const styleMap: Numbering['styles'] = new Map();
  if (styles) {
    for (const style of findAll(styles, 'w:style')) {
      const id = attr(style, 'w:styleId');
      if (!id) continue;
      const pPr = findFirst(style, 'w:pPr');
      const numPr = pPr ? findFirst(pPr, 'w:numPr') : undefined;
      const ilvl = val(numPr, 'w:ilvl');
      styleMap.set(id, {
        numId: val(numPr, 'w:numId'),
        ilvl: ilvl === undefined ? undefined : Number(ilvl),
        basedOn: val(style, 'w:basedOn'),
      });
    }
  }
  return { lists, styles: styleMap };
}

function roman(n: number): string {
  const table: [number, string][] = [
    [1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'],
    [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i'],
  ]; // prettier-ignore
  let out = '';
  for (const [value, digits] of table) {
    while (n >= value) {
      out += digits;
      n -= value;
    }
  }
  return out;
}

/** Word's letters: a…z, then aa…zz, aaa… */
function letters(n: number): string {
  if (n <= 0) return String(n);
  return String.fromCharCode(97 + ((n - 1) % 26)).repeat(Math.floor((n - 1) / 26) + 1);
}

export function formatNumber(n: number, format: string): string {
  switch (format) {
    case 'lowerLetter':
      return letters(n);
    case 'upperLetter':
      return letters(n).toUpperCase();
    case 'lowerRoman':
      return n > 0 ? roman(n) : String(n);
    case 'upperRoman':
      return n > 0 ? roman(n).toUpperCase() : String(n);
    case 'decimalZero':
      return n < 10 && n >= 0 ? `0${n}` : String(n);
    case 'none':
      return '';
    default:
      return String(n);
  }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `document` with the number of each automatically numbered heading or list item written as text at
 * the start of its paragraph (and that paragraph's numbering switched off so it is not numbered
 * twice); bullets and plain "1." lists are left as they are. `w` is the prefix the part uses for WordprocessingML.
 */
export function withNumbersAsText(document: string, numbering: Numbering, w: string): string {
  if (!numbering.lists.size) return document;
  const p = escapeRegExp(w);
  const paragraph = new RegExp(`<${p}:p(?=[\\s>/])[^>]*?(?:/>|>[\\s\\S]*?</${p}:p>)`, 'g');
  const pPrPattern = new RegExp(`<${p}:pPr\\b[^>]*?(?:/>|>[\\s\\S]*?</${p}:pPr>)`);
  const valueOf = (xml: string, tag: string) => new RegExp(`<${p}:${tag}\\b[^>]*?${p}:val=["']([^"']*)["']`).exec(xml)?.[1];
  const counters = new Map<string, number[]>();

  const styleNumbering = (styleId: string | undefined) => {
    const seen = new Set<string>();
    let id = styleId;
    while (id && !seen.has(id)) {
      seen.add(id);
      const style = numbering.styles.get(id);
      if (!style) return undefined;
      if (style.numId !== undefined) return { numId: style.numId, ilvl: style.ilvl, style: styleId };
      id = style.basedOn;
    }
    return undefined;
  };

  return document.replace(paragraph, (xml) => {
    if (xml.endsWith('/>') && !xml.includes('</')) return xml;
    const pPr = pPrPattern.exec(xml)?.[0] ?? '';
    const numPr = new RegExp(`<${p}:numPr\\b[\\s\\S]*?</${p}:numPr>`).exec(pPr)?.[0];
    const styleId = valueOf(pPr, 'pStyle');
    const fromStyle = styleNumbering(styleId);
    const numId = (numPr ? valueOf(numPr, 'numId') : undefined) ?? fromStyle?.numId;
    if (!numId || numId === '0') return xml;
    const list = numbering.lists.get(numId);
    if (!list) return xml;
    let ilvl = numPr ? Number(valueOf(numPr, 'ilvl') ?? NaN) : NaN;
    if (Number.isNaN(ilvl)) ilvl = fromStyle?.ilvl ?? list.levels.findIndex((l) => l?.style && l.style === styleId);
    if (!(ilvl >= 0 && ilvl <= 8)) ilvl = 0;
    const level = list.levels[ilvl];
    if (!level) return xml;

    // Counting: per abstract definition, as Word does for lists that share one.
    const count = counters.get(list.counter) ?? [];
    count[ilvl] = count[ilvl] === undefined ? level.start : count[ilvl]! + 1;
    for (let deeper = ilvl + 1; deeper < 9; deeper++) {
      const restart = list.levels[deeper]?.restart;
      if (restart === undefined || (restart > 0 && restart <= ilvl + 1)) count[deeper] = undefined as unknown as number;
    }
    counters.set(list.counter, count);

    if (level.format === 'bullet') return xml;
    const heading = !!fromStyle || /heading|berschrift|titre|title/i.test(styleId ?? '');
    if (!heading && level.format === 'decimal' && level.text === `%${ilvl + 1}.`) return xml;
    const label = level.text.replace(/%([1-9])/g, (_, k: string) => {
      const index = Number(k) - 1;
      const at = list.levels[index];
      return formatNumber(count[index] ?? at?.start ?? 1, at?.format ?? 'decimal');
    });
    if (!label.trim()) return xml;
    const run = `<${w}:r><${w}:t xml:space="preserve">${escapeXml(label)}${level.suffix === 'nothing' ? '' : ' '}</${w}:t></${w}:r>`;
    const off = `<${w}:numPr><${w}:ilvl ${w}:val="0"/><${w}:numId ${w}:val="0"/></${w}:numPr>`;
    if (pPr) {
      let newPPr: string;
      if (numPr) newPPr = pPr.replace(numPr, off);
      else if (pPr.endsWith('/>')) newPPr = pPr.replace(/\s*\/>$/, `>${off}</${w}:pPr>`);
      else newPPr = pPr.replace(/^(<[^>]*>)/, `$1${off}`);
      return xml.replace(pPr, () => newPPr + run);
    }
    return xml.replace(/^(<[^>]*>)/, `$1${run}`);
  });
}
