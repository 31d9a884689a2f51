// What the model layer needs from configuration, as a zod schema; src/config.ts builds it from the environment.
import { z } from 'zod';
import { DEFAULT_MAX_RESPONSE_BYTES } from './http-fetch.js';

export const AGENT_NAMES = ['queryExpander', 'reranker', 'scorer', 'reflector'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export const DEFAULT_CHAT_MODEL = 'gpt-4o-mini';
export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

const agentModel = (temperature: number) =>
  z
    .object({
      model: z.string().min(1).default(DEFAULT_CHAT_MODEL).describe('pinned model id from config/models.json'),
      temperature: z.number().min(0).max(2).default(temperature),
    })
    .prefault({});

export const llmSettingsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }).optional().describe('OpenAI-compatible base URL ending in /v1; undefined means api.openai.com'),
  apiKey: z.string().min(1).optional().describe('provider API key; unset for local servers (Ollama, vLLM) that need none'),
  timeoutMs: z.number().int().positive().default(60_000).describe('per-request timeout'),
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(DEFAULT_MAX_RESPONSE_BYTES)
    .describe('cap on one answer body (after decompression); a larger one is refused and its socket closed'),
  maxRetries: z.number().int().min(0).max(10).default(3).describe('our retries; the SDK never retries'),
  retryBaseMs: z.number().int().positive().default(500),
  retryMaxMs: z.number().int().positive().default(20_000),
  reaskLimit: z.number().int().min(0).max(5).default(1).describe('re-asks after an invalid structured answer'),
  agents: z
    .object({
      queryExpander: agentModel(0.2),
      reranker: agentModel(0.2),
      // The scorer is deterministic on purpose: the same candidate should get the same sub-scores.
      scorer: agentModel(0),
      reflector: agentModel(0.2),
    })
    .prefault({}),
  embeddingModel: z.string().min(1).default(DEFAULT_EMBEDDING_MODEL),
});

export type LlmSettings = z.output<typeof llmSettingsSchema>;
export type LlmSettingsInput = z.input<typeof llmSettingsSchema>;

export function parseLlmSettings(input: LlmSettingsInput): LlmSettings {
  return llmSettingsSchema.parse(input);
}
