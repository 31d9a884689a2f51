// The finished-run cache and an erasure in the same process: an answer read before the erasure, and still on its way
// when the erasure dropped the organisation's answers, must not be kept and served afterwards.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testClock } from '../support/clock.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
// Stopped below, so that a cached answer stays fresh for the whole test however slowly it runs.
const clock = testClock();
before(async () => {
  rt = await startApiWithCandidates(backendPool(), { CACHE_TTL_MS: '60000' }, { now: clock.now });
});
after(() => rt.close());

test('a poll that read a finished run before an erasure does not leave the erased answer in the cache', async (t) => {
  const orgId = (await rt.db.query<{ id: string }>("SELECT id FROM organisations WHERE name = 'default'")).rows[0]!.id;
  const started = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
  assert.equal(started.statusCode, 202, started.body);
  const id = started.json().id as string;
  const worker = startTestWorker(rt);
  // Waited for through the service, not the route: nothing of this run is cached yet.
  const done = await waitFor(async () => {
    const run = await rt.services.runs.get(orgId, id);
    return run.status === 'succeeded' ? run : null;
  }, 20_000, 'the run to succeed').finally(() => worker.stop(2_000));
  clock.set(Date.now());
  t.after(() => clock.set(null));
  const top = done.shortlist[0]!;
  assert.ok(top.externalId);

  // The poll's read of the run returns, and its answer waits on its way to the cache while the erasure happens.
  const read = gate();
  const proceed = gate();
  const query = rt.db.query.bind(rt.db);
  rt.db.query = (async (text: string, values?: unknown[]) => {
    const result = await query(text, values);
    if (text.includes('AS shortlist')) {
      read.open();
      await proceed.opened;
    }
    return result;
  }) as typeof rt.db.query;
  let before;
  try {
    const polling = rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() });
    await read.opened;
    const erased = await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${top.candidateId}`, headers: rt.auth() });
    assert.equal(erased.statusCode, 204);
    proceed.open();
    before = await polling;
  } finally {
    rt.db.query = query;
  }
  assert.equal(before.json().shortlist[0].externalId, top.externalId, 'that poll answers what it read, before the erasure');

  const after = await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() });
  assert.notEqual(after.headers.etag, before.headers.etag, 'a new version');
  const entry = after.json().shortlist.find((e: { candidateId: string }) => e.candidateId === top.candidateId);
  assert.equal(entry.externalId, null, 'the erased candidate is not served again from the cache');
  assert.equal(entry.name, null);
});

test('a finished run polled by its id in any spelling is one cached answer: the second spelling reads nothing', async (t) => {
  const orgId = (await rt.db.query<{ id: string }>("SELECT id FROM organisations WHERE name = 'default'")).rows[0]!.id;
  const started = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
  const id = started.json().id as string;
  const worker = startTestWorker(rt);
  await waitFor(async () => (await rt.services.runs.get(orgId, id)).status === 'succeeded', 20_000, 'the run to succeed').finally(() => worker.stop(2_000));
  clock.set(Date.now());
  t.after(() => clock.set(null));
  const first = await rt.app!.inject({ url: `/v1/matching-runs/${id.toUpperCase()}`, headers: rt.auth() });
  assert.equal(first.statusCode, 200);
  // Every spelling was a cache entry of its own: a caller could push other organisations' answers out.
  const statements: string[] = [];
  const query = rt.db.query.bind(rt.db);
  rt.db.query = ((text: string, values?: unknown[]) => (statements.push(text), query(text, values))) as typeof rt.db.query;
  try {
    const second = await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() });
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
  } finally {
    rt.db.query = query;
  }
  assert.deepEqual(statements, [], 'answered from the cache');
});
