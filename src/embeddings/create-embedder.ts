// Chooses the embedder from config: the offline local one, or the endpoint's embeddings.
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import type { LlmLogger } from '../llm/chat.js';
import { createLlmClient } from '../llm/client.js';
import { createUsageSink, type LlmMetrics, type UsageLedger } from '../llm/engine.js';
import { loadPinnedRegistry } from '../llm/model-registry.js';
import type { Embedder } from './embedder.js';
import { createLlmEmbedder } from './llm-embedder.js';
import { createLocalEmbedder } from './local-embedder.js';

export interface EmbedderDeps {
  /** Where embedding calls are recorded; without it they are only logged (see llm-embedder.ts for the orgId rule). */
  usage?: Pick<UsageLedger, 'record'>;
  metrics?: LlmMetrics;
  logger?: LlmLogger;
  /**
   * The process's one model-request limiter (LLM_CONCURRENCY), shared with the chat caller: embeddings go to the
   * same LLM_BASE_URL, so they count against the same cap. Without it (the CLI's re-embed) the embedder has its own.
   */
  limiter?: LimitFunction;
}

export function createEmbedder(config: Config, deps: EmbedderDeps = {}): Embedder {
  if (config.EMBEDDINGS === 'local') return createLocalEmbedder();
  // An unknown or non-embedding LLM_EMBEDDING_MODEL throws here, at boot, naming the model.
  return createLlmEmbedder({
    client: createLlmClient(config.llm),
    registry: loadPinnedRegistry(config.MODEL_REGISTRY_PATH),
    settings: config.llm,
    ledger: createUsageSink({ usage: deps.usage, metrics: deps.metrics, logger: deps.logger }),
    logger: deps.logger,
    limiter: deps.limiter ?? pLimit(config.LLM_CONCURRENCY),
  });
}
