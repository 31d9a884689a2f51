// The embedding port: turns texts into fixed-length vectors. Retrieval and indexing depend only on this.

export interface EmbedOptions {
  /** Aborts a long batch; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Who pays: embedders that call a model record the call in this organisation's ledger. */
  orgId?: string;
}

export interface Embedder {
  /** Stored next to every vector: vectors from different models or dimensions must never be compared. */
  readonly model: string;
  readonly dimension: number;
  /** One vector per text, in input order. */
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
}
