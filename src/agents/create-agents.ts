// Chooses each run's agents by its engine and gives them what they need per call (budget, deadline).
import type { Config } from '../config.js';
import type { Engine } from '../matching/domain.js';
import type { ClaimedRun } from '../runs/run-queue.js';
import type { Services } from '../services.js';
import { createHeuristicAgents } from './heuristic/index.js';
import type { AgentCallContext, Agents, PoolInsight } from './types.js';

export function createAgentsFactory(_config: Config, services: Services) {
  const pool: PoolInsight = {
    skillVocabulary: services.candidateStore.skillVocabulary,
    countMatching: services.candidateStore.countMatching,
  };
  const heuristic = createHeuristicAgents(pool);
  return {
    agentsFor(engine: Engine): Agents {
      if (engine === 'heuristic') return heuristic;
      throw new Error('the llm engine is not configured in this process');
    },
    async callContextFor(run: ClaimedRun, signal: AbortSignal, _deadline: number): Promise<AgentCallContext> {
      return { signal, runId: run.id, orgId: run.orgId };
    },
    isBudgetError(_err: unknown): boolean {
      return false;
    },
  };
}
