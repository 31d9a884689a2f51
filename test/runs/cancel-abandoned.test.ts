// Cancelling a running run: its model call in flight is aborted and it ends at once with what it had. And a cancel asked
// of a running run whose worker then died (its lease ran out): the run ends cancelled, as asked, without another worker
// taking it up and paying for model calls first, and not failed when it was on its last attempt. However a run ends,
// its last event reads the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

const poll = async (id: string) => (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();

async function finished(id: string) {
  return waitFor(async () => {
    const r = await poll(id);
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 20_000, `run ${id} to finish`);
}

async function withWorker<T>(opts: Parameters<typeof startTestWorker>[1], fn: () => Promise<T>): Promise<T> {
  const worker = startTestWorker(rt, opts);
  try {
    return await fn();
  } finally {
    await worker.stop(2_000);
  }
}

test('cancel: a running run stops at once, its model call in flight aborted, keeping what it had; a finished run answers 409', async () => {
  // The third scorer call is the one in flight when the cancel comes. Its gate is never opened: the run can only end
  // if the cancel aborts the call (a gate opened after the cancel would let the run reach the next boundary anyway).
  const never = gate();
  let calls = 0;
  let aborted = false;
  const stuckThirdScorer = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        if (++calls === 3) {
          await Promise.race([
            never.opened,
            new Promise((_, reject) => {
              const stop = () => ((aborted = true), reject(ctx.signal?.reason));
              if (ctx.signal?.aborted) stop();
              ctx.signal?.addEventListener('abort', stop);
            }),
          ]);
        }
        return agents.scorer.score(input, ctx);
      },
    },
  });
  try {
    await withWorker({ wrap: stuckThirdScorer, globalScoreConcurrency: 1 }, async () => {
      const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 3, scoreLimit: 5, targetStrong: 50 } });
      assert.equal(res.statusCode, 202, res.body);
      const run = res.json();
      await waitFor(async () => calls === 3 && (await poll(run.id)).progress.candidatesScored === 2, 20_000, 'two scored, the third in flight');
      const cancel = await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${run.id}/cancel`, headers: rt.auth() });
      assert.equal(cancel.statusCode, 202);
      const done = await finished(run.id);
      assert.equal(done.status, 'cancelled');
      assert.equal(done.stop.reason, 'cancelled');
      assert.equal(aborted, true, 'the call in flight was aborted');
      assert.equal(calls, 3, 'no scorer call after the cancel');
      assert.equal(done.shortlist.length, 2, 'what was scored before the cancel is kept');
      const again = await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${run.id}/cancel`, headers: rt.auth() });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().status, 409);
      assert.equal(again.json().detail, 'The run has already finished (cancelled); only a queued or running run can be cancelled.');
    });
  } finally {
    never.open();
  }
});

/** A run claimed by a worker that is gone, cancelled while its lease still held, the lease then run out. */
async function cancelledAndAbandoned(maxAttempts: number): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().id as string;
  const dead = createRunQueue(rt.db, { workerId: 'dead-worker', leaseMs: 60_000, maxAttempts });
  assert.equal((await dead.claim())?.id, id);
  const cancel = await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() });
  assert.equal(cancel.statusCode, 202);
  assert.equal(cancel.json().status, 'running', 'flagged for its worker');
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id]);
  return id;
}

/** Runs a worker until the run has finished; returns the run and how many model calls the worker's agents made. */
async function finishWithWorker(id: string, maxAttempts: number) {
  let calls = 0;
  const counted = (agents: Agents): Agents => ({
    ...agents,
    queryExpander: { expand: (input, ctx) => (calls++, agents.queryExpander.expand(input, ctx)) },
    reranker: { ...agents.reranker, rerank: (input, ctx) => (calls++, agents.reranker.rerank(input, ctx)) },
  });
  const run = await withWorker({ wrap: counted, maxAttempts }, () => finished(id));
  return { run, calls };
}

test('on its last attempt: the run ends cancelled, not failed with its attempts exhausted', async () => {
  const id = await cancelledAndAbandoned(1);
  const { run } = await finishWithWorker(id, 1);
  assert.equal(run.status, 'cancelled', JSON.stringify(run.error));
  assert.equal(run.stop.reason, 'cancelled');
  assert.equal(run.error, null);
  const events = await rt.db.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1', [id]);
  assert.equal(events.rows[0]!.type, 'run.stopped');
});

test('with attempts left: no worker resumes it, it ends cancelled without a model call', async () => {
  const id = await cancelledAndAbandoned(3);
  const { run, calls } = await finishWithWorker(id, 3);
  assert.equal(run.status, 'cancelled');
  assert.equal(run.stop.reason, 'cancelled');
  assert.equal(calls, 0, 'no agent was asked anything after the cancel');
  const row = (await rt.db.query<{ attempts: number; lease_owner: string | null }>('SELECT attempts, lease_owner FROM matching_runs WHERE id = $1', [id])).rows[0]!;
  assert.deepEqual(row, { attempts: 1, lease_owner: null }, 'not claimed again');
});

test("a worker's sweeps log the runs they end, as a worker logs its own: a failure as a warning", async () => {
  // Cancelled while a worker held it, the worker then gone; and claimed on its last attempt by a worker that died.
  const cancelledId = await cancelledAndAbandoned(3);
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  const exhaustedId = res.json().id as string;
  const dead = createRunQueue(rt.db, { workerId: 'dead-worker', leaseMs: 60_000, maxAttempts: 1 });
  assert.equal((await dead.claim())?.id, exhaustedId);
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [exhaustedId]);
  await withWorker({ maxAttempts: 1 }, async () => {
    await finished(exhaustedId);
    await finished(cancelledId);
  });
  const orgId = (await rt.db.query<{ org_id: string }>('SELECT org_id FROM matching_runs WHERE id = $1', [exhaustedId])).rows[0]!.org_id;
  const line = (id: string) => rt.logs.find((l) => l.runId === id && /\(ended by a sweep: no worker held it\)$/.test(String(l.msg)));
  const failed = line(exhaustedId);
  assert.ok(failed, rt.logText());
  assert.deepEqual([failed.level, failed.orgId, failed.status, failed.reason, (failed.error as { title: string }).title], [40, orgId, 'failed', 'error', 'Attempts exhausted']);
  assert.match(String(failed.msg), /^run failed: error: The run failed on every attempt\./);
  const cancelled = line(cancelledId);
  assert.ok(cancelled, rt.logText());
  assert.deepEqual([cancelled.level, cancelled.status, cancelled.reason], [30, 'cancelled', 'cancelled']);
});

test('however a run ends, its last event carries its stop (a failed run’s its error’s title) and its trail ends with its outcome', async () => {
  /** The last event, and what it should say: the run's stop, with `error` the title when it failed; and the trail's last row. */
  const ending = async (id: string) => {
    const run = await finished(id);
    const events = (await rt.app!.inject({ url: `/v1/matching-runs/${id}/events?limit=100`, headers: rt.auth() })).json().items;
    const trail = await rt.db.query<{ kind: string; data: { status: string; stop: unknown; error: unknown } }>(
      "SELECT kind, data FROM run_trace WHERE run_id = $1 AND kind = 'run.finished'",
      [id],
    );
    return {
      last: events.at(-1),
      expected: { type: run.status === 'failed' ? 'run.failed' : 'run.stopped', data: { ...run.stop, ...(run.error ? { error: run.error.title } : {}) } },
      trail: trail.rows.map((r) => ({ status: r.data.status, stop: r.data.stop, error: r.data.error })),
      run,
    };
  };
  // No worker finished some of these (a queued cancel, the sweeps): their trail records the outcome all the same.
  const check = ({ last, expected, trail, run }: Awaited<ReturnType<typeof ending>>) => {
    assert.deepEqual({ type: last.type, data: last.data }, expected);
    assert.deepEqual(trail, [{ status: run.status, stop: run.stop, error: run.error }], 'one run.finished row in the trail, with the outcome');
  };

  // Cancelled while queued: no worker ever saw it.
  const queued = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } });
  await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${queued.json().id}/cancel`, headers: rt.auth() });
  check(await ending(queued.json().id));

  // Claimed on its last attempt by a worker that died: it fails with its attempts exhausted.
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  const dead = createRunQueue(rt.db, { workerId: 'dead-worker', leaseMs: 60_000, maxAttempts: 1 });
  assert.equal((await dead.claim())?.id, res.json().id);
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [res.json().id]);
  await dead.failExhausted();
  const exhausted = await ending(res.json().id);
  assert.equal(exhausted.last.data.error, 'Attempts exhausted');
  check(exhausted);

  // Cancelled while a worker held it, the worker then gone; and one a worker ran to its end.
  check(await ending(await cancelledAndAbandoned(3).then(async (id) => (await dead.cancelAbandoned(), id))));
  const done = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  check(await withWorker({}, () => ending(done.json().id)));
});

test('a run left unheld past its deadline ends as the deadline ends it (budget), also one no live process can drive; one still leased, or within its deadline, is left', async () => {
  /** A run claimed by a worker now gone, as an llm run (this process drives heuristic runs only), started `ageMs` ago. */
  const abandonedLlmRun = async (ageMs: number) => {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json().id as string;
    const dead = createRunQueue(rt.db, { workerId: 'dead-worker', leaseMs: 60_000, maxAttempts: 3 });
    assert.equal((await dead.claim())?.id, id);
    await rt.db.query(
      `UPDATE matching_runs SET engine = 'llm', started_at = now() - $2 * interval '1 millisecond' WHERE id = $1`,
      [id, ageMs],
    );
    return id;
  };
  const overdue = await abandonedLlmRun(3_600_000);
  const young = await abandonedLlmRun(1_000);
  const leased = await abandonedLlmRun(3_600_000);
  // The dead worker's leases run out, but for the last run's.
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])", [[overdue, young]]);
  const status = async (id: string) => (await poll(id)).status as string;
  const budgetStops = async () => (await rt.services.metrics.budgetStops.get()).values[0]?.value ?? 0;
  const stopsBefore = await budgetStops();
  try {
    const run = await withWorker({ deadlineMs: 60_000 }, async () => {
      const done = await finished(overdue);
      await new Promise((r) => setTimeout(r, 600)); // three heartbeats more
      return done;
    });
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.stop.reason, 'budget');
    assert.match(run.stop.reasoning, /deadline \(60000 ms from its start\) passed while no worker held it/);
    assert.equal(run.error, null);
    assert.equal(await budgetStops(), stopsBefore + 1, 'counted as a budget stop, as a worker counts its own');
    const last = (await rt.app!.inject({ url: `/v1/matching-runs/${overdue}/events?limit=100`, headers: rt.auth() })).json().items.at(-1);
    assert.deepEqual({ type: last.type, data: last.data }, { type: 'run.stopped', data: run.stop });
    const trail = await rt.db.query<{ data: { status: string } }>("SELECT data FROM run_trace WHERE run_id = $1 AND kind = 'run.finished'", [overdue]);
    assert.deepEqual(trail.rows.map((r) => r.data.status), ['succeeded']);
    assert.equal(await status(young), 'running', 'within its deadline: left for a worker that drives it');
    assert.equal(await status(leased), 'running', 'still leased: its worker ends it');
    // A heuristic run makes no model call, which is what the deadline bounds: a claim resumes and finishes it.
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
    const heuristic = res.json().id as string;
    const dead = createRunQueue(rt.db, { workerId: 'dead-worker', leaseMs: 60_000, maxAttempts: 3, deadlineMs: 60_000, engines: ['heuristic'] });
    assert.equal((await dead.claim())?.id, heuristic);
    await rt.db.query(`UPDATE matching_runs SET started_at = now() - interval '1 hour', lease_expires_at = now() - interval '1 second' WHERE id = $1`, [heuristic]);
    assert.deepEqual(await dead.endOverdue(), [], 'the sweep leaves a heuristic run to a claim');
  } finally {
    await rt.db.query("UPDATE matching_runs SET status = 'cancelled', finished_at = now(), lease_owner = NULL WHERE status IN ('queued', 'running')");
  }
});
