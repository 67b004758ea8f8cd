/** Turns texts into vectors for hybrid search (an upstream embedding model). */
export interface Embedder {
  /** The model used by the last call (stored beside the vectors). */
  readonly model: string;
  /** One vector per text, or an empty list when no embedding model is available. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
