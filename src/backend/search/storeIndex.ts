/**
 * The search index of one vector store: BM25 over every chunk (its document's title, section
 * headings and text), plus (when the chunks carry embeddings) a vector side whose ranking is
 * fused with BM25's by reciprocal rank fusion for hybrid search.
 */
import { Bm25Index } from './bm25';
import { indexedLength, tokenize } from './tokenize';

export interface ChunkInput {
  text: string;
  /** Heading path of the section the chunk comes from, e.g. "Install > Linux". */
  heading: string;
}

export interface SearchHit {
  fileId: string;
  chunkIndex: number;
  text: string;
  heading: string;
  score: number;
}

export interface SearchOptions {
  maxResults: number;
  fileIds?: readonly string[];
  /** Unit-length query embedding; enables hybrid ranking when chunks have embeddings. */
  queryVector?: Float32Array;
}

interface IndexedChunk extends ChunkInput {
  fileId: string;
  chunkIndex: number;
  vector?: Float32Array;
}

/** Candidates each side contributes before fusion. */
const HYBRID_CANDIDATES = 50;
/**
 * Reciprocal rank fusion's constant (Cormack, Clarke and Büttcher, SIGIR 2009): a document's
 * fused score is the sum over rankings of 1 / (RRF_K + rank). 60 is the paper's value.
 */
export const RRF_K = 60;
/** Longest stretch of indexing work between two turns of the event loop, in ms. */
const INDEX_SLICE_MS = 5;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Fuses rankings (lists of document numbers, best first) by reciprocal rank fusion. Scores are
 * scaled so a document first in every ranking scores 1. Ties keep the lower document number first.
 */
export function reciprocalRankFusion(rankings: readonly (readonly number[])[], k = RRF_K): { doc: number; score: number }[] {
  const fused = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((doc, rank) => fused.set(doc, (fused.get(doc) ?? 0) + 1 / (k + rank + 1)));
  }
  const best = rankings.length / (k + 1);
  return [...fused].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([doc, score]) => ({ doc, score: best > 0 ? score / best : 0 }));
}

/** A document's title from its file name: "deploy-guide.md" reads "deploy guide". */
export function documentTitle(filename: string): string {
  return filename
    .replace(/\.[^./\\]{1,8}$/, '')
    .replace(/[-_.]+/g, ' ')
    .trim();
}

/** What is indexed (and embedded) of a chunk: the document's title, the section's heading path, the text. */
export function indexedText(chunk: ChunkInput, title = ''): string {
  return [title, chunk.heading, chunk.text].filter(Boolean).join('\n');
}

export function normalize(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

export class StoreIndex {
  private readonly bm25 = new Bm25Index();
  private readonly chunks: (IndexedChunk | undefined)[] = [];
  private readonly docsOfFile = new Map<string, number[]>();
  private vectorCount = 0;

  get chunkCount(): number {
    return this.bm25.size;
  }

  hasFile(fileId: string): boolean {
    return this.docsOfFile.has(fileId);
  }

  /** Indexes the chunks of one file (titled `title`), replacing what was indexed for it before. */
  addFile(fileId: string, chunks: readonly ChunkInput[], vectors?: readonly Float32Array[], title = ''): void {
    this.removeFile(fileId);
    const docs: number[] = [];
    chunks.forEach((chunk, chunkIndex) => {
      const tokens = tokenize(indexedText(chunk, title));
      const doc = this.bm25.add(tokens, false, indexedLength(tokens));
      const vector = vectors?.[chunkIndex];
      if (vector) this.vectorCount++;
      this.chunks[doc] = { ...chunk, fileId, chunkIndex, vector };
      docs.push(doc);
    });
    this.docsOfFile.set(fileId, docs);
  }

  /**
   * Like `addFile`, but tokenizes in slices of a few milliseconds and lets the event loop turn
   * between them, so a file of thousands of chunks never stalls the server. The file's chunks
   * become searchable all at once at the end, replacing its previous ones, and only if
   * `stillWanted()` says so then (the file may have been deleted or re-attached meanwhile).
   * Resolves whether they were added.
   */
  async addFileGradually(
    fileId: string,
    chunks: readonly ChunkInput[],
    vectors?: readonly Float32Array[],
    stillWanted: () => boolean = () => true,
    title = '',
  ): Promise<boolean> {
    const docs: number[] = [];
    let sliceStart = performance.now();
    for (const chunk of chunks) {
      if (performance.now() - sliceStart > INDEX_SLICE_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
      const tokens = tokenize(indexedText(chunk, title));
      docs.push(this.bm25.add(tokens, true, indexedLength(tokens)));
    }
    if (!stillWanted()) {
      this.bm25.discard(docs);
      return false;
    }
    this.removeFile(fileId);
    docs.forEach((doc, chunkIndex) => {
      const vector = vectors?.[chunkIndex];
      if (vector) this.vectorCount++;
      this.chunks[doc] = { ...chunks[chunkIndex]!, fileId, chunkIndex, vector };
    });
    this.bm25.reveal(docs);
    this.docsOfFile.set(fileId, docs);
    return true;
  }

  removeFile(fileId: string): void {
    for (const doc of this.docsOfFile.get(fileId) ?? []) {
      this.bm25.remove(doc);
      if (this.chunks[doc]?.vector) this.vectorCount--;
      this.chunks[doc] = undefined;
    }
    this.docsOfFile.delete(fileId);
  }

  get hasVectors(): boolean {
    return this.vectorCount > 0;
  }

  search(query: string, options: SearchOptions): SearchHit[] {
    let allow: Uint8Array | undefined;
    if (options.fileIds) {
      allow = new Uint8Array(this.bm25.capacity);
      for (const fileId of options.fileIds) for (const doc of this.docsOfFile.get(fileId) ?? []) allow[doc] = 1;
    }
    const terms = tokenize(query);
    const hybrid = options.queryVector !== undefined && this.vectorCount > 0;
    const lexical = this.bm25.search(terms, hybrid ? Math.max(options.maxResults, HYBRID_CANDIDATES) : options.maxResults, allow);
    if (!hybrid) return lexical.map(({ doc, score }) => this.hit(doc, score));

    // Ranks, not scores, are fused: BM25 scores and cosine similarities have unrelated scales.
    const semantic = this.nearest(options.queryVector!, HYBRID_CANDIDATES, allow).filter((n) => n.similarity > 0);
    return reciprocalRankFusion([lexical.map((l) => l.doc), semantic.map((n) => n.doc)])
      .slice(0, options.maxResults)
      .map(({ doc, score }) => this.hit(doc, score));
  }

  private nearest(query: Float32Array, k: number, allow?: Uint8Array): { doc: number; similarity: number }[] {
    const scored: { doc: number; similarity: number }[] = [];
    this.chunks.forEach((chunk, doc) => {
      if (!chunk?.vector || (allow && !allow[doc])) return;
      scored.push({ doc, similarity: dot(query, chunk.vector) });
    });
    return scored.sort((a, b) => b.similarity - a.similarity).slice(0, k);
  }

  private hit(doc: number, score: number): SearchHit {
    const chunk = this.chunks[doc]!;
    return { fileId: chunk.fileId, chunkIndex: chunk.chunkIndex, text: chunk.text, heading: chunk.heading, score };
  }
}
