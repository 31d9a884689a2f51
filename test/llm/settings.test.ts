// The model layer's settings: defaults, per-agent overrides, and refusal of bad values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLlmSettings } from '../../src/llm/settings.js';

test('defaults fill everything; the key may be absent (local servers)', () => {
  assert.equal(parseLlmSettings({}).apiKey, undefined);
  const s = parseLlmSettings({ apiKey: 'k' });
  assert.equal(s.baseUrl, undefined);
  assert.equal(s.timeoutMs, 60_000);
  assert.equal(s.maxRetries, 3);
  assert.equal(s.retryBaseMs, 500);
  assert.equal(s.retryMaxMs, 20_000);
  assert.equal(s.reaskLimit, 1);
  assert.equal(s.embeddingModel, 'text-embedding-3-small');
  assert.deepEqual(s.agents, {
    queryExpander: { model: 'gpt-4o-mini', temperature: 0.2 },
    reranker: { model: 'gpt-4o-mini', temperature: 0.2 },
    scorer: { model: 'gpt-4o-mini', temperature: 0 },
    reflector: { model: 'gpt-4o-mini', temperature: 0.2 },
  });
});

test('overriding one agent keeps the defaults of the others and of its own missing fields', () => {
  const s = parseLlmSettings({ apiKey: 'k', agents: { scorer: { model: 'llama3.1:8b' } } });
  assert.deepEqual(s.agents.scorer, { model: 'llama3.1:8b', temperature: 0 });
  assert.deepEqual(s.agents.reranker, { model: 'gpt-4o-mini', temperature: 0.2 });
});

test('bad values are refused', () => {
  assert.throws(() => parseLlmSettings({ apiKey: '' }));
  assert.throws(() => parseLlmSettings({ apiKey: 'k', baseUrl: 'not a url' }));
  assert.throws(() => parseLlmSettings({ apiKey: 'k', maxRetries: -1 }));
  assert.throws(() => parseLlmSettings({ apiKey: 'k', agents: { scorer: { temperature: 3 } } }));
});
