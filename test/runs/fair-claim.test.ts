// Organisations take turns at the queue: a worker claims the oldest run of the organisation whose runs it claimed least
// recently, so one organisation's backlog does not hold another's single run back until all of it has run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRunQueue } from '../../src/runs/run-queue.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
let otherKey: string;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  otherKey = (await rt.services.apiKeys.create('other-org')).key;
});
after(() => rt.close());

async function start(key: string): Promise<string> {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(key), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().id;
}

test("one organisation's backlog: the other organisation's run is claimed next, not after all of it; within one, oldest first", async () => {
  const mine = [await start(rt.apiKey), await start(rt.apiKey), await start(rt.apiKey), await start(rt.apiKey)];
  const theirs = await start(otherKey);
  // One slot: each claimed run finishes before the next claim, as a worker with WORKER_CONCURRENCY=1 does.
  const queue = createRunQueue(rt.db, { workerId: 'one-slot', leaseMs: 60_000, maxAttempts: 3 });
  const order: string[] = [];
  for (let i = 0; i < 5; i++) {
    const run = await queue.claim();
    assert.ok(run, `claim ${i + 1}`);
    order.push(run.id);
    await rt.db.query("UPDATE matching_runs SET status = 'succeeded', finished_at = now(), lease_owner = NULL WHERE id = $1", [run.id]);
  }
  assert.deepEqual(order, [mine[0], theirs, mine[1], mine[2], mine[3]]);
  assert.equal(await queue.claim(), null);
});

test('organisations with runs queued take turns, whichever queued first', async () => {
  const a = [await start(rt.apiKey), await start(rt.apiKey)];
  const b = [await start(otherKey), await start(otherKey)];
  const queue = createRunQueue(rt.db, { workerId: 'turns', leaseMs: 60_000, maxAttempts: 3 });
  const order: string[] = [];
  for (let i = 0; i < 4; i++) order.push((await queue.claim())!.id);
  // This organisation was served last in the test above: the other's turn comes first.
  assert.deepEqual(order, [b[0], a[0], b[1], a[1]], 'claimed without finishing: turns still alternate');
});
