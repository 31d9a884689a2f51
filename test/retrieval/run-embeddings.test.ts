// A run's retrieval embeds its queries on the run's account: ledger rows under its id, in its usage and budget.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeReply, startFakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startRestartableDatabase } from '../support/restartable-database.js';
import { startTestRuntime, waitFor } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';

test('EMBEDDINGS=llm: the embedding requests of a run are its ledger rows and in its usage; ingestion’s stay the organisation’s', async (t) => {
  const fake = await startFakeLlmServer();
  t.after(() => fake.close());
  fake.setHandler(scriptedModel());
  const rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: fake.url, LLM_MODEL: 'fake-chat', EMBEDDINGS: 'llm', LLM_EMBEDDING_MODEL: 'fake-embed' });
  t.after(() => rt.close());
  await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool('b-') } });
  const embeddings = () => fake.requests.filter((r) => r.path === '/v1/embeddings').length;
  const before = embeddings();
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 2, targetStrong: 50, scoreLimit: 3 } });
  const runId = res.json<{ id: string }>().id;
  const run = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() })).json<{ status: string; usage: { llmCalls: number; promptTokens: number } }>();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 60_000, 'the run to finish');
  assert.equal(run.status, 'succeeded');
  await rt.services.journal.flush();
  const during = embeddings() - before;
  assert.ok(during >= 2, `one embedding request per round, got ${during}`);

  const rows = (
    await rt.db.query<{ run_id: string | null; n: number; prompt: number }>(
      `SELECT run_id, count(*)::int AS n, sum(prompt_tokens)::int AS prompt FROM model_calls WHERE agent = 'embedder' GROUP BY 1 ORDER BY 1 NULLS FIRST`,
    )
  ).rows;
  assert.deepEqual(rows.map((r) => [r.run_id, r.n]), [[null, 1], [runId, during]], 'ingestion is the organisation’s, the queries the run’s');
  const ledger = (await rt.db.query<{ n: number; prompt: number }>('SELECT count(*)::int AS n, sum(prompt_tokens)::int AS prompt FROM model_calls WHERE run_id = $1', [runId])).rows[0]!;
  assert.equal(run.usage.llmCalls, ledger.n, 'the run’s usage counts its embedding calls');
  assert.equal(run.usage.promptTokens, ledger.prompt);
  assert.deepEqual(await rt.services.usage.runTotals(runId).then((x) => x.calls), ledger.n, 'a resumed budget reads them back');
});

test('a heuristic run whose queries an endpoint embeds spends within its own budget: refused, it stops on the budget', async (t) => {
  const fake = await startFakeLlmServer();
  t.after(() => fake.close());
  const rt = await startTestRuntime({ MATCH_ENGINE: 'heuristic', EMBEDDINGS: 'llm', LLM_BASE_URL: fake.url, LLM_EMBEDDING_MODEL: 'fake-embed' });
  t.after(() => rt.close());
  await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool('h-') } });
  const before = fake.requests.filter((r) => r.path === '/v1/embeddings').length;
  // No money for model work: the run's first query embedding does not fit.
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, budget: { maxTokens: 200_000, maxCostUsd: 0 } } });
  assert.equal(res.statusCode, 202, res.body);
  const runId = res.json<{ id: string }>().id;
  const run = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() })).json<{ status: string; stop: { reason: string } | null; usage: { costUsd: number } }>();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 60_000, 'the run to finish');
  assert.equal(fake.requests.filter((r) => r.path === '/v1/embeddings').length, before, 'no embedding request was sent for the run');
  assert.deepEqual([run.status, run.stop?.reason, run.usage.costUsd], ['succeeded', 'budget', 0]);
  const rows = await rt.db.query<{ outcome: string }>('SELECT outcome FROM model_calls WHERE run_id = $1', [runId]);
  assert.deepEqual(rows.rows.map((r) => r.outcome), ['budget'], 'the refusal is the run’s one ledger row');
});

test('EMBEDDINGS=llm: an embedding answered while the database is away keeps its ledger row, written once it is back', async () => {
  const server = await startRestartableDatabase();
  const fake = await startFakeLlmServer();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const embeddingAsked = new Promise<void>((resolve) => (asked = resolve));
  // The endpoint answers the upload's embedding only once the database is gone.
  fake.setHandler(async (req) => {
    if (req.path === '/v1/embeddings') {
      asked();
      await held;
    }
    return undefined;
  });
  const rt = await startTestRuntime({
    DATABASE_URL: server.url, PROCESS_ROLE: 'api', EMBEDDINGS: 'llm', LLM_BASE_URL: fake.url, LLM_MODEL: 'fake-chat', LLM_EMBEDDING_MODEL: 'fake-embed', DB_CONNECTION_TIMEOUT_MS: '1000',
  });
  try {
    const upload = rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool('away-').slice(0, 2) } });
    await embeddingAsked;
    await server.stop();
    release();
    try {
      assert.equal((await upload).statusCode, 503, 'the upload itself fails, named: nothing of it is stored');
    } finally {
      await server.start();
    }
    // The paid call is in the ledger all the same.
    await rt.services.journal.flush();
    const rows = await rt.db.query<{ n: number }>("SELECT count(*)::int AS n FROM model_calls WHERE agent = 'embedder'");
    assert.equal(rows.rows[0]!.n, 1);
    assert.equal(rt.logs.filter((l) => l.msg === 'ledger write failed').length, 0);
  } finally {
    await rt.close();
    await fake.close();
    await server.close();
  }
});

test("EMBEDDINGS=llm: a failed embedding attempt is logged with its run's ids, or its upload's request id", async (t) => {
  const fake = await startFakeLlmServer();
  t.after(() => fake.close());
  const model = scriptedModel();
  let embeddingRequests = 0;
  // The upload's first embedding request and the run's first one fail once (retried by our layer), the rest answer.
  fake.setHandler((req) => (req.path === '/v1/embeddings' && [1, 3].includes(++embeddingRequests) ? fakeReply.serverError(503) : model(req)));
  const rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: fake.url, LLM_MODEL: 'fake-chat', EMBEDDINGS: 'llm', LLM_EMBEDDING_MODEL: 'fake-embed', LLM_RETRY_BASE_MS: '5' });
  t.after(() => rt.close());
  const upload = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: { ...rt.auth(), 'x-request-id': 'upload-with-a-retry' }, payload: { candidates: backendPool('e-') } });
  assert.equal(upload.statusCode, 200, upload.body);
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 2 } });
  const runId = res.json<{ id: string }>().id;
  await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() })).json<{ status: string }>();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 60_000, 'the run to finish');
  const failed = rt.logs.filter((l) => l.msg === 'embedding attempt failed');
  assert.equal(failed.length, 2, rt.logText());
  assert.equal(failed[0]!.reqId, 'upload-with-a-retry', 'the upload’s attempt carries its request id');
  assert.deepEqual([failed[1]!.runId, typeof failed[1]!.orgId, typeof failed[1]!.iteration], [runId, 'string', 'number'], 'the run’s carries the run’s ids');
});
