/**
 * Markdown chunking for search: about `maxTokens` per chunk (a token is estimated as 4
 * characters), `overlapTokens` of the previous chunk repeated at the start of the next one within
 * a section, new chunks at headings once the current chunk is substantial, code fences never cut
 * open (an oversized fence is split at blank lines or lines, each piece fenced again with its
 * language), and every chunk that does not start with a heading starts with its section's
 * heading so that it reads on its own.
 */
import { parseBlocks, type Block } from './blocks';

export interface Chunk {
  text: string;
  /** Heading path, e.g. "Install > Linux"; empty before the first heading. */
  heading: string;
}

export interface ChunkOptions {
  maxTokens?: number;
  overlapTokens?: number;
}

export const CHARS_PER_TOKEN = 4;
export const DEFAULT_CHUNK_TOKENS = 800;
export const DEFAULT_OVERLAP_TOKENS = 160;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

interface Piece {
  text: string;
  kind: Block['kind'];
  /**
   * A piece of a block split in parts (a long list or paragraph): what stood between it and the
   * part before it (`splitParts`), which joins them again in a chunk that holds both. A chunk's
   * pieces are otherwise blocks of their own, a blank line apart.
   */
  before?: string;
}

/** Headings the converters give each sheet, slide and page (`## Sheet: Budget`, `## Slide 3: Plan`, `## Page 2`). */
const LOCATION_HEADING = /^(Sheet: .+|Slide \d+(: .*)?|Page \d+)$/;

const SENTENCE_END = /(?<=[.!?;:。])\s+/;

const SEPARATORS: readonly (string | RegExp)[] = ['\n\n', '\n', SENTENCE_END, ' '];

/** Splits `text` into parts of at most `budget` characters, at the coarsest separator that works. */
export function splitText(text: string, budget: number, separators: readonly (string | RegExp)[] = SEPARATORS): string[] {
  return splitParts(text, budget, separators).map((part) => part.text);
}

/** A part of a split text, and the separator it was split from the part before at ('' for the first). */
interface Part {
  text: string;
  before: string;
}

function splitParts(text: string, budget: number, separators: readonly (string | RegExp)[]): Part[] {
  if (text.length <= budget) return [{ text, before: '' }];
  const [separator, ...rest] = separators;
  if (separator === undefined) {
    const parts: Part[] = [];
    for (let i = 0; i < text.length; i += budget) parts.push({ text: text.slice(i, i + budget), before: '' });
    return parts;
  }
  const joiner = typeof separator === 'string' ? separator : ' ';
  const units = text.split(separator).filter((unit) => unit.length > 0);
  if (units.length <= 1) return splitParts(text, budget, rest);
  const out: Part[] = [];
  let current: Part | undefined;
  for (const unit of units) {
    const parts = unit.length > budget ? splitParts(unit, budget, rest) : [{ text: unit, before: '' }];
    parts.forEach((part, i) => {
      if (current && current.text.length + joiner.length + part.text.length > budget) {
        out.push(current);
        // A part after the first of a unit split further was split from it at that finer separator.
        current = { text: part.text, before: i === 0 ? joiner : part.before };
      } else {
        current = current ? { ...current, text: current.text + joiner + part.text } : { text: part.text, before: '' };
      }
    });
  }
  if (current) out.push(current);
  return out;
}

function splitBlock(block: Block, budget: number): Piece[] {
  if (block.kind === 'code') {
    const open = `${block.fence}${block.info}\n`;
    const close = `\n${block.fence}`;
    return splitText(block.body, Math.max(1, budget - open.length - close.length), ['\n\n', '\n']).map((body) => ({
      kind: 'code',
      text: open + body + close,
    }));
  }
  return splitParts(block.text, budget, SEPARATORS).map(({ text, before }, i) => ({
    kind: block.kind,
    text,
    ...(i > 0 ? { before } : {}),
  }));
}

export function chunkMarkdown(markdown: string, options: ChunkOptions = {}): Chunk[] {
  const maxChars = (options.maxTokens ?? DEFAULT_CHUNK_TOKENS) * CHARS_PER_TOKEN;
  const overlapChars = Math.min((options.overlapTokens ?? DEFAULT_OVERLAP_TOKENS) * CHARS_PER_TOKEN, Math.floor(maxChars / 3));
  const pieceBudget = maxChars - overlapChars - 200; // room for the overlap and a heading line
  const chunks: Chunk[] = [];
  const headings: { level: number; title: string; line: string }[] = [];
  let current: Piece[] = [];
  let size = 0;
  let hasNewContent = false;
  let chunkHeading = '';
  /** The heading line of the section the chunk starts in, put above a chunk that starts in that section's text. */
  let chunkHeadingLine: string | undefined;

  const breadcrumb = () =>
    headings
      .map((h) => h.title)
      .filter(Boolean)
      .join(' > ');

  const overlapTail = (pieces: Piece[]): Piece[] => {
    const tail: Piece[] = [];
    let total = 0;
    for (let i = pieces.length - 1; i >= 0; i--) {
      const piece = pieces[i]!;
      if (piece.kind === 'heading') break;
      if (total + piece.text.length > overlapChars) {
        if (!tail.length && piece.kind === 'text') {
          // Part of a long paragraph or list: its last sentences, with the line breaks between
          // them (a list's items stay items).
          const starts = [...piece.text.matchAll(new RegExp(SENTENCE_END.source, 'g'))].map((m) => m.index + m[0].length);
          const from = starts.find((start) => piece.text.length - start <= overlapChars);
          if (from !== undefined) tail.unshift({ kind: 'text', text: piece.text.slice(from) });
        }
        break;
      }
      tail.unshift(piece);
      total += piece.text.length + 2;
    }
    return tail;
  };

  const flush = (carryOverlap: boolean) => {
    if (!hasNewContent) return;
    // The parts of a block split in pieces join as they stood in it (a line break inside a list
    // item, a space inside a paragraph), not as blocks of their own.
    let text = current.map((p, i) => (i === 0 ? p.text : (p.before ?? '\n\n') + p.text)).join('');
    // The heading of where the chunk starts, not of where it ends: text of a short section may
    // be followed by later headings in the same chunk.
    if (current[0]?.kind !== 'heading' && chunkHeadingLine) text = `${chunkHeadingLine}\n\n${text}`;
    chunks.push({ text, heading: chunkHeading });
    current = carryOverlap ? overlapTail(current) : [];
    size = current.reduce((n, p) => n + p.text.length + 2, 0);
    hasNewContent = false;
  };

  const add = (piece: Piece) => {
    if (!hasNewContent) {
      chunkHeading = breadcrumb();
      chunkHeadingLine = headings[headings.length - 1]?.line;
    }
    current.push(piece);
    size += piece.text.length + 2;
    hasNewContent = true;
  };

  for (const block of parseBlocks(markdown)) {
    if (block.kind === 'heading') {
      // A sheet, slide or page of a converted file always starts its own chunk, so a passage
      // names where it came from (citations point there).
      if (size >= maxChars / 4 || (hasNewContent && LOCATION_HEADING.test(block.title))) flush(false);
      else if (!hasNewContent) current = [];
      while (headings.length && headings[headings.length - 1]!.level >= block.level) headings.pop();
      headings.push({ level: block.level, title: block.title, line: block.text });
      add({ kind: 'heading', text: block.text });
      continue;
    }
    for (const piece of block.text.length > pieceBudget ? splitBlock(block, pieceBudget) : [{ kind: block.kind, text: block.text }]) {
      if (hasNewContent && size + piece.text.length > maxChars - 200) flush(true);
      add(piece);
    }
  }
  flush(false);
  return chunks;
}
