// How an attempt that did not finish its run ends it: a run that could not start is handed back at once (or, on its
// last attempt, fails with the error that stopped it), and one whose finish failed is not made to repeat its last step.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { DatabaseFaultError } from '../../src/errors.js';
import { createAgentsFactory } from '../../src/agents/create-agents.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

const timeout = () => new DatabaseFaultError('database_timeout', new Error('canceling statement due to statement timeout'));

async function startRun(body: Record<string, unknown>): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().id as string;
}

async function ended(runId: string, withinMs: number) {
  const run = await waitFor(async () => {
    const res = await rt.app!.inject({ method: 'GET', url: `/v1/matching-runs/${runId}`, headers: rt.auth() });
    const body = res.json();
    return ['queued', 'running'].includes(body.status) ? null : body;
  }, withinMs, 'the run to end');
  const events = await rt.db.query<{ type: string; data: Record<string, unknown> }>('SELECT type, data FROM run_events WHERE run_id = $1 ORDER BY seq', [runId]);
  const row = (await rt.db.query<{ attempts: number }>('SELECT attempts FROM matching_runs WHERE id = $1', [runId])).rows[0]!;
  return { run, events: events.rows, attempts: row.attempts };
}

test('a run whose budget could not be read is handed back at once with run.retrying, not after its lease, and the next attempt runs it', async () => {
  let reads = 0;
  // A lease far longer than the test waits: a run left running under it would not end in time.
  const worker = startTestWorker(rt, {
    leaseMs: 60_000,
    callContextFor: (original) => async (run, signal, deadline) => {
      if (++reads === 1) throw timeout();
      return original(run, signal, deadline);
    },
  });
  try {
    const { run, events, attempts } = await ended(await startRun({ role: GO_ROLE, maxIterations: 1 }), 15_000);
    assert.equal(run.status, 'succeeded');
    assert.equal(attempts, 2);
    const retrying = events.find((e) => e.type === 'run.retrying');
    assert.ok(retrying, events.map((e) => e.type).join(' '));
    assert.match(String(retrying.data.error), /^DatabaseTimeoutError: /);
    // The first attempt ended before its start was written: the second writes it.
    assert.deepEqual(events.filter((e) => e.type === 'run.started' || e.type === 'run.resumed').map((e) => e.type), ['run.started']);
  } finally {
    await worker.stop(2_000);
  }
});

test('on its last attempt a run that cannot start ends failed with the error that stopped it, not as attempts exhausted', async () => {
  const worker = startTestWorker(rt, { leaseMs: 60_000, maxAttempts: 1, callContextFor: () => async () => Promise.reject(timeout()) });
  try {
    const { run, events } = await ended(await startRun({ role: GO_ROLE, maxIterations: 1 }), 15_000);
    assert.equal(run.status, 'failed');
    assert.equal(run.error.title, 'DatabaseTimeoutError');
    assert.equal(run.stop.reason, 'error');
    assert.deepEqual(events.map((e) => e.type), ['run.queued', 'run.failed']);
  } finally {
    await worker.stop(2_000);
  }
});

test('a run whose finish failed is handed back with its last checkpoint: the next attempt finishes without asking the reflector again', async () => {
  let reflections = 0;
  let finishes = 0;
  // The finish statement is refused once, before it runs (a statement timeout, say).
  const refusing: Database = {
    ...rt.db,
    async query<R>(text: string, values?: unknown[]) {
      if (/SET status = \$3, stop = \$4/.test(text) && ++finishes === 1) throw timeout();
      return rt.db.query<R>(text, values);
    },
  };
  const worker = startTestWorker(rt, {
    db: refusing,
    leaseMs: 60_000,
    wrap: (agents) => ({
      ...agents,
      reflector: {
        reflect: async (input) => {
          reflections++;
          return { stop: true, reasoning: `Enough after round ${input.iteration}.`, hints: [] };
        },
      },
    }),
  });
  try {
    const { run, events, attempts } = await ended(await startRun({ role: GO_ROLE, maxIterations: 3, scoreLimit: 3 }), 15_000);
    assert.equal(run.status, 'succeeded');
    assert.equal(run.stop.reason, 'reflector');
    assert.equal(attempts, 2);
    assert.equal(finishes, 2);
    assert.equal(reflections, 1, 'the reflection was not paid for twice');
    const types = events.map((e) => e.type);
    assert.equal(types.filter((t) => t === 'iteration.reflected').length, 1, types.join(' '));
    assert.deepEqual(types.slice(-4), ['iteration.reflected', 'run.retrying', 'run.resumed', 'run.stopped']);
    // A finished run is never resumed: the checkpoint that finished it is not kept.
    const kept = await rt.db.query('SELECT 1 FROM matching_runs WHERE id = $1 AND checkpoint IS NOT NULL', [run.id]);
    assert.equal(kept.rowCount, 0);
  } finally {
    await worker.stop(2_000);
  }
});

test('a run whose lease ran out on its last attempt is not claimed again: the attempt cap holds at the claim, before any sweep', async () => {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().id as string;
  const queue = createRunQueue(rt.db, { workerId: 'w-cap', leaseMs: 60_000, maxAttempts: 1 });
  assert.equal((await queue.claim())?.id, id);
  // Its worker died: the lease runs out. A worker that starts (and claims at once) must not take it a second time.
  await rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second', checkpoint = '{}' WHERE id = $1", [id]);
  assert.equal(await queue.claim(), null);
  await queue.failExhausted();
  const row = (await rt.db.query<{ status: string; attempts: number; kept: boolean }>('SELECT status, attempts, checkpoint IS NOT NULL AS kept FROM matching_runs WHERE id = $1', [id])).rows[0];
  assert.deepEqual(row, { status: 'failed', attempts: 1, kept: false });
});

test('a worker claims only runs of the engines it can drive: one without a model leaves an llm run to one with it', async () => {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().id as string;
  await rt.db.query("UPDATE matching_runs SET engine = 'llm' WHERE id = $1", [id]);
  // This runtime has no model configured: its factory drives the heuristic engine alone.
  const engines = createAgentsFactory(rt.config, rt.services).engines;
  assert.deepEqual(engines, ['heuristic']);
  const heuristicOnly = createRunQueue(rt.db, { workerId: 'w-heuristic', leaseMs: 60_000, maxAttempts: 3, engines });
  assert.equal(await heuristicOnly.claim(), null);
  const row = (await rt.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM matching_runs WHERE id = $1', [id])).rows[0];
  assert.deepEqual(row, { status: 'queued', attempts: 0 }, 'left as it was, no attempt spent');
  const withModel = createRunQueue(rt.db, { workerId: 'w-llm', leaseMs: 60_000, maxAttempts: 3, engines: ['heuristic', 'llm'] });
  assert.equal((await withModel.claim())?.id, id);
  await rt.db.query("UPDATE matching_runs SET status = 'cancelled', finished_at = now(), lease_owner = NULL WHERE id = $1", [id]);
});
