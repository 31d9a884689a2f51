// Retries of one POST that arrive together, when the organisation is one run short of its in-flight cap: the first
// fills the cap, and its retries must be answered with its run, not with 429.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRunService } from '../../src/runs/run-service.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import type { RunStore } from '../../src/runs/run-store.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { gate } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
});
after(() => rt.close());

test('simultaneous retries with one Idempotency-Key at the in-flight cap all get the first run', async () => {
  const store = rt.services.runStore;
  const orgId = (await rt.db.query<{ id: string }>("SELECT id FROM organisations WHERE name = 'default'")).rows[0]!.id;
  // Both requests look the key up before either has created its run: they arrived together.
  const bothLooked = gate();
  let lookups = 0;
  const runs: RunStore = {
    ...store,
    findByIdempotencyKey: async (org, key) => {
      const found = await store.findByIdempotencyKey(org, key);
      if (++lookups === 2) bothLooked.open();
      await bothLooked.opened;
      return found;
    },
  };
  const service = createRunService({
    db: rt.db,
    runs,
    usage: rt.services.usage,
    engine: 'heuristic',
    embeddings: 'local',
    limits: { maxRunsInFlightPerOrg: 1, orgDailyBudgetUsd: 50 },
  });
  const request = { orgId, role: GO_ROLE, params: RunParamsSchema.parse({ maxIterations: 1 }), idempotencyKey: 'retried-at-the-cap' };
  const answers = await Promise.allSettled([service.start(request), service.start(request)]);
  const rejected = answers.flatMap((a) => (a.status === 'rejected' ? [String(a.reason)] : []));
  assert.deepEqual(rejected, [], 'no retry is refused');
  const started = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
  assert.equal(new Set(started.map((s) => s.runId)).size, 1, 'one run for both');
  assert.deepEqual(started.map((s) => s.created).sort(), [false, true], 'created once, replayed once');
});
