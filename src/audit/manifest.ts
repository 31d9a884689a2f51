// What a run's audit trail records about its engine: pinned model specs, model-layer settings, prompt and schema hashes.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { expansionSchema, QUERY_EXPANDER_INSTRUCTIONS } from '../agents/llm/query-expander.js';
import { REFLECTOR_INSTRUCTIONS, ReflectAnswer } from '../agents/llm/reflector.js';
import { RERANKER_INSTRUCTIONS } from '../agents/llm/reranker.js';
import { SCORER_INSTRUCTIONS, ScoreAnswer } from '../agents/llm/scorer.js';
import type { ModelSpec, ModelRegistry } from '../llm/model-registry.js';
import { AGENT_NAMES, type AgentName, type LlmSettings } from '../llm/settings.js';
import { promptHash } from '../llm/structured.js';
import type { Engine } from '../matching/domain.js';

/** Each agent's instructions and answer schema. The reranker's schema is an enum of each batch's labels; its shape is hashed. */
const PROMPTS: Record<AgentName, { template: string; schema: z.ZodType; schemaName: string }> = {
  queryExpander: { template: QUERY_EXPANDER_INSTRUCTIONS, schema: expansionSchema([]), schemaName: 'query_expansion' },
  reranker: { template: RERANKER_INSTRUCTIONS, schema: z.object({ ranking: z.array(z.string()) }), schemaName: 'candidate_ranking' },
  scorer: { template: SCORER_INSTRUCTIONS, schema: ScoreAnswer, schemaName: 'candidate_score' },
  reflector: { template: REFLECTOR_INSTRUCTIONS, schema: ReflectAnswer, schemaName: 'round_reflection' },
};

export interface AgentModelRecord {
  model: string;
  temperature: number;
  /** The registry entry as pinned when the run started (prices, limits); specHash changes when any of it does. */
  spec: ModelSpec | null;
  specHash: string | null;
}

export interface RunManifest {
  engine: Engine;
  embeddings: { model: string; dimension: number };
  /** llm engine only. */
  models?: Record<AgentName, AgentModelRecord>;
  settings?: { reaskLimit: number; maxRetries: number; timeoutMs: number };
  prompts?: Record<AgentName, { schemaName: string; promptHash: string }>;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function promptHashes(): Record<AgentName, { schemaName: string; promptHash: string }> {
  return Object.fromEntries(
    AGENT_NAMES.map((agent) => [agent, { schemaName: PROMPTS[agent].schemaName, promptHash: promptHash(PROMPTS[agent].template, PROMPTS[agent].schema) }]),
  ) as Record<AgentName, { schemaName: string; promptHash: string }>;
}

export function runManifest(
  engine: Engine,
  embeddings: { model: string; dimension: number },
  llm: { registry: ModelRegistry; settings: LlmSettings } | null,
): RunManifest {
  if (engine !== 'llm' || !llm) return { engine, embeddings };
  const models = Object.fromEntries(
    AGENT_NAMES.map((agent) => {
      const { model, temperature } = llm.settings.agents[agent];
      const spec = llm.registry.get(model) ?? null;
      return [agent, { model, temperature, spec, specHash: spec ? sha256(JSON.stringify(spec)) : null }];
    }),
  ) as Record<AgentName, AgentModelRecord>;
  const { reaskLimit, maxRetries, timeoutMs } = llm.settings;
  return { engine, embeddings, models, settings: { reaskLimit, maxRetries, timeoutMs }, prompts: promptHashes() };
}
