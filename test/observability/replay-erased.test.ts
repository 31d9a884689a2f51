// A run replayed after a candidate it read was erased cannot be acted out: replay-run says so (exit 2), whatever the
// engine, rather than "different" (exit 1) with the erased candidate's scores as the difference.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayRun, replayVerdict } from '../../src/audit/replay.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startRunUntil, startTestRuntime, waitFor } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

test('a heuristic run whose shortlisted candidate was erased since cannot be replayed: exit 2, naming the erasure', async () => {
  const rt = await startTestRuntime({ MATCH_ENGINE: 'heuristic' });
  try {
    const upload = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool() } });
    assert.equal(upload.statusCode, 200);
    const run = await startRunUntil(rt, { role: GO_ROLE, maxIterations: 1, scoreLimit: 6 }, 'succeeded');
    const replay = async () => replayVerdict(await replayRun({ db: rt.db, config: rt.config, runId: run.id }));
    assert.equal((await replay()).code, 0, 'identical while every candidate is there');
    const erased = run.shortlist.at(-1)!.candidateId;
    assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${erased}`, headers: rt.auth() })).statusCode, 204);
    const verdict = await replay();
    assert.equal(verdict.code, 2, verdict.stdout);
    assert.match(verdict.stderr, /cannot replay.*1 candidate\(s\) the run read have been erased since/);
    assert.doesNotMatch(verdict.stderr + verdict.stdout, new RegExp(erased), 'and names no erased candidate');
  } finally {
    await rt.close();
  }
});

test('a candidate erased during the run before the run read it dropped out of the run, and drops out of its replay: identical', async () => {
  const rt = await startTestRuntime({ MATCH_ENGINE: 'heuristic', PROCESS_ROLE: 'api' });
  try {
    await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool() } });
    const store = rt.services.candidateStore;
    // The worker reads texts with their erasure count (viewsWithErasures).
    const views = store.viewsWithErasures;
    let erased: string | null = null;
    // Retrieved, then erased before the rerank step reads the texts.
    store.viewsWithErasures = async (orgId, ids, opts) => {
      if (!erased) {
        erased = ids.at(-1)!;
        assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${erased}`, headers: rt.auth() })).statusCode, 204);
      }
      return views(orgId, ids, opts);
    };
    const worker = startTestWorker(rt);
    let runId: string;
    try {
      const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
      runId = res.json().id;
      await waitFor(async () => (await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() })).json().status === 'succeeded', 30_000, 'the run');
    } finally {
      await worker.stop(2_000);
      store.viewsWithErasures = views;
    }
    assert.ok(erased);
    const verdict = replayVerdict(await replayRun({ db: rt.db, config: rt.config, runId }));
    assert.equal(verdict.code, 0, verdict.stderr + verdict.stdout);
  } finally {
    await rt.close();
  }
});
