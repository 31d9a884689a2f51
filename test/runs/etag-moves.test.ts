// A 304 never hides a change: writes other than a worker's own (a queued run's cancel, a usage row, the sweeps) move
// the run's ETag too (runs-http.test.ts covers the worker's writes).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { createUsageStore } from '../../src/usage/usage-store.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

const get = (id: string, etag?: string) => rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: { ...rt.auth(), ...(etag ? { 'if-none-match': etag } : {}) } });
const start = async () => (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } })).json().id as string;

/** The run's answer changed since `etag` was read: a poll with it is a 200 with a new ETag, never a 304. */
async function moved(id: string, etag: string) {
  const res = await get(id, etag);
  assert.equal(res.statusCode, 200, 'a poll with the old ETag sees the change');
  assert.notEqual(res.headers.etag, etag);
  return res.json();
}

test('cancelling a queued run moves its ETag', async () => {
  const id = await start();
  const before = await get(id);
  assert.equal(before.json().status, 'queued');
  assert.equal((await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() })).statusCode, 202);
  assert.equal((await moved(id, before.headers.etag as string)).status, 'cancelled');
});

test("a model call recorded for a run moves its ETag: the answer's usage changed", async () => {
  const id = await start();
  const before = await get(id);
  const orgId = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;
  await createUsageStore(rt.db).record({ orgId, runId: id, agent: 'scorer', model: 'gpt-4o-mini', promptTokens: 100, cachedTokens: 0, completionTokens: 10, costUsd: 0.001, latencyMs: 5, outcome: 'ok', requestId: null, attempt: 1 });
  assert.notDeepEqual((await moved(id, before.headers.etag as string)).usage, before.json().usage);
  await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() });
});

test('the sweeps move the ETag of the runs they end: attempts exhausted, a cancel whose worker is gone', async () => {
  const dead = createRunQueue(rt.db, { workerId: 'dead-worker', leaseMs: 60_000, maxAttempts: 1 });
  const expire = (id: string) => rt.db.query("UPDATE matching_runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [id]);

  const exhausted = await start();
  assert.equal((await dead.claim())?.id, exhausted);
  await expire(exhausted);
  const before = await get(exhausted);
  assert.equal((await dead.failExhausted()).length, 1);
  assert.equal((await moved(exhausted, before.headers.etag as string)).status, 'failed');

  const abandoned = await start();
  assert.equal((await dead.claim())?.id, abandoned);
  assert.equal((await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${abandoned}/cancel`, headers: rt.auth() })).statusCode, 202);
  await expire(abandoned);
  const flagged = await get(abandoned);
  assert.equal((await dead.cancelAbandoned()).length, 1);
  assert.equal((await moved(abandoned, flagged.headers.etag as string)).status, 'cancelled');
});
