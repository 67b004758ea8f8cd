/**
 * A candidate keyword search measured against the backend's (src/backend/search/storeIndex.ts) by
 * test/bench/searchVariants.ts and not adopted: the same index with BM25's k1 and b as settings
 * and RM3-style pseudo-relevance feedback (the first search's best passages give expansion words,
 * the query is searched again with its own words weighted high). Kept here, outside the product,
 * so the measurement can be repeated. With no setting given it ranks exactly as the backend does.
 */
import { Bm25Index, type Bm25Parameters, type ScoredDoc } from './candidateBm25';
import { indexedLength, tokenize } from '../../../src/backend/search/tokenize';
import { indexedText, reciprocalRankFusion } from '../../../src/backend/search/storeIndex';

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
  /** Pseudo-relevance feedback for the keyword side (off when absent). */
  feedback?: FeedbackOptions;
}

/**
 * RM3-style query expansion: the first keyword search's best `docs` passages give `terms` words,
 * each weighed by its share of those passages (weighted by their scores) times its rarity; the
 * query is searched again with its own words at `originalWeight` and the added ones at the rest.
 */
export interface FeedbackOptions {
  docs: number;
  terms: number;
  originalWeight: number;
  /** A word must be in at least this many of the feedback passages (default 1). */
  minDocs?: number;
  /** Weigh candidate words by idf (default true). */
  idf?: boolean;
  /** Only queries of at most this many distinct terms are expanded. */
  maxQueryTerms?: number;
}

interface IndexedChunk extends ChunkInput {
  fileId: string;
  title: string;
  chunkIndex: number;
  vector?: Float32Array;
}

/** Candidates each side contributes before fusion. */
const HYBRID_CANDIDATES = 50;
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

export class CandidateIndex {
  private readonly bm25: Bm25Index;
  private readonly chunks: (IndexedChunk | undefined)[] = [];
  private readonly docsOfFile = new Map<string, number[]>();
  private vectorCount = 0;

  constructor(parameters: Partial<Bm25Parameters> = {}) {
    this.bm25 = new Bm25Index(parameters);
  }

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
      this.chunks[doc] = { ...chunk, fileId, title, chunkIndex, vector };
      docs.push(doc);
    });
    this.docsOfFile.set(fileId, docs);
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
    const depth = hybrid ? Math.max(options.maxResults, HYBRID_CANDIDATES) : options.maxResults;
    const lexical = options.feedback
      ? this.searchWithFeedback(terms, depth, options.feedback, allow)
      : this.bm25.search(terms, depth, allow);
    if (!hybrid) return lexical.map(({ doc, score }) => this.hit(doc, score));

    // Ranks, not scores, are fused: BM25 scores and cosine similarities have unrelated scales.
    const semantic = this.nearest(options.queryVector!, HYBRID_CANDIDATES, allow).filter((n) => n.similarity > 0);
    return reciprocalRankFusion([lexical.map((l) => l.doc), semantic.map((n) => n.doc)])
      .slice(0, options.maxResults)
      .map(({ doc, score }) => this.hit(doc, score));
  }

  private searchWithFeedback(terms: readonly string[], k: number, feedback: FeedbackOptions, allow?: Uint8Array): ScoredDoc[] {
    const unique = [...new Set(terms)];
    const first = this.bm25.search(unique, Math.max(k, feedback.docs), allow);
    const top = first.slice(0, feedback.docs);
    const total = top.reduce((sum, d) => sum + d.score, 0);
    if (!unique.length || !top.length || !(total > 0) || feedback.terms <= 0) return first.slice(0, k);
    if (feedback.maxQueryTerms !== undefined && unique.length > feedback.maxQueryTerms) return first.slice(0, k);
    const relevance = new Map<string, number>();
    const seenIn = new Map<string, number>();
    for (const { doc, score } of top) {
      const chunk = this.chunks[doc]!;
      const tokens = tokenize(indexedText(chunk, chunk.title));
      const length = indexedLength(tokens) || 1;
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const [token, count] of counts) {
        relevance.set(token, (relevance.get(token) ?? 0) + (count / length) * (score / total));
        seenIn.set(token, (seenIn.get(token) ?? 0) + 1);
      }
    }
    const own = new Set(unique);
    const candidates: [string, number][] = [];
    for (const [token, weight] of relevance) {
      if (own.has(token) || (seenIn.get(token) ?? 0) < (feedback.minDocs ?? 1)) continue;
      candidates.push([token, weight * (feedback.idf === false ? 1 : this.bm25.idf(token))]);
    }
    candidates.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const added = candidates.slice(0, feedback.terms);
    const addedTotal = added.reduce((sum, [, w]) => sum + w, 0);
    if (!(addedTotal > 0)) return first.slice(0, k);
    const weights = new Map<string, number>();
    for (const term of unique) weights.set(term, feedback.originalWeight / unique.length);
    for (const [term, w] of added) weights.set(term, ((1 - feedback.originalWeight) * w) / addedTotal);
    return this.bm25.searchWeighted(weights, k, allow);
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
