// Chooses the embedder from config: the offline local one, or the endpoint's embeddings.
import type { Config } from '../config.js';
import type { Embedder } from './embedder.js';
import { createLocalEmbedder } from './local-embedder.js';

export function createEmbedder(config: Config): Embedder {
  if (config.EMBEDDINGS === 'local') return createLocalEmbedder();
  throw new Error('EMBEDDINGS=llm is wired in src/embeddings/llm-embedder.ts');
}
