// The embedding port: turns texts into fixed-length vectors. Retrieval and indexing depend only on this.
import type { Budget } from '../llm/budget.js';
import type { LlmLogger } from '../llm/chat.js';

export interface EmbedOptions {
  /** Aborts a long batch; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Who pays: embedders that call a model record the call in this organisation's ledger. */
  orgId?: string;
  /**
   * The run the texts are embedded for (a run's search queries): embedders that call a model record the call
   * under it, so the run's usage and budget include it. Ingestion embeds for no run.
   */
  runId?: string | null;
  /** The run's allowance: a model call reserves against it before it is sent, and is refused if it does not fit. */
  budget?: Budget;
  /** Epoch ms: no model request starts, and no retry waits, past it. */
  deadline?: number;
  /**
   * Called before the texts go anywhere: by an embedder that calls a model, inside its slot before each attempt's
   * request (a retry after a back-off included); by one that sends nothing, once. A throw stops the embedding unsent,
   * not retried and not charged, and is passed on as it is (reembed: a candidate erased meanwhile).
   */
  beforeSend?: () => Promise<void>;
  /**
   * Where an embedder that calls a model logs its attempts: the run's logger (runId, orgId, iteration) or the request's
   * (reqId); the process's own otherwise.
   */
  logger?: LlmLogger;
}

export interface Embedder {
  /** Stored next to every vector: vectors from different models or dimensions must never be compared. */
  readonly model: string;
  readonly dimension: number;
  /** One vector per text, in input order. */
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
}
