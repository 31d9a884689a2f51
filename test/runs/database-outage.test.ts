// A worker whose database goes away mid-run: the run is not lost. Its writes wait an outage shorter than its lease
// out, and it goes on in the same attempt; once its lease has run out unrenewed the worker abandons it (its model calls
// in flight are stopped), and when the database is back the run is claimed again and resumed from its checkpoint.
// A statement the database cancels for its timeout is a retried attempt.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
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

async function entryCount(runId: string): Promise<number> {
  return (await server.pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM shortlist_entries WHERE run_id = $1', [runId])).rows[0]!.n;
}

async function eventTypes(runId: string): Promise<string[]> {
  return (await server.pglite.query<{ type: string }>('SELECT type FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows.map((e) => e.type);
}

async function finished(runId: string) {
  await waitFor(async () => ['succeeded', 'failed', 'cancelled'].includes((await runRow(runId)).status), 30_000, 'the run to end');
  return runRow(runId);
}

async function shortlistOf(runId: string) {
  const res = await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() });
  return (res.json().shortlist as Array<Record<string, unknown>>).map((e) => ({ candidateId: e.candidateId, totalScore: e.totalScore, subscores: e.subscores }));
}

let uninterrupted: Awaited<ReturnType<typeof shortlistOf>> | null = null;
/** The shortlist of the same run with the database there throughout (the heuristic engine answers the same). */
async function uninterruptedShortlist() {
  if (uninterrupted) return uninterrupted;
  const worker = startTestWorker(rt);
  try {
    const runId = await startRun();
    assert.equal((await finished(runId)).status, 'succeeded');
    uninterrupted = await shortlistOf(runId);
    return uninterrupted;
  } finally {
    await worker.stop(2_000);
  }
}

/** Agents whose `agent` holds its first call until `released` opens (it answers as it would then); `asked` counts calls. */
function holdingFirstCall(agent: 'queryExpander' | 'reranker') {
  const released = gate();
  const state = { asked: 0 };
  const held =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (++state.asked === 1) await released.opened;
      return call(...args);
    };
  const wrap = (agents: Agents): Agents =>
    agent === 'queryExpander'
      ? { ...agents, queryExpander: { expand: held((input, ctx) => agents.queryExpander.expand(input, ctx)) } }
      : { ...agents, reranker: { ...agents.reranker, rerank: held((input, ctx) => agents.reranker.rerank(input, ctx)) } };
  return { wrap, released, state };
}

/**
 * Stops the server once a held agent has been asked and the checkpoint written beside it (the one carrying `landed`)
 * has landed, lets the agent answer into the outage, and starts the server again after 1.5 s of the run's reads being
 * refused. A checkpoint the outage cut off after it was sent would have an unknown outcome, and fail the attempt.
 */
async function readsAcrossAnOutage(runId: string, asked: () => boolean, landed: string, released: { open(): void }): Promise<void> {
  await waitFor(async () => asked() && (await eventTypes(runId)).includes(landed), 20_000, `the held agent to be asked, and ${landed} written`);
  await server.stop();
  await waitFor(async () => rt.db.poolStats().idle === 0, 5_000, 'the pool to drop the closed connections');
  try {
    released.open();
    await waitFor(async () => rt.logs.some((l) => l.runId === runId && l.msg === 'run read failed'), 5_000, 'a read to meet the outage');
    await sleep(1_500);
  } finally {
    await server.start();
  }
}

/**
 * The run ended as an uninterrupted one, in its first attempt, and its log tells of the `what` that waited the outage
 * out: its first failure, with the fault, and the one that went through.
 */
async function assertWaitedOut(runId: string, clean: Awaited<ReturnType<typeof shortlistOf>>, what: 'read' | 'write') {
  const row = await finished(runId);
  assert.equal(row.status, 'succeeded', JSON.stringify(row.error));
  assert.equal(row.attempts, 1, 'the outage cost no attempt');
  const events = await eventTypes(runId);
  assert.ok(!events.includes('run.retrying') && !events.includes('run.resumed'), events.join(', '));
  assert.deepEqual(await shortlistOf(runId), clean, 'the shortlist of an uninterrupted run');
  const lines = rt.logs.filter((l) => l.runId === runId);
  assert.ok(lines.some((l) => l.msg === `run ${what} failed` && l.fault === 'database_unavailable'), `the first failed ${what} is logged, with its fault`);
  assert.ok(lines.some((l) => new RegExp(`^run ${what} works again after \\d+ failures$`).test(String(l.msg))), `and the ${what} that went through`);
}

/**
 * Agents whose scorer answers the run's first candidate at once and holds the others until `released` opens. A test
 * takes the database away between the two, so that the held answers are written into the outage.
 */
function scoringAcrossAnOutage() {
  const released = gate();
  const state = { calls: 0, answered: 0 };
  const wrap = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        if (++state.calls > 1) await released.opened;
        const outcome = await agents.scorer.score(input, ctx);
        state.answered++;
        return outcome;
      },
    },
  });
  return { wrap, released, state };
}

/**
 * Stops the server once the run's first entry is written and the other scorers are waiting, and waits until the pool
 * has dropped the connections the server closed: the run's next writes then find no server, as during a restart
 * (one sent on a connection as the server dropped it has an unknown outcome, which the run does not send again).
 */
async function stopMidScoring(runId: string, state: { calls: number }): Promise<void> {
  await waitFor(async () => state.calls === 3 && (await entryCount(runId)) === 1, 20_000, 'one candidate written, two scorers waiting');
  await server.stop();
  await waitFor(async () => rt.db.poolStats().idle === 0, 5_000, 'the pool to drop the closed connections');
}

test('a database gone for a second and a half mid-scoring: the run waits its writes out and succeeds in its first attempt, with the shortlist of an uninterrupted run', async () => {
  const clean = await uninterruptedShortlist();
  const { wrap, released, state } = scoringAcrossAnOutage();
  // A lease far longer than the outage: the heartbeat's renewals fail throughout, and the run is still ours after it.
  const worker = startTestWorker(rt, { wrap, leaseMs: 30_000, heartbeatMs: 200 });
  try {
    const runId = await startRun();
    await stopMidScoring(runId, state);
    try {
      released.open();
      await waitFor(async () => state.answered === 3, 5_000, 'the held scorers to answer into the outage');
      // The outage's length, not a wait for a condition: its writes are refused, then tried again, for 1.5 s.
      await sleep(1_500);
    } finally {
      await server.start();
    }
    await assertWaitedOut(runId, clean, 'write');
    assert.equal(state.calls, 3, 'each candidate scored once');
  } finally {
    await worker.stop(2_000);
  }
});

// A read the run makes after an agent answers into the outage: the reranker's is followed by the scoring step's
// candidates' texts, the query expander reads the pool (its skill vocabulary) as it works. Each is held while the
// checkpoint before it is written (the retrieval's, the run's start), which the outage must not cut off.
const HELD = [
  ['reranker', 'the candidates’ texts before scoring', 'candidates.retrieved'],
  ['queryExpander', 'the query expander’s skill vocabulary', 'iteration.started'],
] as const;
for (const [agent, reads, landed] of HELD) {
  test(`a database gone for a second and a half as a run reads (${reads}): the read is sent again, and the run succeeds in its first attempt`, async () => {
    const clean = await uninterruptedShortlist();
    const { wrap, released, state } = holdingFirstCall(agent);
    const worker = startTestWorker(rt, { wrap, leaseMs: 30_000, heartbeatMs: 200 });
    try {
      const runId = await startRun();
      await readsAcrossAnOutage(runId, () => state.asked === 1, landed, released);
      await assertWaitedOut(runId, clean, 'read');
      assert.equal(state.asked, 1, `the ${agent} was asked once`);
    } finally {
      await worker.stop(2_000);
    }
  });
}

test('a database gone for longer than the lease: the run’s writes are tried until the lease would run out, then it is claimed again and resumed as before', async () => {
  const clean = await uninterruptedShortlist();
  const { wrap, released, state } = scoringAcrossAnOutage();
  const worker = startTestWorker(rt, { wrap, leaseMs: 1000, heartbeatMs: 200 });
  try {
    const runId = await startRun();
    await stopMidScoring(runId, state);
    try {
      released.open();
      // The run's entries cannot be written within its lease: the worker lets it go, with nothing more written.
      await waitFor(async () => worker.activeRuns().length === 0, 10_000, 'the worker to let the run go');
      assert.ok(rt.logs.some((l) => l.runId === runId && l.msg === 'run write failed'), 'its write was tried again first');
    } finally {
      await server.start();
    }
    const row = await finished(runId);
    assert.equal(row.status, 'succeeded', JSON.stringify(row.error));
    assert.equal(row.attempts, 2, 'claimed again once the database was back, and resumed');
    assert.ok((await eventTypes(runId)).includes('run.resumed'));
    assert.deepEqual(await shortlistOf(runId), clean);
    // The first candidate was written before the outage and not scored again; the two answered into it were lost
    // with the attempt, and scored again.
    assert.equal(state.calls, 5);
  } finally {
    await worker.stop(2_000);
  }
});

test('a write waiting out an outage is refused once the database is back if the lease was taken meanwhile: the run is aborted, its calls in flight stopped', async () => {
  const released = gate();
  let calls = 0;
  let aborted = 0;
  // The first candidate is answered at once, the second into the outage, the third not until the run is aborted.
  const wrap = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        const call = ++calls;
        if (call === 2) await released.opened;
        if (call === 3) {
          await new Promise((_, reject) =>
            ctx.signal?.addEventListener('abort', () => {
              aborted++;
              reject(ctx.signal?.reason);
            }),
          );
        }
        return agents.scorer.score(input, ctx);
      },
    },
  });
  // No heartbeat within the test: the worker learns of the loss only from its write.
  const worker = startTestWorker(rt, { wrap, leaseMs: 3_600_000, heartbeatMs: 1_800_000 });
  try {
    const runId = await startRun();
    await stopMidScoring(runId, { get calls() { return calls; } });
    let stolenAt: number;
    try {
      released.open();
      await waitFor(async () => rt.logs.some((l) => l.runId === runId && l.msg === 'run write failed'), 5_000, 'the write to be refused for the outage');
      // Another worker's claim, as after a lease that ran out by the database's clock (on the data, not the socket).
      const r = await server.pglite.query<{ version: number }>(
        "UPDATE matching_runs SET lease_owner = 'the-new-owner', lease_expires_at = now() + interval '1 hour', attempts = attempts + 1 WHERE id = $1 RETURNING version",
        [runId],
      );
      stolenAt = r.rows[0]!.version;
    } finally {
      await server.start();
    }
    await waitFor(async () => worker.activeRuns().length === 0, 10_000, 'the worker to give the run up');
    assert.equal(aborted, 1, 'the call in flight was stopped');
    assert.ok(rt.logs.some((l) => l.runId === runId && /lease lost/.test(String(l.msg))));
    const row = (await server.pglite.query<{ version: number; lease_owner: string }>('SELECT version, lease_owner FROM matching_runs WHERE id = $1', [runId])).rows[0]!;
    assert.equal(row.lease_owner, 'the-new-owner');
    assert.equal(row.version, stolenAt, 'nothing written to the run after the new owner took it');
    assert.equal(await entryCount(runId), 1);
    assert.ok(!(await eventTypes(runId)).includes('run.retrying'));
  } finally {
    await worker.stop(2_000);
  }
});

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

test('a run whose attempt failed in a short outage is handed back once the database answers, not left to its lease', async () => {
  // Measured on PostgreSQL 15: a 5 s restart failed every running run's next write at once, their hand-back failed
  // too ("run could not be finished"), and they sat claimed until their lease ran out, 18 s after the database was back.
  // A run's writes now wait such an outage out; what still fails an attempt during one (here its model, as a write
  // whose answer was lost would) is handed back as soon as the database answers.
  const { wrap: scoring, released, state } = scoringAcrossAnOutage();
  const wrap = (agents: Agents): Agents => {
    const held = scoring(agents);
    return {
      ...held,
      scorer: {
        score: async (input, ctx) => {
          const outcome = await held.scorer.score(input, ctx);
          // The two calls held across the outage fail, as a provider's outage would; on the next attempt none does.
          if (state.answered === 2 || state.answered === 3) throw new Error('provider unavailable');
          return outcome;
        },
      },
    };
  };
  // A lease far longer than the test waits: only a hand-back lets the run go on within it.
  const worker = startTestWorker(rt, { wrap, leaseMs: 120_000, heartbeatMs: 200, pollMs: 50 });
  try {
    const runId = await startRun();
    await stopMidScoring(runId, state);
    try {
      released.open();
      await waitFor(async () => rt.logs.some((l) => l.runId === runId && l.msg === 'run attempt failed; handed back to be tried again'), 10_000, 'the attempt to fail');
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
