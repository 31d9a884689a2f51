// A worker whose database goes away mid-run: the run is not lost. Once its lease has run out unrenewed the worker
// abandons it (its model calls in flight are stopped), and when the database is back the run is claimed again and
// resumed from its checkpoint. A statement the database cancels for its timeout is a retried attempt.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startRestartableDatabase, type RestartableDatabase } from '../support/restartable-database.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let server: RestartableDatabase;
let rt: TestRuntime;
before(async () => {
  server = await startRestartableDatabase();
  rt = await startApiWithCandidates(backendPool(), { DATABASE_URL: server.url, DB_CONNECTION_TIMEOUT_MS: '1000' });
});
after(async () => {
  await rt?.close();
  await server?.close();
});

async function startRun(): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().id as string;
}

async function runRow(runId: string) {
  return (await server.pglite.query<{ status: string; attempts: number; error: unknown }>('SELECT status, attempts, error FROM matching_runs WHERE id = $1', [runId])).rows[0]!;
}

test('the database gone mid-run: the run is abandoned when its lease runs out unrenewed, and resumed once the database is back', async () => {
  const released = gate();
  let aborted = 0;
  let calls = 0;
  // The first scorer call waits for the test; on a later attempt the scorer answers at once.
  const held = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        if (++calls === 1) {
          await Promise.race([
            released.opened,
            new Promise((_, reject) =>
              ctx.signal?.addEventListener('abort', () => {
                aborted++;
                reject(ctx.signal?.reason);
              }),
            ),
          ]);
        }
        return agents.scorer.score(input, ctx);
      },
    },
  });
  const worker = startTestWorker(rt, { wrap: held, leaseMs: 1000, heartbeatMs: 200, pollMs: 50 });
  try {
    const runId = await startRun();
    await waitFor(async () => calls >= 1, 20_000, 'the first scorer call');
    await server.stop();
    try {
      // No renewal reaches the database: once the lease has run out, the call in flight is stopped.
      await waitFor(async () => aborted === 1, 10_000, 'the scorer call in flight to be aborted');
      await waitFor(async () => worker.activeRuns().length === 0, 10_000, 'the worker to let the run go');
      assert.ok(rt.logs.some((l) => l.runId === runId && /lease ran out unrenewed/.test(String(l.msg))));
    } finally {
      await server.start();
      released.open();
    }
    await waitFor(async () => (await runRow(runId)).status === 'succeeded', 30_000, 'the run to succeed after the database came back');
    const row = await runRow(runId);
    assert.equal(row.attempts, 2, 'claimed again once, resumed');
    const events = await server.pglite.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
    assert.ok(events.rows.some((e) => e.type === 'run.resumed'), events.rows.map((e) => e.type).join(', '));
    const entries = await server.pglite.query<{ n: number; distinct_n: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT candidate_id)::int AS distinct_n FROM shortlist_entries WHERE run_id = $1',
      [runId],
    );
    assert.ok(entries.rows[0]!.n > 0);
    assert.equal(entries.rows[0]!.n, entries.rows[0]!.distinct_n, 'no candidate written twice');
  } finally {
    await worker.stop(2_000);
  }
});

test('a run whose write failed in a short outage is handed back once the database answers, not left to its lease', async () => {
  // Measured on PostgreSQL 15: a 5 s restart failed every running run's next write at once, their hand-back failed
  // too ("run could not be finished"), and they sat claimed until their lease ran out, 18 s after the database was back.
  const released = gate();
  let calls = 0;
  const held = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        if (++calls === 1) await released.opened;
        return agents.scorer.score(input, ctx);
      },
    },
  });
  // A lease far longer than the test waits: only a hand-back lets the run go on within it.
  const worker = startTestWorker(rt, { wrap: held, leaseMs: 120_000, heartbeatMs: 200, pollMs: 50 });
  try {
    const runId = await startRun();
    await waitFor(async () => calls >= 1, 20_000, 'the first scorer call');
    await server.stop();
    try {
      // The scorer answers into the outage: writing its entry fails, and so the attempt.
      released.open();
      await waitFor(async () => rt.logs.some((l) => l.runId === runId && l.msg === 'run failed'), 10_000, 'the attempt to fail');
    } finally {
      await server.start();
    }
    await waitFor(async () => (await runRow(runId)).status === 'succeeded', 20_000, 'the run to be handed back and succeed well within its lease');
    assert.equal((await runRow(runId)).attempts, 2, 'the failed attempt counted, then resumed once');
    assert.ok(!rt.logs.some((l) => l.runId === runId && l.msg === 'run could not be finished'), 'the hand-back was written');
    const retrying = await server.pglite.query("SELECT 1 FROM run_events WHERE run_id = $1 AND type = 'run.retrying'", [runId]);
    assert.equal(retrying.rows.length, 1, 'one retrying event');
  } finally {
    await worker.stop(2_000);
  }
});

test('a statement cancelled by the database for its timeout fails the attempt with a named error, and the run is retried', async () => {
  // The first write of a shortlist entry is cancelled as PostgreSQL cancels a statement past statement_timeout.
  await server.pglite.exec(`
    CREATE SEQUENCE timed_out_once;
    CREATE FUNCTION entry_times_out_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- A sequence, as the failed statement rolls back a row that would say it happened.
        IF nextval('timed_out_once') = 1 THEN
          RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = '57014';
        END IF;
        RETURN NEW;
      END $$;
    CREATE TRIGGER entries_time_out BEFORE INSERT ON shortlist_entries FOR EACH ROW EXECUTE FUNCTION entry_times_out_once();`);
  const worker = startTestWorker(rt);
  try {
    const runId = await startRun();
    await waitFor(async () => ['succeeded', 'failed'].includes((await runRow(runId)).status), 30_000, 'the run to end');
    const row = await runRow(runId);
    assert.equal(row.status, 'succeeded', JSON.stringify(row.error));
    assert.equal(row.attempts, 2);
    const retrying = await server.pglite.query<{ data: { error: string } }>("SELECT data FROM run_events WHERE run_id = $1 AND type = 'run.retrying'", [runId]);
    assert.equal(retrying.rows.length, 1);
    assert.match(retrying.rows[0]!.data.error, /^DatabaseTimeoutError: /);
    assert.doesNotMatch(retrying.rows[0]!.data.error, /canceling|INSERT|shortlist_entries/, 'the database’s words stay in the log');
  } finally {
    await worker.stop(2_000);
    await server.pglite.exec('DROP TRIGGER entries_time_out ON shortlist_entries; DROP FUNCTION entry_times_out_once(); DROP SEQUENCE timed_out_once');
  }
});
