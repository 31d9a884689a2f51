// A run handed back to the queue (a retryable failure, a shutdown) has its ledger rows written first: the next claim
// builds the run's budget from the ledger, and a row still waiting in the journal would be spend it never sees. The
// next claim resumes it: the timeline and the trail say it started once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  // No built-in worker: the test starts the one it observes.
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

test('a run retried after a failure is claimed again with every model call of its failed attempt in its totals', async () => {
  let expansions = 0;
  // The first attempt pays for a model call, then fails as a provider outage would (retryable).
  const failFirst = (agents: Agents): Agents => ({
    ...agents,
    queryExpander: {
      expand: async (input, ctx) => {
        if (++expansions === 1) {
          await rt.services.journal.record({
            orgId: ctx.orgId, runId: ctx.runId ?? null, agent: 'queryExpander', model: 'fake-chat', promptTokens: 5_000, cachedTokens: 0,
            completionTokens: 500, costUsd: 0.006, latencyMs: 900, outcome: 'ok', requestId: 'req_paid', attempt: 1,
          });
          throw new Error('provider unavailable');
        }
        return agents.queryExpander.expand(input, ctx);
      },
    },
  });
  const totalsAtClaim: Array<{ tokens: number; calls: number }> = [];
  const worker = startTestWorker(rt, {
    wrap: failFirst,
    callContextFor: (original) => async (run, signal, deadline) => {
      totalsAtClaim.push(await rt.services.usage.runTotals(run.id));
      return original(run, signal, deadline);
    },
  });
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
    assert.equal(res.statusCode, 202, res.body);
    const run = await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 30_000, 'the run');
    assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
    assert.equal(totalsAtClaim.length, 2, 'claimed twice');
    assert.deepEqual(totalsAtClaim[1], { calls: 1, tokens: 5_500, costUsd: 0.006 }, 'the second claim sees what the first attempt paid');
  } finally {
    await worker.stop(2_000);
  }
});

test('a run handed back on shutdown is resumed by the next worker, not started a second time', async () => {
  const never = gate();
  // The reranker waits until the run is aborted, as a slow model call would.
  const stuckReranker = (agents: Agents): Agents => ({
    ...agents,
    reranker: {
      rerank: async (input, ctx) => {
        await Promise.race([never.opened, new Promise((_, reject) => ctx.signal?.addEventListener('abort', () => reject(ctx.signal?.reason)))]);
        return agents.reranker.rerank(input, ctx);
      },
    },
  });
  const stuck = startTestWorker(rt, { wrap: stuckReranker });
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().id as string;
  await waitFor(async () => (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json().progress.candidatesSeen > 0, 20_000, 'the reranker');
  await stuck.stop(100);
  const next = startTestWorker(rt);
  try {
    await waitFor(async () => ['succeeded', 'failed', 'cancelled'].includes((await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json().status), 20_000, 'the run');
  } finally {
    await next.stop(2_000);
  }
  const types = (await rt.db.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq', [id])).rows.map((e) => e.type);
  assert.deepEqual(types.filter((t) => t === 'run.started' || t === 'run.resumed'), ['run.started', 'run.resumed'], types.join(', '));
  const trail = await rt.db.query("SELECT 1 FROM run_trace WHERE run_id = $1 AND kind = 'run.started'", [id]);
  assert.equal(trail.rowCount, 1, 'the trail records one start, with the engine the run started with');
});

test('a run whose first attempt ended before it recorded its start records it on the next: timeline, trail, metric', async () => {
  let reads = 0;
  const started = async () => (await rt.services.metrics.runsStarted.get()).values.reduce((n, v) => n + v.value, 0);
  const before = await started();
  // The first attempt's start fails as a database timeout would (retryable), before its first step.
  const worker = startTestWorker(rt, {
    callContextFor: (original) => async (run, signal, deadline) => {
      if (++reads === 1) throw Object.assign(new Error('canceling statement due to statement timeout'), { retryable: true });
      return original(run, signal, deadline);
    },
  });
  let id: string;
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
    id = res.json().id as string;
    const run = await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 30_000, 'the run');
    assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  } finally {
    await worker.stop(2_000);
  }
  assert.equal(reads, 2, 'claimed twice');
  const types = (await rt.db.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq', [id])).rows.map((e) => e.type);
  assert.deepEqual(types.filter((t) => t.startsWith('run.') && t !== 'run.stopped'), ['run.queued', 'run.retrying', 'run.started'], types.join(', '));
  const trail = await rt.db.query<{ kind: string; data: { params?: unknown } }>("SELECT kind, data FROM run_trace WHERE run_id = $1 AND kind IN ('run.started', 'run.resumed') ORDER BY id", [id]);
  assert.deepEqual(trail.rows.map((r) => r.kind), ['run.started', 'run.resumed'], 'what replay and auditors read: role, parameters, models');
  assert.ok(trail.rows[0]!.data.params);
  assert.equal(await started(), before + 1, 'counted as started once');
});
