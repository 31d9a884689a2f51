// A cancel asked of a running run whose worker then died (its lease ran out): the run ends cancelled, as asked,
// without another worker taking it up and paying for model calls first, and not failed when it was on its last attempt.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

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
  const worker = startTestWorker(rt, { wrap: counted, maxAttempts });
  try {
    const run = await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 20_000, 'the run to finish');
    return { run, calls };
  } finally {
    await worker.stop(2_000);
  }
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
