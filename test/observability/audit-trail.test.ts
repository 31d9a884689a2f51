// The audit trail of a run: what it records, scrubbed; only the owning organisation reads it; retention prunes whole old trails.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SCORER_INSTRUCTIONS, ScoreAnswer } from '../../src/agents/llm/scorer.js';
import { requestHash } from '../../src/audit/exchanges.js';
import { pruneTraces } from '../../src/audit/retention.js';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { promptHash } from '../../src/llm/structured.js';
import { GO_ROLE } from '../support/fixtures.js';
import { readTrace } from '../support/trace.js';
import { CANARY, recordedRun, startLlmRig, type LlmRig } from './llm-run.js';

interface TraceItem {
  seq: number;
  at: string;
  kind: string;
  candidateId: string | null;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let rig: LlmRig;
let run: { id: string; shortlist: Array<{ candidateId: string; totalScore: number }> };
let items: TraceItem[];

before(async () => {
  rig = await startLlmRig();
  run = await recordedRun(rig.rt);
  items = await readTrace<TraceItem>(rig.rt.app!, run.id, rig.rt.auth());
});
after(() => rig.close());

const ofKind = (kind: string) => items.filter((i) => i.kind === kind);

test('the start records the role as given, parameters, engine, pinned models and prompt/schema hashes', () => {
  const [started] = ofKind('run.started');
  assert.ok(started);
  const d = started.data;
  assert.equal(d.role.title, GO_ROLE.title);
  assert.deepEqual(d.role.mustHaveSkills, GO_ROLE.mustHaveSkills);
  assert.deepEqual([d.params.maxIterations, d.params.scoreLimit, d.params.budget.maxTokens], [3, 5, 200_000]);
  assert.equal(d.engine, 'llm');
  for (const agent of ['queryExpander', 'reranker', 'scorer', 'reflector']) {
    assert.equal(d.models[agent].model, 'fake-chat', agent);
    assert.equal(d.models[agent].spec.id, 'fake-chat');
    assert.deepEqual(d.models[agent].spec.pricing, { inputPerMTok: 1, cachedInputPerMTok: 0.5, outputPerMTok: 2 });
    assert.match(d.models[agent].specHash, /^[0-9a-f]{64}$/);
    assert.match(d.prompts[agent].promptHash, /^[0-9a-f]{64}$/);
  }
  assert.equal(d.prompts.scorer.promptHash, promptHash(SCORER_INSTRUCTIONS, ScoreAnswer), 'the hash of the template and schema in use');
  assert.equal(d.models.scorer.temperature, 0);
  assert.equal(d.settings.reaskLimit, 1);
  assert.deepEqual(d.embeddings, { model: rig.rt.services.embedder.model, dimension: rig.rt.services.embedder.dimension });
});

test('each round records its queries, retrieved ids with ranks and distances, rerank order and reflector decision', () => {
  const expanded = ofKind('queries.expanded');
  assert.deepEqual(expanded.map((e) => e.data.iteration), [1, 2]);
  assert.deepEqual(expanded[0]!.data.queries, ['engineer query 1', 'backend services 1']);
  const retrieved = ofKind('candidates.retrieved');
  assert.equal(retrieved.length, 2);
  assert.deepEqual(retrieved[0]!.data.queries, expanded[0]!.data.queries);
  const hits = retrieved[0]!.data.hits as Array<{ id: string; vectorRank: number | null; textRank: number | null; distance: number | null; fusedScore: number }>;
  assert.equal(hits.length, 8, 'the whole pool was retrieved in round 1');
  assert.ok(hits.every((h) => typeof h.fusedScore === 'number' && (h.vectorRank !== null || h.textRank !== null)));
  assert.ok(hits.some((h) => h.vectorRank === 1 && typeof h.distance === 'number'));
  const reranked = ofKind('candidates.reranked');
  assert.deepEqual(reranked.map((r) => r.data.orderedIds.length), [5, 3]);
  const reflected = ofKind('iteration.reflected');
  assert.deepEqual(reflected.map((r) => [r.data.iteration, r.data.stop]), [[1, false], [2, true]]);
  assert.deepEqual(reflected[0]!.data.hints, ['platform engineer']);
  const decided = [...ofKind('candidate.scored'), ...ofKind('candidate.unscored')];
  assert.equal(decided.length, 8);
  const scored = new Map(ofKind('candidate.scored').map((s) => [s.candidateId, s.data.totalScore]));
  for (const e of run.shortlist) assert.equal(scored.get(e.candidateId), e.totalScore);
  const finished = ofKind('run.finished')[0]!;
  assert.deepEqual([finished.data.status, finished.data.stop.reason], ['succeeded', 'reflector']);
  // Timings: each step of each round, with how long it took (an empty list would pass an every() alone).
  const steps = ofKind('step.finished');
  const STEPS = ['queries.expanded', 'candidates.retrieved', 'candidates.reranked', 'candidates.scored', 'iteration.reflected'];
  assert.deepEqual(steps.map((s) => [s.data.iteration, s.data.event]), [1, 2].flatMap((i) => STEPS.map((event) => [i, event])));
  assert.ok(steps.every((s) => Number.isInteger(s.data.durationMs) && s.data.durationMs >= 0), 'timings');
  assert.ok(Number.isInteger(finished.data.durationMs) && finished.data.durationMs >= 0, 'the run’s own time');
});

test('every model request and raw answer is in the trail, scorer exchanges under their candidate', () => {
  const exchanges = ofKind('model.exchange');
  const sent = rig.server.chatRequests();
  assert.equal(exchanges.length, sent.length, 'one exchange per request the provider saw, failed attempts included');
  assert.deepEqual(exchanges.map((x) => x.data.requestHash).sort(), sent.map((r) => requestHash(r.body)).sort(), 'recorded exactly as sent');
  const failed = exchanges.find((x) => x.data.error?.status === 500);
  assert.ok(failed && failed.data.response === null && failed.data.outcome === 'error');
  const answered = exchanges.filter((x) => x.data.response);
  assert.ok(answered.every((x) => typeof x.data.response.choices[0].message.content === 'string'));
  assert.ok(exchanges.some((x) => x.data.outcome === 'invalid_output' && x.data.response.choices[0].message.content.startsWith('Sure!')), 'a rejected answer, raw');
  for (const x of exchanges.filter((e) => e.data.agent === 'scorer')) {
    assert.match(String(x.candidateId), /^[0-9a-f-]{36}$/);
    assert.deepEqual(x.data.candidateIds, [x.candidateId]);
    assert.match(x.data.schemaHash, /^[0-9a-f]{64}$/);
  }
  const rerank = exchanges.filter((e) => e.data.agent === 'reranker');
  assert.ok(rerank.length > 0 && rerank.every((x) => x.candidateId === null && x.data.candidateIds.length > 1), 'a batch names all its candidates');
});

test('the trail holds scrubbed text only, and grows append-only in order', () => {
  const text = JSON.stringify(items);
  assert.ok(text.includes(CANARY.resumeWord), 'scrubbed resume text is there (it was sent)');
  for (const pii of [CANARY.name, CANARY.email, CANARY.phone]) assert.ok(!text.includes(pii), `${pii} in the trail`);
  const seqs = items.map((i) => i.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
  assert.equal(items[0]!.kind, 'run.started');
  assert.equal(items.at(-1)!.kind, 'run.finished');
});

test('only the owning organisation reads the trail: another answers 404, no key answers 401', async () => {
  const { key } = await createApiKeyStore(rig.rt.db).create('audit-other-org');
  const other = await rig.rt.app!.inject({ url: `/v1/matching-runs/${run.id}/trace`, headers: rig.rt.auth(key) });
  assert.equal(other.statusCode, 404);
  assert.equal(other.json().status, 404);
  assert.equal((await rig.rt.app!.inject({ url: `/v1/matching-runs/${run.id}/trace` })).statusCode, 401);
});

test('prune-traces removes whole trails older than the retention period, and only those', async () => {
  const { db } = rig.rt;
  const { org_id: orgId, role_id: roleId } = (await db.query<{ org_id: string; role_id: string }>('SELECT org_id, role_id FROM matching_runs WHERE id = $1', [run.id])).rows[0]!;
  const newRun = async () =>
    (await db.query<{ id: string }>(`INSERT INTO matching_runs (org_id, role_id, engine, params, progress, status) VALUES ($1, $2, 'llm', '{}', '{}', 'succeeded') RETURNING id`, [orgId, roleId])).rows[0]!.id;
  // One reading of the clock: the rows' times and the pruning's "now" cannot fall either side of a tick (or a midnight).
  const now = new Date();
  const DAY = 24 * 3600_000;
  const addTrace = (runId: string, msAgo: number) =>
    db.query(`INSERT INTO run_trace (run_id, org_id, kind, data, at) VALUES ($1, $2, 'run.started', '{}', $3)`, [runId, orgId, new Date(now.getTime() - msAgo)]);
  const old = await newRun();
  await addTrace(old, 200 * DAY);
  await addTrace(old, 190 * DAY);
  // A trail that began long ago but was written to recently stays whole.
  const spanning = await newRun();
  await addTrace(spanning, 200 * DAY);
  await addTrace(spanning, 10 * DAY);
  // The bound itself: a trail last written exactly the retention period ago stays; a millisecond earlier, it goes.
  const atBound = await newRun();
  await addTrace(atBound, 180 * DAY);
  const pastBound = await newRun();
  await addTrace(pastBound, 180 * DAY + 1);
  const count = async (runId: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM run_trace WHERE run_id = $1', [runId])).rows[0]!.n;
  const before = await count(run.id);

  assert.equal(rig.rt.config.TRACE_RETENTION_DAYS, 180, 'the default retention');
  // One trail per statement: batches add up to what one statement deletes.
  const pruned = await pruneTraces(db, rig.rt.config.TRACE_RETENTION_DAYS, now, { runsPerBatch: 1 });
  assert.deepEqual([pruned.runs, pruned.rows], [2, 3]);
  assert.equal(pruned.before.getTime(), now.getTime() - 180 * DAY);
  assert.equal(await count(old), 0);
  assert.equal(await count(pastBound), 0);
  assert.equal(await count(atBound), 1);
  assert.equal(await count(spanning), 2);
  assert.equal(await count(run.id), before);
  assert.deepEqual(await pruneTraces(db, 5, now).then((r) => [r.runs, r.rows]), [2, 3], 'a shorter period reaches the spanning trail and the one at the bound');
  assert.equal(await count(run.id), before, 'today’s trail is never pruned');
});

test('erasing a candidate redacts every trail row that carried its text, rerank batches included', async () => {
  // (Last in this file: it changes the recorded run.)
  const canary = (await rig.rt.db.query<{ id: string }>(`SELECT id FROM candidates WHERE external_id = 'canary'`)).rows[0]!.id;
  const carried = items.filter((i) => JSON.stringify(i.data).includes(CANARY.resumeWord));
  assert.ok(carried.some((i) => i.data.agent === 'reranker') && carried.some((i) => i.data.agent === 'scorer'));
  assert.equal((await rig.rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${canary}`, headers: rig.rt.auth() })).statusCode, 204);
  const after = await readTrace<TraceItem>(rig.rt.app!, run.id, rig.rt.auth());
  assert.equal(after.length, items.length, 'rows are redacted, not removed');
  assert.ok(!JSON.stringify(after).includes(CANARY.resumeWord), 'no row keeps the erased candidate’s text');
  for (const i of carried) assert.deepEqual(after.find((a) => a.seq === i.seq)!.data, { erased: true });
});
