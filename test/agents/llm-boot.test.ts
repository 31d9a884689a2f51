// Boot wiring of the llm engine: config.llm from the LLM_* variables, and an unknown model stopping the boot by name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { createConfiguredLlmEngine } from '../../src/agents/create-agents.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createEmbedder } from '../../src/embeddings/create-embedder.js';
import { createMetrics } from '../../src/metrics.js';
import { startRuntime } from '../../src/runtime.js';
import { fakePool } from './llm-harness.js';

const base = { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'sk-test', LLM_MODEL: 'fake-chat', LLM_EMBEDDING_MODEL: 'fake-embed' };
const services = {
  usage: { runTotals: async () => ({ calls: 0, tokens: 0, costUsd: 0 }) },
  journal: { record: async () => {} },
  metrics: createMetrics({ defaultMetrics: false }),
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  erasureGuard: { erasedAmong: async () => [] },
} as unknown as Parameters<typeof createConfiguredLlmEngine>[1];

test('config.llm carries the model layer settings built from the LLM_* variables', () => {
  const c = loadConfig({ ...base, LLM_TIMEOUT_MS: '5000', LLM_MAX_RETRIES: '4', LLM_REASK_LIMIT: '2', LLM_MODEL_SCORER: 'fake-chat-loose' });
  assert.equal(c.engine, 'llm');
  assert.equal(c.llm.baseUrl, base.LLM_BASE_URL);
  assert.equal(c.llm.apiKey, 'sk-test');
  assert.equal(c.llm.timeoutMs, 5000);
  assert.equal(c.llm.maxRetries, 4);
  assert.equal(c.llm.reaskLimit, 2);
  assert.equal(c.llm.embeddingModel, 'fake-embed');
  assert.deepEqual(c.llm.agents.scorer, { model: 'fake-chat-loose', temperature: 0 });
  assert.deepEqual(c.llm.agents, c.agentModels, 'one source for agent models');
  assert.equal(loadConfig({}).llm.baseUrl, undefined, 'no endpoint configured: still a valid (unused) settings object');
});

test('an unknown model stops the boot with a message naming the agent, the model and the variable', () => {
  const config = loadConfig({ ...base, LLM_MODEL_SCORER: 'gpt-9-turbo' });
  assert.throws(
    () => createConfiguredLlmEngine(config, services, fakePool().pool),
    (err: unknown) =>
      err instanceof ConfigError && /agent "scorer"/.test(err.message) && /"gpt-9-turbo"/.test(err.message) && /LLM_MODEL_SCORER/.test(err.message),
  );
  // The embedding model is checked when the endpoint embeds (EMBEDDINGS=llm; with local embeddings it is not used).
  const embedAsChat = loadConfig({ ...base, EMBEDDINGS: 'llm', LLM_EMBEDDING_MODEL: 'fake-chat' });
  assert.throws(() => createConfiguredLlmEngine(embedAsChat, services, fakePool().pool), /LLM_EMBEDDING_MODEL.*"fake-chat"/);
});

test('known models boot an engine whose agents are the llm ones', () => {
  const engine = createConfiguredLlmEngine(loadConfig(base), services, fakePool().pool);
  assert.equal(engine.agents.engine, 'llm');
});

test('EMBEDDINGS=llm builds the endpoint embedder from the registry; local stays the default', () => {
  const llm = createEmbedder(loadConfig({ ...base, EMBEDDINGS: 'llm' }));
  assert.deepEqual([llm.model, llm.dimension], ['fake-embed', 1536]);
  assert.notEqual(createEmbedder(loadConfig({})).model, 'fake-embed');
  assert.throws(() => createEmbedder(loadConfig({ ...base, EMBEDDINGS: 'llm', LLM_EMBEDDING_MODEL: 'nope-embed' })), /nope-embed/);
});

test('an api process with an unknown model stops at boot too, before it opens the database: it would accept runs no worker starts', async () => {
  const config = loadConfig({ ...base, PROCESS_ROLE: 'api', LLM_MODEL: 'no-such-model', DATA_DIR: 'memory://' });
  await assert.rejects(startRuntime(config, { logger: pino({ enabled: false }) }), (err: unknown) => err instanceof ConfigError && /LLM_MODEL.*"no-such-model"/.test(err.message));
});
