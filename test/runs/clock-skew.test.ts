// A worker whose clock is off the database's (another host, no NTP): a run's deadline counts from its start on the
// database's clock, so the skew neither cuts the run short nor stretches it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgeMs } from '../../src/runs/run-queue.js';
import { runToEnd, startLlmRig } from '../observability/llm-run.js';

test('a worker whose clock runs 20 minutes ahead of the database still gives a run its whole deadline', async () => {
  const rig = await startLlmRig();
  const realNow = Date.now;
  try {
    // The database (PGlite, in a thread of its own, or a server) keeps the true time; this process's is 20 minutes on.
    Date.now = () => realNow() + 20 * 60_000;
    const run = await runToEnd(rig.rt);
    Date.now = realNow;
    assert.equal(run.status, 'succeeded');
    assert.notEqual(run.stop.reason, 'budget', `stopped for its deadline before any model call: ${run.stop.reasoning}`);
    assert.ok(run.usage.llmCalls > 0 && run.shortlist.length > 0);
  } finally {
    Date.now = realNow;
    await rig.close();
  }
});

test("a run's age: its age at the claim by the database's clock, then this process's time since", () => {
  assert.equal(runAgeMs({ elapsedMs: 5_000, claimedAt: 1_000_000 }, 1_002_500), 7_500);
  // A clock stepped back after the claim adds nothing negative.
  assert.equal(runAgeMs({ elapsedMs: 5_000, claimedAt: 1_000_000 }, 990_000), 5_000);
});
