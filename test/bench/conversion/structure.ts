/**
 * Scores a conversion's structure against another converter's expected output: how much of the
 * expected text is there (word recall), whether it comes in the expected order (consecutive
 * expected paragraphs found in the same order), whether table cells are in their rows (a
 * markdown table row holding the expected row's cells), and headings (expected headings marked
 * as markdown headings, and how many of the lines marked as headings are expected ones).
 * Expected output is Docling's markdown or Unstructured's elements (JSON).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { comparable, filesUnder } from './expected';

export interface Block {
  kind: 'heading' | 'text' | 'table';
  text: string;
  /** A table's rows of cells. */
  rows?: string[][];
}

export interface StructureScore {
  /** Expected words (letters and digits) found in the conversion, counted with repeats. */
  words: { found: number; total: number };
  /** Consecutive expected paragraphs both found, and of those how many come in the expected order. */
  order: { inOrder: number; pairs: number };
  /** Expected table cells found in a markdown table row with the rest of their row. */
  cells: { inRow: number; total: number };
  /** Expected headings marked as headings; lines marked as headings that are expected ones. */
  headings: { expected: number; found: number; marked: number; right: number };
}

/** Markdown table cells of one `| a | b |` line (`\|` is a pipe inside a cell). */
export function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

const isSeparatorRow = (line: string) => /^\|?\s*:?-{3,}/.test(line.trim()) && /^[\s|:-]+$/.test(line);

/** Blocks of a markdown document: headings, table rows, paragraphs and list items. */
export function blocksFromMarkdown(markdown: string): Block[] {
  const blocks: Block[] = [];
  let table: Block | undefined;
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push({ kind: 'text', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('|')) {
      flush();
      if (!table) blocks.push((table = { kind: 'table', text: '', rows: [] }));
      if (!isSeparatorRow(line)) table.rows!.push(tableCells(line));
      continue;
    }
    table = undefined;
    if (!line || line.startsWith('<!--') || line.startsWith('$$') || line.startsWith('```')) {
      flush();
      continue;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ kind: 'heading', text: heading[1]! });
    } else if (/^([-*+]|\d+[.)])\s+/.test(line)) {
      flush();
      paragraph.push(line.replace(/^([-*+]|\d+[.)])\s+/, ''));
    } else paragraph.push(line);
  }
  flush();
  for (const block of blocks) if (block.rows) block.text = block.rows.map((r) => r.join(' ')).join('\n');
  return blocks;
}

const decodeEntities = (text: string) =>
  text
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** Rows of cells of an HTML table (Unstructured's `text_as_html`). */
export function rowsFromHtml(html: string): string[][] {
  return [...html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/gi)].map((row) =>
    [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/gi)].map((cell) => decodeEntities(cell[1]!)),
  );
}

interface Element {
  type: string;
  text: string;
  metadata?: { text_as_html?: string };
}

/** Blocks of Unstructured's elements: a Title is a heading, a Table its rows, the rest paragraphs. */
export function blocksFromElements(elements: readonly Element[]): Block[] {
  const blocks: Block[] = [];
  for (const element of elements) {
    if (element.type === 'Table' && element.metadata?.text_as_html) {
      blocks.push({ kind: 'table', text: element.text, rows: rowsFromHtml(element.metadata.text_as_html) });
    } else if (element.type === 'Title') blocks.push({ kind: 'heading', text: element.text });
    else for (const part of element.text.split(/\n\s*\n/)) if (part.trim()) blocks.push({ kind: 'text', text: part.trim() });
  }
  return blocks;
}

const words = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** The comparable start of a paragraph that locates it in a conversion; short ones are too common to place. */
const ANCHOR_CHARS = 40;
const MIN_ANCHOR_CHARS = 12;

/** The page headings DocChat writes itself (`## Page 3`, `## Slide 2`) are not content headings; a sheet's is its name. */
const OWN_HEADING = /^(page \d+|slide \d+)$/i;

function headingMatch(a: string, b: string): boolean {
  if (!a || !b) return false;
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= 0.6 * long.length && long.startsWith(short);
}

export function scoreStructure(markdown: string, expected: readonly Block[]): StructureScore {
  // Words, counted with repeats.
  const have = new Map<string, number>();
  for (const word of words(markdown)) have.set(word, (have.get(word) ?? 0) + 1);
  const want = new Map<string, number>();
  for (const block of expected) for (const word of words(block.text)) want.set(word, (want.get(word) ?? 0) + 1);
  let wordsFound = 0;
  let wordsTotal = 0;
  for (const [word, count] of want) {
    wordsTotal += count;
    wordsFound += Math.min(count, have.get(word) ?? 0);
  }

  // Reading order: consecutive expected paragraphs (and headings) found, in order or not.
  const flat = comparable(markdown);
  const positions = expected
    .filter((b) => b.kind !== 'table')
    .map((b) => comparable(b.text).slice(0, ANCHOR_CHARS))
    .filter((anchor) => anchor.length >= MIN_ANCHOR_CHARS)
    .map((anchor) => flat.indexOf(anchor));
  let pairs = 0;
  let inOrder = 0;
  for (let i = 1; i < positions.length; i++) {
    if (positions[i - 1]! < 0 || positions[i]! < 0) continue;
    pairs++;
    if (positions[i - 1]! < positions[i]!) inOrder++;
  }

  // Table cells in their rows: each expected row against the conversion's table row holding most of its cells.
  const outRows = markdown
    .split('\n')
    .filter((line) => line.trim().startsWith('|') && !isSeparatorRow(line))
    .map((line) => new Set(tableCells(line).map(comparable).filter(Boolean)));
  let cellsTotal = 0;
  let cellsInRow = 0;
  for (const block of expected) {
    for (const row of block.rows ?? []) {
      const cells = [...new Set(row.map(comparable).filter(Boolean))];
      cellsTotal += cells.length;
      let best = 0;
      for (const out of outRows) best = Math.max(best, cells.filter((c) => out.has(c)).length);
      cellsInRow += best;
    }
  }

  // Headings.
  const wanted = expected.filter((b) => b.kind === 'heading').map((b) => comparable(b.text));
  const marked = markdown
    .split('\n')
    .map((line) =>
      /^#{1,6}\s+(.*)$/
        .exec(line.trim())?.[1]
        ?.trim()
        .replace(/^sheet:\s*/i, ''),
    )
    .filter((text): text is string => !!text && !OWN_HEADING.test(text))
    .map(comparable);
  return {
    words: { found: wordsFound, total: wordsTotal },
    order: { inOrder, pairs },
    cells: { inRow: cellsInRow, total: cellsTotal },
    headings: {
      expected: wanted.length,
      found: wanted.filter((h) => marked.some((m) => headingMatch(h, m))).length,
      marked: marked.length,
      right: marked.filter((m) => wanted.some((h) => headingMatch(h, m))).length,
    },
  };
}

export interface StructureCase {
  /** The document's file name, as converted. */
  file: string;
  /** Its full path. */
  path: string;
  expected: Block[];
}

/**
 * Docling's PDFs with their expected markdown, from a Docling checkout:
 * tests/data/pdf/sources/<name>.pdf and tests/data/pdf/groundtruth/<name>.md.
 */
export function doclingCases(root: string): StructureCase[] {
  const sources = path.join(root, 'tests/data/pdf/sources');
  const truth = path.join(root, 'tests/data/pdf/groundtruth');
  const cases: StructureCase[] = [];
  for (const [file, full] of filesUnder(sources)) {
    const md = path.join(truth, file.replace(/\.pdf$/i, '.md'));
    if (!file.toLowerCase().endsWith('.pdf') || !existsSync(md)) continue;
    cases.push({ file, path: full, expected: blocksFromMarkdown(readFileSync(md, 'utf8')) });
  }
  return cases.sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * Unstructured's example documents with the elements its ingest tests expect, from an
 * Unstructured checkout: example-docs/**\/<name> and
 * test_unstructured_ingest/expected-structured-output/**\/<name>.json. A document expected by
 * several ingest tests is scored against the output with the most elements (an unchunked one).
 */
export function unstructuredCases(root: string): StructureCase[] {
  const docs = filesUnder(path.join(root, 'example-docs'));
  const outputs = new Map<string, { blocks: Block[]; rank: [number, number] }>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    // Every output, not one per name: a document is expected by several ingest tests.
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const name = entry.name;
      const full = path.join(dir, name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const doc = name.slice(0, -'.json'.length);
      if (!docs.has(doc) || doc.endsWith('.json')) continue;
      let elements: Element[];
      try {
        elements = JSON.parse(readFileSync(full, 'utf8')) as Element[];
      } catch {
        continue;
      }
      if (!Array.isArray(elements)) continue;
      const blocks = blocksFromElements(elements);
      // Elements as partitioned (not chunked) first, then the most of them.
      const rank: [number, number] = [elements.filter((e) => e.type !== 'CompositeElement').length, blocks.length];
      const had = outputs.get(doc)?.rank;
      if (!had || rank[0] > had[0] || (rank[0] === had[0] && rank[1] > had[1])) outputs.set(doc, { blocks, rank });
    }
  };
  walk(path.join(root, 'test_unstructured_ingest/expected-structured-output'));
  return [...outputs]
    .map(([file, { blocks }]) => ({ file, path: docs.get(file)!, expected: blocks }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * The half of a scored set a file belongs to, by a fixed hash of its name (FNV-1a, even: tuning,
 * odd: held out), so the split never follows the results: changes are tuned on one half and
 * checked on the other.
 */
export function halfOf(file: string): 'tuning' | 'held-out' {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(file)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % 2 ? 'held-out' : 'tuning';
}

/** Sums of scores. */
export function sumScores(scores: readonly StructureScore[]): StructureScore {
  const sum: StructureScore = {
    words: { found: 0, total: 0 },
    order: { inOrder: 0, pairs: 0 },
    cells: { inRow: 0, total: 0 },
    headings: { expected: 0, found: 0, marked: 0, right: 0 },
  };
  for (const score of scores) {
    for (const key of Object.keys(score) as (keyof StructureScore)[]) {
      const into = sum[key] as unknown as Record<string, number>;
      for (const [k, v] of Object.entries(score[key])) into[k] = (into[k] ?? 0) + v;
    }
  }
  return sum;
}

/** Per-format sums of scores. */
export function byFormat(scores: { file: string; score?: StructureScore }[]): Map<string, { files: number; score: StructureScore }> {
  const formats = new Map<string, { files: number; score: StructureScore }>();
  for (const { file, score } of scores) {
    const format = path.extname(file).slice(1).toLowerCase() || file;
    const sum = formats.get(format) ?? {
      files: 0,
      score: {
        words: { found: 0, total: 0 },
        order: { inOrder: 0, pairs: 0 },
        cells: { inRow: 0, total: 0 },
        headings: { expected: 0, found: 0, marked: 0, right: 0 },
      },
    };
    sum.files++;
    if (score) {
      for (const key of Object.keys(score) as (keyof StructureScore)[]) {
        const into = sum.score[key] as unknown as Record<string, number>;
        for (const [k, v] of Object.entries(score[key])) into[k] = (into[k] ?? 0) + v;
      }
    }
    formats.set(format, sum);
  }
  return formats;
}
