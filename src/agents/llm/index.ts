// The LLM engine's agents: the four interfaces implemented by prompts, schemas and one tool over a shared chat caller.
import type { Agents } from '../types.js';
import type { LlmAgentDeps } from './prompt.js';
import { createLlmQueryExpander } from './query-expander.js';
import { createLlmReflector } from './reflector.js';
import { createLlmReranker } from './reranker.js';
import { createLlmScorer } from './scorer.js';

export type { LlmAgentDeps } from './prompt.js';

export function createLlmAgents(deps: LlmAgentDeps): Agents {
  return Object.freeze({
    engine: 'llm' as const,
    queryExpander: createLlmQueryExpander(deps),
    reranker: createLlmReranker(deps),
    scorer: createLlmScorer(deps),
    reflector: createLlmReflector(deps),
  });
}
