// A worker that lost its lease without noticing yet (its heartbeat has not run) writes nothing to the run: the
// run belongs to whoever holds the lease now. The first write refused tells it, and it stops there.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { initialContext } from '../../src/matching/context.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { LeaseLostError } from '../../src/runs/run-writes.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

test('a worker whose lease was taken, failing with a retryable error, writes no run.retrying to the new owner’s run', async () => {
  let stolenAt: number | null = null;
  // The expander's call outlives the lease: meanwhile another worker claims the run. Then the call fails as a
  // provider outage would (retryable).
  const stolenThenFailing = (agents: Agents): Agents => ({
    ...agents,
    queryExpander: {
      expand: async (_input, ctx) => {
        // Let the run's first checkpoint land first (the first step does not wait for it): taken before it, the lease is
        // lost at that checkpoint, and the writes after a retryable failure would never be reached.
        await waitFor(async () => (await rt.db.query("SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'iteration.started'", [ctx.runId])).rowCount! > 0, 5_000, 'first checkpoint');
        const r = await rt.db.query<{ version: number }>(
          "UPDATE matching_runs SET lease_owner = 'the-new-owner', lease_expires_at = now() + interval '1 hour', attempts = attempts + 1 WHERE id = $1 RETURNING version",
          [ctx.runId],
        );
        stolenAt = r.rows[0]!.version;
        throw new Error('provider unavailable');
      },
    },
  });
  // No heartbeat within the test: the worker learns of the loss only from its own writes.
  const worker = startTestWorker(rt, { wrap: stolenThenFailing, leaseMs: 3_600_000, heartbeatMs: 1_800_000 });
  let runId = '';
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
    assert.equal(res.statusCode, 202, res.body);
    runId = res.json().id;
    await waitFor(async () => stolenAt !== null && worker.activeRuns().length === 0, 20_000, 'the worker to give the run up');
  } finally {
    await worker.stop(2_000);
  }
  const events = await rt.db.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
  assert.ok(!events.rows.some((e) => e.type === 'run.retrying'), `no event from the old owner: ${events.rows.map((e) => e.type).join(', ')}`);
  const row = (await rt.db.query<{ version: number; lease_owner: string; attempts: number }>('SELECT version, lease_owner, attempts FROM matching_runs WHERE id = $1', [runId])).rows[0]!;
  assert.equal(row.lease_owner, 'the-new-owner');
  assert.equal(row.attempts, 2);
  assert.equal(row.version, stolenAt, 'the run did not move after the new owner took it');
});

test('a write refused for a lost lease stops the model calls still in flight: their answers could not be written', async () => {
  const scored: string[] = [];
  const never = gate();
  // The first scorer's call outlives the lease (another worker claims the run meanwhile); the second is a slow call,
  // which ends only when the run is aborted.
  const stolenWhileScoring = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        scored.push(input.candidate.id);
        if (scored.length === 1) {
          await rt.db.query("UPDATE matching_runs SET lease_owner = 'the-new-owner', lease_expires_at = now() + interval '1 hour' WHERE id = $1", [ctx.runId]);
        } else {
          await Promise.race([never.opened, new Promise((_, reject) => ctx.signal?.addEventListener('abort', () => reject(ctx.signal?.reason)))]);
        }
        return agents.scorer.score(input, ctx);
      },
    },
  });
  const worker = startTestWorker(rt, { wrap: stolenWhileScoring, leaseMs: 3_600_000, heartbeatMs: 1_800_000, globalScoreConcurrency: 1 });
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
    assert.equal(res.statusCode, 202, res.body);
    await waitFor(async () => scored.length === 2, 20_000, 'the second scorer call');
    // The first entry's write is refused; nothing else (no heartbeat within the test) tells the worker.
    await waitFor(async () => worker.activeRuns().length === 0, 10_000, 'the worker to give the run up');
    assert.equal(scored.length, 2, 'no further scorer call once the lease was known to be lost');
  } finally {
    never.open();
    await worker.stop(2_000);
  }
});

test('a finish by a worker that lost the lease writes nothing: no end, no event, no trail row', async () => {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  const runId = res.json().id as string;
  const queue = createRunQueue(rt.db, { workerId: 'the-old-owner', leaseMs: 3_600_000, maxAttempts: 3 });
  const claimed = await queue.claim();
  assert.equal(claimed?.id, runId);
  const ctx = initialContext({ runId, orgId: claimed!.orgId, engine: claimed!.engine, role: GO_ROLE, params: claimed!.params });
  const stop = { reason: 'exhausted' as const, iteration: 1, reasoning: 'test' };
  const snapshot = async () => ({
    run: (await rt.db.query<{ status: string; lease_owner: string | null; version: number; event_seq: number; finished_at: Date | null }>(
      'SELECT status, lease_owner, version, event_seq, finished_at FROM matching_runs WHERE id = $1',
      [runId],
    )).rows[0]!,
    events: (await rt.db.query<{ seq: number; type: string }>('SELECT seq, type FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows,
    trail: (await rt.db.query<{ kind: string }>('SELECT kind FROM run_trace WHERE run_id = $1 ORDER BY id', [runId])).rows,
  });
  await rt.db.query("UPDATE matching_runs SET lease_owner = 'the-new-owner' WHERE id = $1", [runId]);
  const taken = await snapshot();
  await assert.rejects(queue.finish({ ...ctx, stop }, 'succeeded', stop, null, { status: 'succeeded' }, [{ type: 'candidates.scored', data: { iteration: 1 } }]), LeaseLostError);
  assert.deepEqual(await snapshot(), taken);
  // The owner's finish writes all three at once, the trail's row stamped with the run's end.
  await rt.db.query("UPDATE matching_runs SET lease_owner = 'the-old-owner' WHERE id = $1", [runId]);
  await queue.finish({ ...ctx, stop }, 'succeeded', stop, null, { status: 'succeeded' }, [{ type: 'candidates.scored', data: { iteration: 1 } }]);
  const done = await snapshot();
  assert.equal(done.run.status, 'succeeded');
  assert.deepEqual(done.events.slice(-2).map((e) => e.type), ['candidates.scored', 'run.stopped']);
  assert.equal(done.events.at(-1)!.seq, done.run.event_seq);
  const finished = (await rt.db.query<{ kind: string; data: unknown; at: Date; org_id: string }>("SELECT kind, data, at, org_id FROM run_trace WHERE run_id = $1 AND kind = 'run.finished'", [runId])).rows;
  assert.equal(finished.length, 1);
  assert.deepEqual(finished[0]!.data, { status: 'succeeded' });
  assert.equal(finished[0]!.org_id, claimed!.orgId);
  assert.equal(finished[0]!.at.getTime(), done.run.finished_at?.getTime());
});
