// An erasure that commits while a statement writing a candidate's rows is running, which only a server that runs
// transactions at once allows (the embedded database runs one at a time): the rows must end redacted, or the erasure
// must wait for them. Each test holds a lock the write needs, so that the erasure comes after the write began and
// before it commits, then lets it go.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Queryable } from '../../src/db/database.js';
import { initialContext } from '../../src/matching/context.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { TEST_DATABASE_URL } from '../support/postgres.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';

const skip = TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set: the embedded database runs one transaction at a time';

let rt: TestRuntime;
before(async () => {
  if (!skip) rt = await startApiWithCandidates(backendPool(), { DB_POOL_MAX: '10' });
});
after(() => rt?.close());

/** Backends of this database waiting for a lock. */
async function waiting(): Promise<number> {
  const r = await rt.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
  return r.rows[0]!.n;
}

/** Holds `sql`'s row locks in a transaction of its own until release() is called. */
async function holdLock(sql: string, values: unknown[]): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = rt.db.withTransaction(async (tx: Queryable) => {
    await tx.query(sql, values);
    locked();
    await released;
  });
  await isLocked;
  return {
    async release() {
      release();
      await holder;
    },
  };
}

async function newRun(): Promise<{ runId: string; orgId: string; candidates: string[] }> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  const runId = res.json().id as string;
  const orgId = (await rt.db.query<{ org_id: string }>('SELECT org_id FROM matching_runs WHERE id = $1', [runId])).rows[0]!.org_id;
  const candidates = (await rt.db.query<{ id: string }>('SELECT id FROM candidates WHERE org_id = $1 ORDER BY external_id', [orgId])).rows.map((r) => r.id);
  // No worker here: the run stays queued, and only the test writes its rows.
  await rt.db.query("UPDATE matching_runs SET status = 'cancelled', finished_at = now() WHERE id = $1", [runId]);
  return { runId, orgId, candidates };
}

/**
 * Starts the erasure and returns once it has either ended or is waiting for a lock (the write's); the answer is in
 * `answer` (a promise in an object, not returned as such: awaiting this must not wait for the erasure to end).
 */
async function eraseMeanwhile(candidateId: string, waitingBefore: number) {
  let ended = false;
  const answer = rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${candidateId}`, headers: rt.auth() }).finally(() => (ended = true));
  await waitFor(async () => ended || (await waiting()) > waitingBefore, 10_000, 'the erasure ending or waiting for the write');
  return { answer };
}

test('trail rows (a scorer decision, a rerank exchange) and a ledger row in one statement, racing the erasure: redacted', { skip }, async () => {
  const { runId, orgId, candidates } = await newRun();
  const [erased, kept] = candidates as [string, string];
  const journal = rt.services.journal;
  // The run's row locked: the journal's statement, once it has begun, waits for it (moving the run's totals, and for
  // the trail rows' foreign key) until the erasure has come.
  const lock = await holdLock('SELECT 1 FROM matching_runs WHERE id = $1 FOR UPDATE', [runId]);
  let erasing;
  try {
    journal.record({ orgId, runId, agent: 'scorer', model: 'fake-chat', promptTokens: 10, cachedTokens: 0, completionTokens: 5, costUsd: 0.01, latencyMs: 3, outcome: 'ok', requestId: null, attempt: 1 });
    journal.trace({ runId, orgId }, 'candidate.scored', { rationale: 'Led the Acme payments team (erased words)' }, erased);
    journal.trace({ runId, orgId }, 'model.exchange', { candidateIds: [kept, erased], request: 'both resumes (erased words)' });
    journal.trace({ runId, orgId }, 'candidate.scored', { rationale: 'kept words' }, kept);
    const flushing = journal.flush();
    await waitFor(async () => (await waiting()) >= 1, 10_000, 'the journal statement waiting for the run row');
    erasing = await eraseMeanwhile(erased, 1);
    await lock.release();
    await flushing;
  } finally {
    await lock.release();
  }
  assert.equal((await erasing!.answer).statusCode, 204);
  const rows = await rt.db.query<{ kind: string; candidate_id: string | null; data: unknown }>('SELECT kind, candidate_id, data FROM run_trace WHERE run_id = $1 ORDER BY id', [runId]);
  assert.deepEqual(rows.rows, [
    { kind: 'candidate.scored', candidate_id: erased, data: { erased: true } },
    { kind: 'model.exchange', candidate_id: null, data: { erased: true } },
    { kind: 'candidate.scored', candidate_id: kept, data: { rationale: 'kept words' } },
  ]);
  assert.equal((await rt.db.query<{ n: number }>('SELECT llm_calls AS n FROM matching_runs WHERE id = $1', [runId])).rows[0]!.n, 1, 'the ledger row counted');
});

test('a shortlist entry written while its candidate is erased keeps only its id and scores', { skip }, async () => {
  const { runId, orgId, candidates } = await newRun();
  const [erased, kept] = candidates as [string, string];
  // The run as a worker holds it: its entries are written under its lease.
  await rt.db.query("UPDATE matching_runs SET status = 'running', finished_at = NULL, lease_owner = 'racer', lease_expires_at = now() + interval '1 hour' WHERE id = $1", [runId]);
  const queue = createRunQueue(rt.db, { workerId: 'racer', leaseMs: 3_600_000, maxAttempts: 3 });
  const ctx = initialContext({ runId, orgId, engine: 'heuristic', role: GO_ROLE, params: RunParamsSchema.parse({ maxIterations: 1 }) });
  const subscores = { hardSkills: 20, domain: 10, seniority: 10, impact: 10, logistics: 5, trajectory: 5 };
  const entry = (candidateId: string, externalId: string) => ({
    candidateId, externalId, name: `Person ${externalId}`, status: 'scored' as const, subscores, totalScore: 60,
    rationale: `Why ${externalId} fits`, evidence: [{ subscore: 'hardSkills' as const, quote: `${externalId} wrote Go`, verified: true }], retrievalScore: 0.5, iteration: 1,
  });
  const lock = await holdLock('SELECT 1 FROM matching_runs WHERE id = $1 FOR UPDATE', [runId]);
  let erasing;
  try {
    const saving = queue.saveEntries(ctx, [entry(erased, 'c1'), entry(kept, 'c2')]);
    await waitFor(async () => (await waiting()) >= 1, 10_000, 'the entries waiting for the run row');
    erasing = await eraseMeanwhile(erased, 1);
    await lock.release();
    await saving;
  } finally {
    await lock.release();
  }
  assert.equal((await erasing!.answer).statusCode, 204);
  const rows = await rt.db.query<{ candidate_id: string; external_id: string | null; name: string | null; rationale: string | null; evidence: unknown; total_score: number }>(
    'SELECT candidate_id, external_id, name, rationale, evidence, total_score FROM shortlist_entries WHERE run_id = $1',
    [runId],
  );
  const byId = new Map(rows.rows.map((r) => [r.candidate_id, r]));
  assert.deepEqual(byId.get(erased), { candidate_id: erased, external_id: null, name: null, rationale: null, evidence: [], total_score: 60 });
  assert.equal(byId.get(kept)?.rationale, 'Why c2 fits');
});

test("an erasure and a worker renewing the leases of two runs with the candidate on their shortlists: no deadlock", { skip }, async () => {
  const first = await newRun();
  const second = await newRun();
  const erased = first.candidates[0]!;
  const [small, big] = [first.runId, second.runId].sort();
  for (const runId of [small!, big!]) {
    await rt.db.query("UPDATE matching_runs SET status = 'running', finished_at = NULL, lease_owner = 'racer', lease_expires_at = now() + interval '1 hour' WHERE id = $1", [runId]);
    await rt.db.query(
      "INSERT INTO shortlist_entries (run_id, candidate_id, status, external_id, total_score, retrieval_score, iteration) VALUES ($1, $2, 'scored', 'c1', 50, 0.5, 1)",
      [runId, erased],
    );
  }
  // The run with the smaller id is the older: an erasure that reads the organisation's runs newest first (its index)
  // meets them in the order opposite to id order, which a heartbeat and the journal lock them in.
  await rt.db.query("UPDATE matching_runs SET created_at = created_at - interval '1 minute' WHERE id = $1", [small]);
  const conflictsBefore = rt.logs.filter((l) => String(l.msg).startsWith('the database rolled work back')).length;
  // A heartbeat renews its runs' leases in id order; here it is held between the two, until the erasure waits.
  let attempts = 0;
  let renewing!: () => void;
  const firstRenewed = new Promise<void>((resolve) => (renewing = resolve));
  const heartbeat = rt.db.withTransaction(async (tx) => {
    attempts++;
    await tx.query("UPDATE matching_runs SET lease_expires_at = now() + interval '1 hour' WHERE id = $1", [small]);
    if (attempts === 1) {
      renewing();
      await waitFor(async () => (await waiting()) >= 1, 10_000, 'the erasure waiting for a run row');
    }
    await tx.query("UPDATE matching_runs SET lease_expires_at = now() + interval '1 hour' WHERE id = $1", [big]);
  });
  await firstRenewed;
  const erasure = await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${erased}`, headers: rt.auth() });
  await heartbeat;
  assert.equal(erasure.statusCode, 204);
  assert.equal(attempts, 1, 'the renewal was not rolled back for a deadlock');
  assert.equal(rt.logs.filter((l) => String(l.msg).startsWith('the database rolled work back')).length, conflictsBefore, 'nor was the erasure');
  const entries = await rt.db.query<{ external_id: string | null }>('SELECT external_id FROM shortlist_entries WHERE candidate_id = $1 AND run_id = ANY($2::uuid[])', [erased, [small, big]]);
  assert.deepEqual(entries.rows, [{ external_id: null }, { external_id: null }]);
});
