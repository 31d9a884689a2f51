// A cancel reported by the write of a round's last entries, which the next step does not wait for: the run ends
// cancelled at the next boundary with the steps that finished meanwhile on its timeline (their events were lost with
// the checkpoint that carried them, and the stop named a round whose start was never written).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { gate, startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

test('a cancel reported by the last entries of a round keeps the events of the steps finished meanwhile', async () => {
  const entriesSent = gate();
  const release = gate();
  let reflections = 0;
  // The round's entries (the statement that checks for erased candidates) wait until the cancel is in.
  const slowEntries: Database = {
    ...rt.db,
    async query<R>(text: string, values?: unknown[]) {
      if (/A candidate erased since/.test(text)) {
        entriesSent.open();
        await release.opened;
      }
      return rt.db.query<R>(text, values);
    },
  };
  const worker = startTestWorker(rt, {
    db: slowEntries,
    wrap: (a) => ({ ...a, reflector: { reflect: async (i, c) => ((reflections += 1), a.reflector.reflect(i, c)) } }),
  });
  try {
    const payload = { role: GO_ROLE, maxIterations: 3, scoreLimit: 2, targetStrong: 50, scoreThreshold: 99 };
    const id = (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload })).json().id as string;
    await entriesSent.opened;
    assert.equal((await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() })).statusCode, 202);
    // The reflection (no model call in the heuristic engine) ends while the entries wait.
    await waitFor(async () => reflections > 0, 10_000, 'the reflection');
    release.open();
    const run = await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 20_000, 'the run');
    assert.equal(run.status, 'cancelled');
    const events = (await rt.db.query<{ type: string; data: { iteration?: number } }>('SELECT type, data FROM run_events WHERE run_id = $1 ORDER BY seq', [id])).rows;
    const types = events.map((e) => e.type);
    assert.ok(types.includes('candidates.scored') && types.includes('iteration.reflected'), types.join(', '));
    const rounds = events.filter((e) => e.type === 'iteration.started').map((e) => e.data.iteration);
    assert.ok(rounds.includes(run.stop.iteration), `the stop's round ${run.stop.iteration} was started: ${rounds.join(', ')}`);
    assert.equal(run.progress.iteration, run.stop.iteration);
  } finally {
    release.open();
    await worker.stop(2_000);
  }
});
