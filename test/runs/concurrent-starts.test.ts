// Many starts and cancels of one organisation's runs at the same moment, from two API processes sharing the database.
// On PostgreSQL their transactions really run at once, so a check-then-write that is not serialised would show here;
// on the embedded database they are queued one after another, and the outcomes must be the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { initialContext } from '../../src/matching/context.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { LeaseLostError } from '../../src/runs/run-writes.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { connectionUrl } from '../support/database.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

const CAP = 5;
const limits = { MAX_RUNS_IN_FLIGHT_PER_ORG: String(CAP), RATE_LIMIT_RUNS_PER_MINUTE: '100000', DB_POOL_MAX: '20' };

let rt: TestRuntime;
let other: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool(), limits);
  // A small pool: the embedded database serves other processes a few connections beyond its own pool's.
  other = await startTestRuntime({ ...limits, PROCESS_ROLE: 'api', DATABASE_URL: connectionUrl(rt.db), DB_POOL_MAX: '6' });
});
after(async () => {
  await other?.close();
  await rt?.close();
});

const start = (via: TestRuntime, body: object = { role: GO_ROLE, maxIterations: 1 }) =>
  via.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: via.auth(), payload: body });
const cancel = (via: TestRuntime, id: string) => via.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: via.auth() });

async function inFlight(): Promise<number> {
  return (await rt.db.query<{ n: number }>("SELECT count(*)::int AS n FROM matching_runs WHERE status IN ('queued', 'running')")).rows[0]!.n;
}

async function stopped(runId: string): Promise<number> {
  return (await rt.db.query<{ n: number }>("SELECT count(*)::int AS n FROM run_events WHERE run_id = $1 AND type IN ('run.stopped', 'run.failed')", [runId])).rows[0]!.n;
}

test('forty starts at once through two processes, at a cap of five in flight: exactly five start, the rest are 429', async () => {
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => start(i % 2 ? other : rt)));
  const started = answers.filter((a) => a.statusCode === 202);
  assert.equal(started.length, CAP, answers.map((a) => a.statusCode).join(','));
  assert.ok(answers.every((a) => a.statusCode === 202 || (a.statusCode === 429 && a.json().type.endsWith('/too_many_requests'))), answers.map((a) => a.body).join('\n'));
  assert.equal(await inFlight(), CAP);
  // A refused start rolls back its inline role with it.
  assert.equal((await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM roles')).rows[0]!.n, CAP);

  // Ten cancels of one queued run at once: one cancels it, the others find it cancelled (409); one stop event.
  const [first, ...rest] = started.map((a) => a.json().id as string);
  const cancels = await Promise.all(Array.from({ length: 10 }, (_, i) => cancel(i % 2 ? other : rt, first!)));
  assert.deepEqual(cancels.map((c) => c.statusCode).sort(), [202, ...Array<number>(9).fill(409)]);
  assert.equal(await stopped(first!), 1);
  // Which frees one place, and only one, for the next burst.
  const again = await Promise.all(Array.from({ length: 10 }, (_, i) => start(i % 2 ? other : rt)));
  assert.equal(again.filter((a) => a.statusCode === 202).length, 1);
  for (const id of [...rest, ...again.filter((a) => a.statusCode === 202).map((a) => a.json().id as string)]) {
    assert.equal((await cancel(rt, id)).statusCode, 202);
  }
  assert.equal(await inFlight(), 0);
});

test('cancels racing workers claiming the runs: a run cancelled while queued is never started, and every run ends once', async () => {
  const ids: string[] = [];
  // Five at a time (the cap), each batch cancelled at once while two workers of two processes claim it.
  const workers = [startTestWorker(rt, { concurrency: 3 }), startTestWorker(other, { concurrency: 3 })];
  const answers: Array<{ id: string; status: number }> = [];
  try {
    for (let batch = 0; batch < 6; batch++) {
      const created = await Promise.all(Array.from({ length: CAP }, (_, i) => start(i % 2 ? other : rt)));
      const batchIds = created.map((c) => {
        assert.equal(c.statusCode, 202, c.body);
        return c.json().id as string;
      });
      ids.push(...batchIds);
      const cancelled = await Promise.all(batchIds.map((id, i) => cancel(i % 2 ? rt : other, id)));
      answers.push(...cancelled.map((c, i) => ({ id: batchIds[i]!, status: c.statusCode })));
      await waitFor(async () => (await inFlight()) === 0 || null, 30_000, 'the batch to end');
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop(2_000)));
  }
  const runs = await rt.db.query<{ id: string; status: string; started_at: Date | null; reason: string | null; reasoning: string | null; started: number }>(
    `SELECT r.id, r.status, r.started_at, r.stop->>'reason' AS reason, r.stop->>'reasoning' AS reasoning,
            (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.type = 'run.started') AS started
     FROM matching_runs r WHERE r.id = ANY($1::uuid[])`,
    [ids],
  );
  assert.equal(runs.rows.length, ids.length);
  for (const run of runs.rows) {
    assert.equal(await stopped(run.id), 1, `${run.id} ends once`);
    if (run.reasoning === 'Cancelled before a worker started it.') {
      assert.equal(run.started, 0, 'a run cancelled while queued was never started by a worker');
      assert.equal(run.started_at, null);
    }
  }
  for (const answer of answers) {
    const run = runs.rows.find((r) => r.id === answer.id)!;
    // 409 only for a run that had already ended by itself; a 202 for one that was queued or running. A run cancelled
    // while running whose worker had already stopped it (its last step done) ends with its own stop (docs/api.md).
    if (answer.status === 409) assert.notEqual(run.reason, 'cancelled', `${run.id}: a 409 cancelled nothing`);
    else assert.equal(answer.status, 202);
  }
  // With no model wait, most cancels land while the run is queued or running: the race was really run.
  assert.ok(runs.rows.filter((r) => r.reason === 'cancelled').length > 0);
});

test('ten workers claiming at once: each queued run is claimed by one; after their leases lapse, each is taken over by one', async () => {
  const created = await Promise.all(Array.from({ length: CAP }, () => start(rt)));
  const ids = created.map((c) => c.json().id as string).sort();
  const workers = (from: number) =>
    Array.from({ length: 10 }, (_, i) => createRunQueue(i % 2 ? other.db : rt.db, { workerId: `claimer-${from + i}`, leaseMs: 60_000, maxAttempts: 5 }));
  const claimAll = async (queues: ReturnType<typeof workers>) => {
    const claims = await Promise.all(queues.map((q) => q.claim()));
    return claims.flatMap((c, i) => (c ? [{ runId: c.id, queue: queues[i]!, attempts: c.attempts }] : []));
  };
  const first = await claimAll(workers(0));
  assert.deepEqual(first.map((c) => c.runId).sort(), ids, 'every run claimed, none twice');

  // Their owners stall past their leases; other workers' claims take each run over once.
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])", [ids]);
  const second = await claimAll(workers(10));
  assert.deepEqual(second.map((c) => c.runId).sort(), ids);
  assert.ok(second.every((c) => c.attempts === 2));
  for (const stale of first) {
    // The stalled owner learns it lost the run, and its writes are refused.
    assert.equal((await stale.queue.heartbeat([stale.runId])).size, 0);
    const ctx = initialContext({ runId: stale.runId, orgId: (await rt.db.query<{ org_id: string }>('SELECT org_id FROM matching_runs WHERE id = $1', [stale.runId])).rows[0]!.org_id, engine: 'heuristic', role: GO_ROLE, params: RunParamsSchema.parse({ maxIterations: 1 }) });
    await assert.rejects(stale.queue.checkpoint(ctx), LeaseLostError);
  }
  for (const id of ids) assert.equal((await cancel(rt, id)).statusCode, 202);
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])", [ids]);
  assert.deepEqual((await second[0]!.queue.cancelAbandoned()).map((r) => r.id).sort(), ids);
});
