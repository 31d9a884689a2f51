// The pinned model registry: file validation, prices, and the boot check on agents' models.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UnknownModelError } from '../../src/llm/errors.js';
import { ConfigError } from '../../src/config.js';
import { checkConfiguredModels } from '../../src/agents/create-agents.js';
import { loadConfig } from '../../src/config.js';
import { assertAgentModels, costUsd, loadModelRegistry, loadPinnedRegistry } from '../../src/llm/model-registry.js';
import { parseLlmSettings } from '../../src/llm/settings.js';

const registry = loadModelRegistry();

test('config/models.json loads and pins the expected models', () => {
  for (const id of ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'qwen3:0.6b', 'llama3.1:8b', 'fake-chat']) {
    assert.equal(registry.chat(id)?.kind, 'chat', id);
  }
  assert.equal(registry.embedding('text-embedding-3-small')?.dimension, 1536);
  // Asked for 1,536 of its 3,072 dimensions: pgvector indexes (and a row stores in line) at most 2,000.
  assert.deepEqual([registry.embedding('text-embedding-3-large')?.dimension, registry.embedding('text-embedding-3-large')?.sendDimensions], [1536, true]);
  assert.equal(registry.embedding('fake-embed')?.kind, 'embedding');
  assert.equal(registry.chat('text-embedding-3-small'), undefined, 'an embedding model is not a chat model');
  assert.equal(registry.get('gpt-5-imaginary'), undefined);
});

test('costUsd prices uncached input, cached input and output separately', () => {
  const fake = registry.chat('fake-chat')!;
  assert.equal(costUsd(fake, { promptTokens: 1_000, cachedTokens: 400, completionTokens: 500 }), 0.0018);
  const mini = registry.chat('gpt-4o-mini')!;
  assert.equal(costUsd(mini, { promptTokens: 1_000_000, completionTokens: 0 }), 0.15);
  assert.equal(costUsd(mini, { promptTokens: 1_000_000, cachedTokens: 1_000_000, completionTokens: 1_000_000 }), 0.675);
  assert.equal(costUsd(registry.chat('qwen3:0.6b')!, { promptTokens: 5_000, completionTokens: 5_000 }), 0);
  // Cached tokens can never exceed the prompt (a confused provider report is clamped, not credited).
  assert.equal(costUsd(fake, { promptTokens: 100, cachedTokens: 1_000, completionTokens: 0 }), 0.00005);
});

test('the default settings pass the boot check', () => {
  assert.doesNotThrow(() => assertAgentModels(registry, parseLlmSettings({ apiKey: 'k' })));
});

test('boot fails on an unknown model, naming the agent and the model', () => {
  const settings = parseLlmSettings({ apiKey: 'k', agents: { scorer: { model: 'gpt-9-turbo' } } });
  assert.throws(
    () => assertAgentModels(registry, settings),
    (err: unknown) => err instanceof UnknownModelError && /agent "scorer" uses unknown model "gpt-9-turbo"/.test(err.message),
  );
});

test('boot fails on a model of the wrong kind, and on an unknown embedding model', () => {
  const settings = parseLlmSettings({ apiKey: 'k', agents: { reranker: { model: 'text-embedding-3-small' } }, embeddingModel: 'ada-003' });
  assert.throws(
    () => assertAgentModels(registry, settings),
    (err: unknown) =>
      err instanceof UnknownModelError &&
      /"reranker" uses non-chat model "text-embedding-3-small"/.test(err.message) &&
      /"embeddings" uses unknown model "ada-003"/.test(err.message),
  );
});

test('with EMBEDDINGS=local the embedding model is not checked: the endpoint embeds nothing', () => {
  const settings = parseLlmSettings({ apiKey: 'k', embeddingModel: 'ada-003' });
  assert.doesNotThrow(() => assertAgentModels(registry, settings, { embeddings: false }));
  assert.throws(() => assertAgentModels(registry, settings, { embeddings: true }), /"embeddings" uses unknown model "ada-003"/);
  // As the boot reads the configuration.
  const env = { LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'fake-chat', LLM_EMBEDDING_MODEL: 'ada-003' };
  assert.doesNotThrow(() => checkConfiguredModels(loadConfig({ ...env, EMBEDDINGS: 'local' })));
  assert.throws(() => checkConfiguredModels(loadConfig({ ...env, EMBEDDINGS: 'llm' })), /LLM_EMBEDDING_MODEL: agent "embeddings" uses model "ada-003"/);
});

test('an invalid registry file is refused with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'models-'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ models: [{ id: 'x', kind: 'chat', provider: 'p', contextWindow: 10, pricing: { inputPerMTok: -1, cachedInputPerMTok: 0, outputPerMTok: 0 } }] }));
  assert.throws(() => loadModelRegistry(bad), /invalid/);
  const dup = join(dir, 'dup.json');
  const model = { id: 'x', kind: 'embedding', provider: 'p', contextWindow: 10, dimension: 3, pricing: { inputPerMTok: 0, cachedInputPerMTok: 0, outputPerMTok: 0 } };
  writeFileSync(dup, JSON.stringify({ models: [model, model] }));
  assert.throws(() => loadModelRegistry(dup), /unique/);
  const long = join(dir, 'long.json');
  writeFileSync(long, JSON.stringify({ models: [{ ...model, dimension: 3072 }] }));
  assert.throws(() => loadModelRegistry(long), /at most 2000: pgvector indexes no longer vectors/);
  const notJson = join(dir, 'nope.json');
  writeFileSync(notJson, '{');
  assert.throws(() => loadModelRegistry(notJson), /not valid JSON/);
});

test("the bundled Ollama chat models are registered at the window operations.md tells an Ollama server to have", () => {
  // Ollama cuts a longer prompt without an error: a registry window past the server's would let the scorer send one.
  const ollama = loadModelRegistry().models.filter((m) => m.provider === 'ollama' && m.kind === 'chat');
  assert.ok(ollama.length >= 2);
  for (const m of ollama) assert.equal(m.contextWindow, 16384, m.id);
});

test('a registry file that cannot be read stops the boot in one line naming MODEL_REGISTRY_PATH', () => {
  assert.throws(() => loadPinnedRegistry('/nonexistent/models.json'), (err: unknown) => err instanceof ConfigError && err.message === 'MODEL_REGISTRY_PATH=/nonexistent/models.json: no such file');
  assert.throws(() => loadPinnedRegistry(tmpdir()), (err: unknown) => err instanceof ConfigError && /^MODEL_REGISTRY_PATH=.*: a directory, not a file$/.test(err.message));
});
