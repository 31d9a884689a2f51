// The heuristic engine: deterministic agents that need no model, the offline default and the quality baseline.
import type { Agents, PoolInsight } from '../types.js';
import { createHeuristicQueryExpander } from './query-expander.js';
import { createHeuristicReflector } from './reflector.js';
import { createHeuristicReranker } from './reranker.js';
import { createHeuristicScorer } from './scorer.js';

export function createHeuristicAgents(pool: PoolInsight): Agents {
  return {
    engine: 'heuristic',
    queryExpander: createHeuristicQueryExpander(pool),
    reranker: createHeuristicReranker(),
    scorer: createHeuristicScorer(),
    reflector: createHeuristicReflector(),
  };
}

export { createHeuristicQueryExpander, createHeuristicReflector, createHeuristicReranker, createHeuristicScorer };
