/**
 * A synthetic, reproducible corpus: words drawn from a Zipf distribution over a made-up
 * vocabulary (so posting lists have the long-tailed lengths of real text), shaped as markdown
 * files with headings and paragraphs, and as simple text PDFs.
 */

import { seededRandom as rng } from '../../support/faults/seededRandom';

/** A seeded PRNG, so every run searches the same corpus with the same queries. */
export { rng };

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'to',
  'vi',
  'dex',
  'por',
  'qua',
  'zen',
  'bri',
  'cor',
  'fal',
  'gim',
  'hup',
  'jor',
  'wen',
  'yst',
];

export class WordSource {
  readonly vocabulary: string[] = [];
  private readonly cumulative: Float64Array;

  constructor(
    size = 40_000,
    private readonly random = rng(42),
  ) {
    const seen = new Set<string>();
    const r = rng(7);
    while (this.vocabulary.length < size) {
      const n = 2 + Math.floor(r() * 3);
      let w = '';
      for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
      if (!seen.has(w)) {
        seen.add(w);
        this.vocabulary.push(w);
      }
    }
    // Zipf with exponent 1: P(rank k) ∝ 1/k.
    this.cumulative = new Float64Array(size);
    let sum = 0;
    for (let k = 0; k < size; k++) this.cumulative[k] = sum += 1 / (k + 1);
    for (let k = 0; k < size; k++) this.cumulative[k]! /= sum;
  }

  word(): string {
    const u = this.random();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return this.vocabulary[lo]!;
  }

  sentence(words: number): string {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(this.word());
    const s = out.join(' ');
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  }

  paragraph(sentences: number): string {
    const out: string[] = [];
    for (let i = 0; i < sentences; i++) out.push(this.sentence(8 + Math.floor(this.random() * 12)));
    return out.join(' ');
  }

  /** A markdown document of about `chars` characters: headings every few paragraphs. */
  markdown(title: string, chars: number): string {
    const parts = [`# ${title}`];
    let length = parts[0]!.length;
    let section = 0;
    while (length < chars) {
      if (section % 4 === 0) parts.push(`## Section ${section / 4 + 1}: ${this.sentence(3).slice(0, -1)}`);
      const p = this.paragraph(4 + Math.floor(this.random() * 4));
      parts.push(p);
      length += p.length + 2;
      section++;
    }
    return `${parts.join('\n\n')}\n`;
  }

  /** Search queries of 2–5 words drawn like the text (frequent words included, as in real questions). */
  queries(count: number): string[] {
    return Array.from({ length: count }, () => {
      const n = 2 + Math.floor(this.random() * 4);
      return Array.from({ length: n }, () => this.word()).join(' ');
    });
  }
}

function pdfEscape(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A valid text PDF (Helvetica, one content stream per page) of the given lines per page. */
export function textPdf(pages: string[][]): Buffer {
  const objects: string[] = [];
  const pageIds: number[] = [];
  // 1: catalog, 2: pages, 3: font; then a page and its content stream per page.
  const firstPageId = 4;
  pages.forEach((lines, i) => {
    const pageId = firstPageId + i * 2;
    pageIds.push(pageId);
    const body = ['BT', '/F1 10 Tf', '14 TL', '50 800 Td', ...lines.map((l) => `(${pdfEscape(l)}) '`), 'ET'].join('\n');
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${Buffer.byteLength(body)} >>\nstream\n${body}\nendstream`;
  });
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(out);
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
