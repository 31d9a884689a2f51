// LLM_CONCURRENCY is one cap per process: chat and embedding requests to the endpoint wait for the same slots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';

test('an embedding request waits for a slot a chat request holds (LLM_CONCURRENCY=1)', async (t) => {
  const fake = await startFakeLlmServer();
  t.after(() => fake.close());
  const base = scriptedModel();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held = false;
  fake.setHandler(async (req) => {
    // The run's first chat request is held until the test releases it; embeddings answer at once.
    if (req.path !== '/v1/embeddings' && !held) {
      held = true;
      await gate;
    }
    return base(req);
  });
  const rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: fake.url, LLM_MODEL: 'fake-chat', EMBEDDINGS: 'llm', LLM_EMBEDDING_MODEL: 'fake-embed', LLM_CONCURRENCY: '1' });
  t.after(() => rt.close());
  await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool('b-') } });
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, targetStrong: 50, scoreLimit: 2 } });
  const runId = res.json<{ id: string }>().id;
  await waitFor(async () => held && fake.inFlight === 1, 10_000, 'the held chat request');
  const embeddingsBefore = fake.requests.filter((r) => r.path === '/v1/embeddings').length;
  const upload = rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: [candidate('late-1', { resume: 'Go engineer' })] } });
  // Queued for the slot, not merely slow: a fixed pause would pass as well if the upload had not got that far yet.
  await waitFor(async () => rt.services.modelLimiter.pendingCount === 1, 10_000, 'the upload’s embedding to queue for the slot');
  assert.equal(fake.requests.filter((r) => r.path === '/v1/embeddings').length, embeddingsBefore, 'the upload embedding waited for the chat slot');
  assert.equal(fake.maxInFlight, 1);
  release();
  assert.equal((await upload).statusCode, 200);
  await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() })).json<{ status: string }>();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 30_000, 'the run to finish');
  assert.equal(fake.maxInFlight, 1, 'never more than LLM_CONCURRENCY requests in flight');
});
