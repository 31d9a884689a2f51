// The check before a scorer request (are its candidates still there: src/candidates/erasure-guard.ts) reads the
// database; while the database is away it waits, as the run's other reads do, instead of failing the attempt.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fakeReply, startFakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startRestartableDatabase } from '../support/restartable-database.js';
import { startApiWithCandidates, waitFor } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';
import { startTestWorker } from '../support/worker.js';

test('a scorer retry whose check meets a database outage waits it out: the run succeeds in its first attempt', async () => {
  const server = await startRestartableDatabase();
  const llm = await startFakeLlmServer();
  const base = scriptedModel();
  let scorerAsked = 0;
  // The first scorer request is refused for 2 s: its retry, and its check, come while the database is away.
  llm.setHandler(async (req) => {
    if (req.agent === 'scorer' && ++scorerAsked === 1) return { ...fakeReply.error(503, 'overloaded'), headers: { 'retry-after-ms': '2000' } };
    return base(req);
  });
  const rt = await startApiWithCandidates(backendPool(), {
    DATABASE_URL: server.url, DB_CONNECTION_TIMEOUT_MS: '1000',
    MATCH_ENGINE: 'llm', LLM_BASE_URL: llm.url, LLM_API_KEY: 'sk-test', LLM_MODEL: 'fake-chat', LLM_MAX_RETRIES: '2', LLM_RETRY_BASE_MS: '2000', LLM_RETRY_MAX_MS: '5000',
  });
  const worker = startTestWorker(rt, { leaseMs: 30_000, heartbeatMs: 200 });
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
    const id = res.json().id as string;
    await waitFor(async () => scorerAsked >= 1 && (await server.pglite.query<{ n: number }>("SELECT count(*)::int AS n FROM model_calls WHERE outcome <> 'ok'")).rows[0]!.n > 0, 20_000, 'the failed attempt recorded');
    await server.stop();
    await sleep(3_000);
    await server.start();
    const run = await waitFor(async () => {
      const r = (await server.pglite.query<{ status: string; attempts: number }>('SELECT status, attempts FROM matching_runs WHERE id = $1', [id])).rows[0]!;
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 60_000, 'the run to end');
    assert.deepEqual(run, { status: 'succeeded', attempts: 1 });
    const events = (await server.pglite.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq', [id])).rows.map((e) => e.type);
    assert.ok(!events.includes('run.retrying'), events.join(', '));
  } finally {
    await worker.stop(2_000);
    await rt.close();
    await llm.close();
    await server.close();
  }
});
