/**
 * An in-memory BM25 inverted index built for query speed at 100,000+ chunks:
 * posting lists are typed arrays, a query adds scores into one reused Float32Array and keeps the
 * best k in a small heap, so a query costs O(total posting length of its terms) with no per-hit
 * allocation. Deleted documents are skipped at query time and purged from the postings in bulk.
 */
export const K1 = 1.2;
export const B = 0.75;

export interface Bm25Parameters {
  k1: number;
  b: number;
}

class Postings {
  docs = new Int32Array(4);
  tfs = new Uint16Array(4);
  length = 0;

  push(doc: number, tf: number): void {
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const tfs = new Uint16Array(this.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.docs[this.length] = doc;
    this.tfs[this.length] = Math.min(tf, 65_535);
    this.length++;
  }
}

export interface ScoredDoc {
  doc: number;
  /** BM25 score divided by the highest score the query could reach: 0..1. */
  score: number;
}

function grow<T extends Uint32Array | Uint8Array | Float32Array>(array: T, size: number, make: (n: number) => T): T {
  if (size <= array.length) return array;
  const next = make(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

export class Bm25Index {
  private readonly terms = new Map<string, Postings>();
  private lengths = new Uint32Array(1024);
  private alive = new Uint8Array(1024);
  /** Added but not yet searchable (see `add(…, hidden)`); purges keep their postings. */
  private pending = new Uint8Array(1024);
  private scores = new Float32Array(1024);
  private docCount = 0;
  private liveCount = 0;
  private liveLength = 0;
  private deadSincePurge = 0;
  private readonly k1: number;
  private readonly b: number;

  constructor(parameters: Partial<Bm25Parameters> = {}) {
    this.k1 = parameters.k1 ?? K1;
    this.b = parameters.b ?? B;
  }

  get size(): number {
    return this.liveCount;
  }

  /**
   * Adds a document given its tokens; returns its number (stable for the life of the index).
   * A `hidden` document is not searchable until `reveal` (or dropped by `discard`), so a file
   * indexed in several slices appears in results all at once. `length` is the document's length
   * for BM25's length normalisation (by default its number of tokens).
   */
  add(tokens: readonly string[], hidden = false, length = tokens.length): number {
    const doc = this.docCount++;
    this.lengths = grow(this.lengths, this.docCount, (n) => new Uint32Array(n));
    this.alive = grow(this.alive, this.docCount, (n) => new Uint8Array(n));
    this.pending = grow(this.pending, this.docCount, (n) => new Uint8Array(n));
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let postings = this.terms.get(term);
      if (!postings) {
        postings = new Postings();
        this.terms.set(term, postings);
      }
      postings.push(doc, tf);
    }
    this.lengths[doc] = length;
    if (hidden) this.pending[doc] = 1;
    else this.markLive(doc);
    return doc;
  }

  /** Makes hidden documents searchable. */
  reveal(docs: readonly number[]): void {
    for (const doc of docs) {
      if (!this.pending[doc]) continue;
      this.pending[doc] = 0;
      this.markLive(doc);
    }
  }

  /** Drops hidden documents that will never be revealed. */
  discard(docs: readonly number[]): void {
    for (const doc of docs) {
      if (!this.pending[doc]) continue;
      this.pending[doc] = 0;
      this.deadSincePurge++;
    }
  }

  private markLive(doc: number): void {
    this.alive[doc] = 1;
    this.liveCount++;
    this.liveLength += this.lengths[doc]!;
  }

  remove(doc: number): void {
    if (doc >= this.docCount || !this.alive[doc]) return;
    this.alive[doc] = 0;
    this.liveCount--;
    this.liveLength -= this.lengths[doc]!;
    this.deadSincePurge++;
    if (this.deadSincePurge > 1000 && this.deadSincePurge > this.liveCount / 4) this.purge();
  }

  /** Number of document slots (live and removed); the size an `allow` mask needs. */
  get capacity(): number {
    return this.docCount;
  }

  /**
   * The best `k` live documents for the query terms. `allow` (optional) is a mask indexed by
   * document number: only documents whose entry is non-zero are considered.
   */
  search(queryTerms: readonly string[], k: number, allow?: Uint8Array): ScoredDoc[] {
    return this.searchWeighted(new Map([...new Set(queryTerms)].map((term) => [term, 1])), k, allow);
  }

  /** Inverse document frequency of a term among the live documents (BM25's, always positive). */
  idf(term: string): number {
    const n = this.liveCount;
    const postings = this.terms.get(term);
    const df = postings ? Math.min(postings.length, n) : 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * Like `search`, each term's contribution multiplied by its weight (a query expanded with
   * feedback terms weighs its own words above the added ones). Scores stay in 0..1: divided by
   * the highest score the weighted query could reach.
   */
  searchWeighted(weights: ReadonlyMap<string, number>, k: number, allow?: Uint8Array): ScoredDoc[] {
    if (!weights.size || !this.liveCount || k <= 0) return [];
    if (this.scores.length < this.docCount) this.scores = new Float32Array(Math.max(this.docCount, this.scores.length * 2));
    const scores = this.scores;
    const { k1, b } = this;
    const averageLength = this.liveLength / this.liveCount || 1;
    const touched: number[] = [];
    let best = 0;
    for (const [term, weight] of weights) {
      if (!(weight > 0)) continue;
      const postings = this.terms.get(term);
      const weightedIdf = weight * this.idf(term);
      best += weightedIdf * (k1 + 1);
      if (!postings) continue;
      const { docs, tfs, length } = postings;
      for (let i = 0; i < length; i++) {
        const doc = docs[i]!;
        if (!this.alive[doc] || (allow && !allow[doc])) continue;
        const current = scores[doc]!;
        if (current === 0) touched.push(doc);
        const tf = tfs[i]!;
        scores[doc] = current + (weightedIdf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.lengths[doc]!) / averageLength));
      }
    }
    const result = best > 0 ? topK(touched, scores, k).map((doc) => ({ doc, score: Math.min(1, scores[doc]! / best) })) : [];
    for (const doc of touched) scores[doc] = 0;
    return result;
  }

  private purge(): void {
    for (const [term, postings] of this.terms) {
      let w = 0;
      for (let r = 0; r < postings.length; r++) {
        const doc = postings.docs[r]!;
        if (!this.alive[doc] && !this.pending[doc]) continue;
        postings.docs[w] = doc;
        postings.tfs[w] = postings.tfs[r]!;
        w++;
      }
      if (w === 0) this.terms.delete(term);
      else postings.length = w;
    }
    this.deadSincePurge = 0;
  }
}

/** Indices of the k highest positive scores, best first (min-heap of size k). */
function topK(candidates: readonly number[], scores: Float32Array, k: number): number[] {
  const heap: number[] = [];
  const less = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && less(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (const doc of candidates) {
    if (!(scores[doc]! > 0)) continue;
    if (heap.length < k) {
      heap.push(doc);
      for (let i = heap.length - 1; i > 0;) {
        const p = (i - 1) >> 1;
        if (!less(heap[i]!, heap[p]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    } else if (less(heap[0]!, doc)) {
      heap[0] = doc;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (less(a, b) ? 1 : less(b, a) ? -1 : 0));
}
