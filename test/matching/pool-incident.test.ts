// The seed design's outage as a regression test: 15 multi-second scorer calls against a pool of 2
// with a 1 s checkout timeout. Holding a connection while a model works would starve 13 of them. Uploads too: their
// embeddings are model calls.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeReply, startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { MIDDLING, scriptedModel } from '../support/scripted-model.js';

let fake: FakeLlmServer;
let rt: TestRuntime;

before(async () => {
  fake = await startFakeLlmServer();
  rt = await startTestRuntime({
    MATCH_ENGINE: 'llm',
    LLM_BASE_URL: fake.url,
    LLM_MODEL: 'fake-chat',
    LLM_CONCURRENCY: '32',
    DB_POOL_MAX: '2',
    DB_CONNECTION_TIMEOUT_MS: '1000',
    // Uploads embed through the model server too: an upload must not hold a connection while it waits (below).
    EMBEDDINGS: 'llm',
    LLM_EMBEDDING_MODEL: 'fake-embed',
  });
  const pool = Array.from({ length: 20 }, (_, i) => candidate(`p${i}`, { resume: `Go engineer ${i}: Kubernetes, gRPC and PostgreSQL services for ${i + 2} years.` }));
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool } })).statusCode, 200);
});
after(async () => {
  await rt.close();
  await fake.close();
});

test('15 concurrent 2.5 s scorer calls on a pool of 2 finish with zero connection timeouts', async () => {
  fake.setHandler(
    scriptedModel({
      override: (req) =>
        req.agent === 'scorer'
          ? { ...fakeReply.json({ subscores: MIDDLING, rationale: 'ok', evidence: { hardSkills: [], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] } }), delayMs: 2500 }
          : undefined,
    }),
  );
  const res = await rt.app!.inject({
    method: 'POST',
    url: '/v1/matching-runs',
    headers: rt.auth(),
    payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 15, targetStrong: 50 },
  });
  const id = res.json().id;
  const done = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return ['succeeded', 'failed'].includes(r.status) ? r : null;
  }, 60_000);
  assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
  assert.equal(done.shortlist.length, 15, 'all fifteen scored');
  assert.equal(fake.maxInFlight, 15, 'the calls really overlapped');
  assert.ok(!/timeout exceeded when trying to connect/i.test(rt.logText()), 'no pool checkout timed out');
  assert.equal(rt.db.poolStats().total <= 2, true);
});

test('4 concurrent uploads whose embeddings take 1.5 s each, on a pool of 2, finish with zero connection timeouts', async () => {
  fake.setLatency(1500);
  fake.resetMaxInFlight();
  try {
    const uploads = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: [candidate(`slow-${i}`, { resume: `Rust engineer ${i} with ${i + 3} years of Tokio.` })] } }),
      ),
    );
    assert.deepEqual(uploads.map((u) => u.statusCode), [200, 200, 200, 200], uploads.map((u) => u.body).join('\n'));
    assert.ok(fake.maxInFlight >= 3, `the embedding calls overlapped: ${fake.maxInFlight}`);
    assert.ok(!/timeout exceeded when trying to connect/i.test(rt.logText()), 'no pool checkout timed out');
  } finally {
    fake.setLatency(0);
  }
});
