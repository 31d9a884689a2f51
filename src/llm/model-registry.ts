// The pinned model registry (config/models.json): which models agents may use, their limits and their prices.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, pathProblem } from '../config.js';
import { UnknownModelError } from './errors.js';
import { AGENT_NAMES, type LlmSettings } from './settings.js';

const pricing = z.strictObject({
  inputPerMTok: z.number().min(0),
  cachedInputPerMTok: z.number().min(0),
  outputPerMTok: z.number().min(0),
});

const common = {
  id: z.string().min(1),
  provider: z.string().min(1),
  contextWindow: z.number().int().positive(),
  pricing,
};

const chatModel = z.strictObject({
  ...common,
  kind: z.literal('chat'),
  maxOutputTokens: z.number().int().positive(),
  supportsStrictJsonSchema: z.boolean(),
});

const embeddingModel = z.strictObject({
  ...common,
  kind: z.literal('embedding'),
  // The most an HNSW index takes, and what a row stores in line (migration 006): a larger model is asked for shorter
  // vectors (sendDimensions), as OpenAI's text-embedding-3 models and other Matryoshka-trained ones can give.
  dimension: z.number().int().positive().max(2000, 'at most 2000: pgvector indexes no longer vectors (ask for shorter ones with sendDimensions)'),
  /** The request names the dimension (the `dimensions` parameter): the model's own vectors are longer. */
  sendDimensions: z.boolean().optional(),
});

const modelSpec = z.discriminatedUnion('kind', [chatModel, embeddingModel]);

export const modelsFileSchema = z.object({
  models: z
    .array(modelSpec)
    .min(1)
    .refine((models) => new Set(models.map((m) => m.id)).size === models.length, 'model ids must be unique'),
});

export type ChatModelSpec = z.output<typeof chatModel>;
export type EmbeddingModelSpec = z.output<typeof embeddingModel>;
export type ModelSpec = z.output<typeof modelSpec>;

export interface TokenUsage {
  promptTokens: number;
  /** The part of promptTokens served from the provider's prompt cache (billed at the cached price). */
  cachedTokens?: number;
  completionTokens: number;
}

export function createModelRegistry(models: readonly ModelSpec[]) {
  const byId = new Map(models.map((m) => [m.id, Object.freeze({ ...m })] as const));
  return Object.freeze({
    models: Object.freeze([...byId.values()]),
    get(id: string): ModelSpec | undefined {
      return byId.get(id);
    },
    chat(id: string): ChatModelSpec | undefined {
      const m = byId.get(id);
      return m?.kind === 'chat' ? m : undefined;
    },
    embedding(id: string): EmbeddingModelSpec | undefined {
      const m = byId.get(id);
      return m?.kind === 'embedding' ? m : undefined;
    },
  });
}

export type ModelRegistry = ReturnType<typeof createModelRegistry>;

/** config/models.json resolved from this module, so it works from src/llm (tsx) and dist/llm (build) alike. */
export function defaultModelsPath(): string {
  for (const rel of ['../../config/models.json', '../../../config/models.json']) {
    const candidate = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(candidate)) return candidate;
  }
  return fileURLToPath(new URL('../../config/models.json', import.meta.url));
}

export function loadModelRegistry(path: string = defaultModelsPath()): ModelRegistry {
  const text = readFileSync(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`model registry ${path} is not valid JSON`, { cause: err });
  }
  const parsed = modelsFileSchema.safeParse(json);
  if (!parsed.success) throw new Error(`model registry ${path} is invalid:\n${z.prettifyError(parsed.error)}`);
  return createModelRegistry(parsed.data.models);
}

/**
 * MODEL_REGISTRY_PATH as given, or the bundled registry when the default relative path is not under the working
 * directory. A file that cannot be read or is not a registry stops the boot in one line naming the variable.
 */
export function loadPinnedRegistry(path: string): ModelRegistry {
  try {
    return loadModelRegistry(existsSync(path) || path !== 'config/models.json' ? path : defaultModelsPath());
  } catch (err) {
    throw new ConfigError(`MODEL_REGISTRY_PATH=${path}: ${pathProblem(err)}`);
  }
}

/**
 * Boot check: every agent's model is a pinned chat model and, when the endpoint embeds (`embeddings`, the default;
 * EMBEDDINGS=llm), the embedding model a pinned embedding model.
 */
export function assertAgentModels(registry: ModelRegistry, settings: Pick<LlmSettings, 'agents' | 'embeddingModel'>, opts: { embeddings?: boolean } = {}): void {
  const problems: Array<{ agent: string; model: string; reason: string }> = [];
  for (const agent of AGENT_NAMES) {
    const id = settings.agents[agent].model;
    const found = registry.get(id);
    if (!found) problems.push({ agent, model: id, reason: 'unknown' });
    else if (found.kind !== 'chat') problems.push({ agent, model: id, reason: 'non-chat' });
  }
  // EMBEDDINGS=local: the endpoint embeds nothing, and its embedding model is no concern of this configuration.
  if (opts.embeddings !== false) {
    const embed = registry.get(settings.embeddingModel);
    if (!embed) problems.push({ agent: 'embeddings', model: settings.embeddingModel, reason: 'unknown' });
    else if (embed.kind !== 'embedding') problems.push({ agent: 'embeddings', model: settings.embeddingModel, reason: 'non-embedding' });
  }
  if (problems.length > 0) throw new UnknownModelError(problems, registry.models.map((m) => m.id));
}

/** USD for one call: uncached prompt, cached prompt and completion tokens, each at its own per-million price. */
export function costUsd(model: ModelSpec, usage: TokenUsage): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const p = model.pricing;
  const micro = (usage.promptTokens - cached) * p.inputPerMTok + cached * p.cachedInputPerMTok + usage.completionTokens * p.outputPerMTok;
  // Rounded to 1e-10 USD so sums of many small calls stay free of float noise in the ledger.
  return Math.round((micro / 1_000_000) * 1e10) / 1e10;
}
