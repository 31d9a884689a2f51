// Chooses each run's agents by its engine and gives them what they need per call (budget, deadline).
import { runManifest, type RunManifest } from '../audit/manifest.js';
import { memoizeUntilErased } from '../cache/erasure-epoch.js';
import { ConfigError, type Config } from '../config.js';
import { createLlmEngine, isBudgetError, runBudget, type LlmEngine } from '../llm/engine.js';
import { UnknownModelError } from '../llm/errors.js';
import { assertAgentModels, loadPinnedRegistry, type ModelRegistry } from '../llm/model-registry.js';
import type { Engine } from '../matching/domain.js';
import type { ClaimedRun } from '../runs/run-queue.js';
import type { Services } from '../services.js';
import { createHeuristicAgents } from './heuristic/index.js';
import type { AgentCallContext, Agents, PoolInsight } from './types.js';

// Which variable sets each agent's model, so a boot failure tells the operator what to change.
const MODEL_VARIABLES: Record<string, string> = {
  queryExpander: 'LLM_MODEL_QUERY_EXPANDER (or LLM_MODEL)',
  reranker: 'LLM_MODEL_RERANKER (or LLM_MODEL)',
  scorer: 'LLM_MODEL_SCORER (or LLM_MODEL)',
  reflector: 'LLM_MODEL_REFLECTOR (or LLM_MODEL)',
  embeddings: 'LLM_EMBEDDING_MODEL',
};

/**
 * Boot check for the llm engine, in every process role (an api process that accepted runs no worker could start would
 * fill the queue): the pinned registry loads and knows every configured model, or the boot stops naming the variable.
 */
export function checkConfiguredModels(config: Config): ModelRegistry {
  const registry = loadPinnedRegistry(config.MODEL_REGISTRY_PATH);
  try {
    assertAgentModels(registry, config.llm, { embeddings: config.EMBEDDINGS === 'llm' });
  } catch (err) {
    if (!(err instanceof UnknownModelError)) throw err;
    const lines = err.problems.map((p) => `${MODEL_VARIABLES[p.agent] ?? p.agent}: agent "${p.agent}" uses model "${p.model}", which is not a pinned model of the right kind`);
    const known = registry.models.map((m) => `${m.id} (${m.kind})`).join(', ');
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}\n  pinned models in ${config.MODEL_REGISTRY_PATH}: ${known}`);
  }
  return registry;
}

/** The llm engine of a process that runs matching runs, built at boot (checkConfiguredModels first). */
export function createConfiguredLlmEngine(
  config: Config,
  services: Pick<Services, 'erasureGuard' | 'usage' | 'journal' | 'metrics' | 'logger'> & Partial<Pick<Services, 'modelLimiter'>>,
  pool: PoolInsight,
): LlmEngine {
  const registry = checkConfiguredModels(config);
  return createLlmEngine({
    settings: config.llm,
    registry,
    // Ledger rows go through the journal (an answer never waits for its row); budgets are read back from the store.
    usage: { record: services.journal.record, runTotals: services.usage.runTotals },
    metrics: services.metrics,
    logger: services.logger,
    pool,
    concurrency: config.LLM_CONCURRENCY,
    // Shared with the embedder: LLM_CONCURRENCY caps chat and embedding requests together.
    limiter: services.modelLimiter,
    // A scorer or rerank request that waited past its candidate's erasure is not sent.
    erasedAmong: services.erasureGuard.erasedAmong,
  });
}

const VOCABULARY_TTL_MS = 60_000;
const VOCABULARY_MAX_AGE_MS = 15 * 60_000;
// Up to 1,000 skills (~140 KB) an organisation: a process serving many keeps the most recently used, as term-rarity.ts.
const VOCABULARY_MAX_ORGANISATIONS = 64;

export function createAgentsFactory(config: Config, services: Services) {
  // Every expansion reads it (a GROUP BY over every candidate's skills); a minute-old vocabulary only
  // misses skills of candidates added within that minute, which the expander then does not offer as filters.
  // Recomputed in the background once that old, so that no expansion but an organisation's first waits for it.
  // The expander suggests the vocabulary's skills to a model: an erased candidate's must not outlive the erasure, in
  // whichever process it was made, so each expansion checks the organisation's erasure count (one indexed read).
  const vocabulary = memoizeUntilErased(services.db, VOCABULARY_TTL_MS, VOCABULARY_MAX_AGE_MS, services.candidateStore.skillVocabulary, {
    maxKeys: VOCABULARY_MAX_ORGANISATIONS,
  });
  const pool: PoolInsight = { skillVocabulary: vocabulary.current, countMatching: services.candidateStore.countMatching };
  const heuristic = createHeuristicAgents(pool);
  // Built at boot only for the llm engine, so a bad model name stops the process before it claims any run.
  const llm = config.engine === 'llm' ? createConfiguredLlmEngine(config, services, pool) : null;
  return {
    /** Told when a run reads candidates' texts: the starting point of the check before a model request carries them. */
    erasureGuard: services.erasureGuard,
    /** The engines this process can drive: its worker claims only their runs. */
    engines: (llm ? ['heuristic', 'llm'] : ['heuristic']) as readonly Engine[],
    agentsFor(engine: Engine): Agents {
      if (engine === 'heuristic') return heuristic;
      if (!llm) throw new Error('the llm engine is not configured in this process (MATCH_ENGINE / LLM_BASE_URL)');
      return llm.agents;
    },
    async callContextFor(run: ClaimedRun, signal: AbortSignal, deadline: number): Promise<AgentCallContext> {
      if (run.engine === 'llm' && llm) return llm.callContextFor(run, signal, deadline);
      // Heuristic agents are free, but queries the endpoint embeds are paid model calls: they spend within the run's budget.
      if (config.EMBEDDINGS !== 'llm') return { signal, runId: run.id, orgId: run.orgId, deadline };
      const budget = await runBudget(run, deadline, { usage: services.usage, reaskLimit: config.llm.reaskLimit });
      return { signal, runId: run.id, orgId: run.orgId, budget, deadline };
    },
    isBudgetError,
    /** What the run's audit trail records about the engine: model specs, settings, prompt and schema hashes. */
    manifestFor(engine: Engine): RunManifest {
      const embeddings = { model: services.embedder.model, dimension: services.embedder.dimension };
      return runManifest(engine, embeddings, llm ? { registry: llm.registry, settings: llm.caller.settings() } : null);
    },
  };
}
