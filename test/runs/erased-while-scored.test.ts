// An erasure while a run is scoring the candidate: the entry written afterwards keeps only the id and the scores, as
// the erasure left every entry already written, and the trail rows written afterwards are redacted as it redacts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
before(async () => {
  rt = await startApiWithCandidates(backendPool());
});
after(() => rt.close());

test('a candidate erased while the scorer weighs it is written to the shortlist with its id and scores only', async () => {
  let erased: string | null = null;
  // The first candidate scored is erased while its scorer's answer is on its way, as a slow model call would allow.
  const erasing = (agents: Agents): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        if (erased === null) {
          erased = input.candidate.id;
          const res = await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${erased}`, headers: rt.auth() });
          assert.equal(res.statusCode, 204);
        }
        return agents.scorer.score(input, ctx);
      },
    },
  });
  const worker = startTestWorker(rt, { wrap: erasing, globalScoreConcurrency: 1 });
  let run;
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
    assert.equal(res.statusCode, 202, res.body);
    run = await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 20_000, 'the run');
  } finally {
    await worker.stop(2_000);
  }
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  const entry = run.shortlist.find((e: { candidateId: string }) => e.candidateId === erased);
  assert.ok(entry, 'the entry keeps its place and scores');
  assert.deepEqual({ externalId: entry.externalId, name: entry.name, rationale: entry.rationale, evidence: entry.evidence }, { externalId: null, name: null, rationale: null, evidence: [] });
  // The trail's rows of the candidate, written behind the work and so after the erasure, are redacted as it redacts.
  const trail = await rt.db.query<{ kind: string; data: unknown }>('SELECT kind, data FROM run_trace WHERE run_id = $1 AND candidate_id = $2', [run.id, erased]);
  assert.ok(trail.rows.length > 0);
  for (const row of trail.rows) assert.deepEqual(row.data, { erased: true }, row.kind);
});

test('a model exchange whose answer came after its candidate was erased is written redacted', async () => {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1 } });
  assert.equal(res.statusCode, 202, res.body);
  const run = { runId: res.json().id as string, orgId: (await rt.db.query<{ org_id: string }>('SELECT org_id FROM matching_runs WHERE id = $1', [res.json().id])).rows[0]!.org_id };
  const [kept, gone] = (await rt.db.query<{ id: string }>('SELECT id FROM candidates WHERE org_id = $1 ORDER BY external_id LIMIT 2', [run.orgId])).rows.map((r) => r.id);
  // Both were in the requests, sent before the erasure; their answers, and so their rows, come after it.
  assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${gone}`, headers: rt.auth() })).statusCode, 204);
  const exchange = { agent: 'reranker', candidateIds: [kept, gone], request: { messages: [{ role: 'user', content: 'the scrubbed resumes' }] } };
  rt.services.journal.trace(run, 'model.exchange', exchange);
  rt.services.journal.trace(run, 'model.exchange', { agent: 'scorer', candidateIds: [gone], request: 'a scrubbed resume' }, gone!);
  rt.services.journal.trace(run, 'model.exchange', { agent: 'scorer', candidateIds: [kept], request: 'another scrubbed resume' }, kept!);
  await rt.services.journal.flush();
  const rows = await rt.db.query<{ data: { agent?: string } }>("SELECT data FROM run_trace WHERE run_id = $1 AND kind = 'model.exchange' ORDER BY id", [run.runId]);
  assert.deepEqual(rows.rows.map((r) => r.data.agent ?? r.data), [{ erased: true }, { erased: true }, 'scorer']);
});

/** Runs the role once, its scorer wrapped (other runs still queued from the tests above are scored as they are). */
async function runWith(wrap: (agents: Agents, runId: string) => Agents) {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 3 } });
  assert.equal(res.statusCode, 202, res.body);
  const worker = startTestWorker(rt, { wrap: (agents) => wrap(agents, res.json().id), globalScoreConcurrency: 1 });
  try {
    return await waitFor(async () => {
      const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
      return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
    }, 20_000, 'the run');
  } finally {
    await worker.stop(2_000);
  }
}

/** A scorer that leaves the run's first candidate unscored, with a reason quoting the model's answer about them as it was. */
function unscoringFirst(onFirst: (id: string) => Promise<void> = async () => {}) {
  const first: { id: string | null; quote: string } = { id: null, quote: '' };
  const wrap = (agents: Agents, runId: string): Agents => ({
    ...agents,
    scorer: {
      score: async (input, ctx) => {
        if (first.id !== null || ctx.runId !== runId) return agents.scorer.score(input, ctx);
        first.id = input.candidate.id;
        first.quote = input.candidate.text.slice(0, 20);
        await onFirst(first.id);
        return { status: 'unscored', reason: `no valid score after 2 attempt(s): invalid JSON: Unexpected token, ..."${first.quote}"... is not valid JSON` };
      },
    },
  });
  return { first, wrap };
}

async function unscoredTraces(runId: string, candidateId: string) {
  const entry = await rt.db.query<{ status: string; reason: string | null }>('SELECT status, reason FROM shortlist_entries WHERE run_id = $1 AND candidate_id = $2', [runId, candidateId]);
  const events = await rt.db.query<{ data: Record<string, unknown> }>(
    "SELECT data FROM run_events WHERE run_id = $1 AND type = 'candidate.unscored' AND data ->> 'candidateId' = $2",
    [runId, candidateId],
  );
  return { entry: entry.rows[0], events: events.rows.map((r) => r.data) };
}

test("an unscored candidate's reason, which can quote the model's answer about them, goes with the erasure", async () => {
  const { first, wrap } = unscoringFirst();
  const run = await runWith(wrap);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  const before = await unscoredTraces(run.id, first.id!);
  assert.match(String(before.entry?.reason), new RegExp(first.quote.slice(0, 10)), 'the reason quoted the answer');
  assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${first.id}`, headers: rt.auth() })).statusCode, 204);
  const after = await unscoredTraces(run.id, first.id!);
  assert.deepEqual(after.entry, { status: 'unscored', reason: null });
  assert.equal(after.events.length, 1);
  assert.deepEqual(after.events[0], { candidateId: first.id, iteration: 1 }, 'the event keeps only the id');
  const page = (await rt.app!.inject({ url: `/v1/matching-runs/${run.id}/events?limit=100`, headers: rt.auth() })).body;
  assert.equal(page.includes(first.quote), false, 'the events route no longer quotes it');
});

test("an unscored candidate erased before its entry is written keeps no reason either", async () => {
  const { first, wrap } = unscoringFirst(async (id) => {
    assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${id}`, headers: rt.auth() })).statusCode, 204);
  });
  const run = await runWith(wrap);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  const after = await unscoredTraces(run.id, first.id!);
  assert.deepEqual(after.entry, { status: 'unscored', reason: null });
  assert.deepEqual(after.events, [{ candidateId: first.id, iteration: 1 }]);
});
