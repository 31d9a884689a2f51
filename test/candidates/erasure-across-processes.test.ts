// An erasure through one process and what another process sharing the database remembers of the organisation's pool:
// the worker's skill vocabulary (suggested to a model, and widening the heuristic expander's queries) and its term
// statistics (which words of a query full-text search keeps) must stop holding the erased candidate's skills and words
// at their next use, not when their copy happens to be reloaded (a minute, up to 15). What another API process answers
// from memory (a finished run, a verified key) is not checked on use: it holds for CACHE_TTL_MS, the documented bound.
// Two runtimes, each with its own pool and caches, share one embedded database over its socket, as processes do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTermRarity } from '../../src/retrieval/term-rarity.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { connectionUrl } from '../support/database.js';
import { fakeReply, startFakeLlmServer, type FakeLlmServer, type RecordedRequest } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';
import { testClock } from '../support/clock.js';

// A skill only two candidates have, both erased (a skill one candidate holds is never offered to the model), and the near
// miss the model asks about (the tool answers with the closest skills).
const SKILL = 'Zorblax Operator';
const NEAR_MISS = 'Zorblax Operatr';
// A skill the heuristic expander adds to its searches (Kubernetes' neighbour) only when someone in the pool has it.
const RELATED = 'OpenShift';
// A word only one resume has: the rarest word of any query that contains it (its english stem is 'flimwickeri').
const WORD = 'flimwickery';
const STEM = /flimwick/;

const LLM = { MATCH_ENGINE: 'llm', LLM_API_KEY: 'sk-test-erasure', LLM_MODEL: 'fake-chat' };

let server: FakeLlmServer;
/** Process A: the API that erases. */
let api: TestRuntime;
/** Process B: API and worker on the same database, through its own pool, on a clock the test sets. */
let worker: TestRuntime;
const clock = testClock();
const CACHE_TTL_MS = 1_000;
let orgId: string;

const toolResults = (r: RecordedRequest) => (r.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

before(async () => {
  server = await startFakeLlmServer();
  server.setHandler(
    scriptedModel({
      override: (req) =>
        req.agent === 'queryExpander' && toolResults(req).length === 0 ? fakeReply.toolCall('evaluate_filters', { skillsAny: [NEAR_MISS] }) : undefined,
    }),
  );
  api = await startTestRuntime({ ...LLM, LLM_BASE_URL: server.url, PROCESS_ROLE: 'api' });
  const pool = [
    ...backendPool(),
    candidate('zorblax', { name: 'Ada Quist', skills: ['Go', SKILL], resume: 'Go engineer; wrote the zorblaxian operator for Kubernetes.' }),
    candidate('zorblax-2', { name: 'Bo Quist', skills: ['Rust', SKILL], resume: 'Rust engineer; maintains the zorblaxian operator.' }),
    candidate('openshift', { name: 'Bea Lindqvist', skills: ['Go', RELATED], resume: 'Go engineer running clusters for a bank.' }),
    candidate('flimwick', { name: 'Cy Moreau', skills: ['Go'], resume: `Go engineer known for ${WORD} in distributed systems.` }),
  ];
  const res = await api.app!.inject({ method: 'POST', url: '/v1/candidates', headers: api.auth(), payload: { candidates: pool } });
  assert.equal(res.statusCode, 200, res.body);
  orgId = (await api.db.query<{ id: string }>("SELECT id FROM organisations WHERE name = 'default'")).rows[0]!.id;
  worker = await startTestRuntime(
    { ...LLM, LLM_BASE_URL: server.url, PROCESS_ROLE: 'all', DATABASE_URL: connectionUrl(api.db), DB_POOL_MAX: '4', CACHE_TTL_MS: String(CACHE_TTL_MS) },
    { now: clock.now },
  );
});
after(async () => {
  await worker?.close();
  await api?.close();
  await server?.close();
});

/** Erased through process A's API; process B is not told. */
async function eraseThroughApi(externalId: string): Promise<void> {
  const id = (await api.db.query<{ id: string }>('SELECT id FROM candidates WHERE external_id = $1', [externalId])).rows[0]!.id;
  assert.equal((await api.app!.inject({ method: 'DELETE', url: `/v1/candidates/${id}`, headers: api.auth() })).statusCode, 204);
}

async function finished(runId: string): Promise<void> {
  const status = await waitFor(async () => {
    const r = await api.db.query<{ status: string }>('SELECT status FROM matching_runs WHERE id = $1', [runId]);
    const s = r.rows[0]?.status;
    return s === 'succeeded' || s === 'failed' || s === 'cancelled' ? s : null;
  }, 30_000, 'the run to finish in process B');
  assert.equal(status, 'succeeded');
}

/** An llm run started through A and executed by B: what B's expander offered the model from the vocabulary. */
async function llmRun(): Promise<{ runId: string; suggested: string }> {
  const from = server.chatRequests().length;
  const res = await api.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: api.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 2 } });
  assert.equal(res.statusCode, 202, res.body);
  await finished(res.json().id);
  return { runId: res.json().id, suggested: server.chatRequests().slice(from).filter((r) => r.agent === 'queryExpander').flatMap(toolResults).join('\n') };
}

/** A heuristic run executed by B: the queries its expander searched with (the second round's widens the first's). */
async function heuristicRun(): Promise<string[]> {
  const params = RunParamsSchema.parse({ maxIterations: 2, scoreLimit: 2, targetStrong: 50 });
  const created = await api.db.withTransaction((tx) =>
    api.services.runStore.create(tx, { orgId, role: GO_ROLE, engine: 'heuristic', params, idempotencyKey: null, requestHash: null, maxInFlight: 100 }),
  );
  assert.equal(created.outcome, 'created');
  const runId = (created as { run: { id: string } }).run.id;
  await finished(runId);
  const trace = await api.db.query<{ data: { queries: string[] } }>("SELECT data FROM run_trace WHERE run_id = $1 AND kind = 'queries.expanded'", [runId]);
  return trace.rows.flatMap((r) => r.data.queries);
}

test("after an erasure through another process, the worker's query expander no longer offers the model the candidate's skills", async () => {
  const first = (await llmRun()).suggested;
  assert.ok(first.includes(SKILL), `process B suggests the pool's closest skill: ${first}`);
  await eraseThroughApi('zorblax');
  await eraseThroughApi('zorblax-2');
  const second = (await llmRun()).suggested;
  assert.ok(second.length > 0, 'the tool was asked again');
  assert.equal(second.includes(SKILL), false, `not from the vocabulary process B read before the erasure: ${second}`);
});

test("after an erasure through another process, the worker's heuristic expander no longer searches for the candidate's skills", async () => {
  const first = await heuristicRun();
  assert.ok(first.some((q) => q.includes(RELATED)), `a related skill someone in the pool has widens the search: ${first.join(' | ')}`);
  await eraseThroughApi('openshift');
  const second = await heuristicRun();
  assert.ok(second.length > 0);
  assert.equal(second.some((q) => q.includes(RELATED)), false, `nobody left has it: ${second.join(' | ')}`);
});

test("after an erasure through another process, another pool's term statistics no longer keep the candidate's words", async () => {
  // Process B's search, on B's pool.
  const rarity = createTermRarity(worker.db);
  const [before] = await rarity.tsqueries(orgId, [`${WORD} engineer`]);
  assert.match(before ?? '', STEM, 'the rare word is searched for while its resume exists');
  const poolBefore = await rarity.poolSize(orgId);
  await eraseThroughApi('flimwick');
  await rarity.tsqueries(orgId, [`${WORD} engineer`]);
  // Read again at once: the pool is one smaller. (The word itself is still searched, as one no resume has, as the
  // rarest, which may be a new upload's: it finds nobody now.)
  assert.equal(await rarity.poolSize(orgId), poolBefore - 1, 'the statistics were read again after the erasure');
  const hits = await worker.db.query(`SELECT 1 FROM candidates WHERE org_id = $1 AND search_tsv @@ to_tsquery('simple', 'flimwickeri')`, [orgId]);
  assert.equal(hits.rowCount, 0, 'and no resume is found by the erased word');
});

test("a finished run another process answered from memory: that answer for CACHE_TTL_MS after an erasure here, then a new ETag without the name", async (t) => {
  const { runId } = await llmRun();
  t.after(() => clock.set(null));
  const start = Date.now() + 10_000;
  clock.set(start);
  const poll = (headers: Record<string, string> = {}) => worker.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: { ...worker.auth(), ...headers } });
  const cached = await poll();
  assert.equal(cached.statusCode, 200);
  const etag = cached.headers.etag as string;
  const top = cached.json().shortlist[0];
  assert.ok(top.name, 'the shortlist names its candidates');

  await eraseThroughApi(top.externalId);
  clock.set(start + CACHE_TTL_MS - 1);
  assert.equal((await poll()).headers.etag, etag, 'within the cache time: the answer B remembers (the documented bound)');
  clock.set(start + CACHE_TTL_MS);
  const moved = await poll({ 'if-none-match': etag });
  assert.equal(moved.statusCode, 200, 'the old ETag no longer matches');
  assert.notEqual(moved.headers.etag, etag);
  const entry = moved.json().shortlist.find((e: { candidateId: string }) => e.candidateId === top.candidateId);
  assert.deepEqual([entry.name, entry.externalId], [null, null]);
  assert.equal(moved.body.includes(top.name), false, 'the name is nowhere in the answer');
});

test('a process whose wall clock steps back an hour still keeps a finished run from memory for CACHE_TTL_MS only', async (t) => {
  // Process C reads the host's wall clock, which this test steps (no clock is set for it, as in production).
  const realNow = Date.now;
  let offset = 0;
  Date.now = () => realNow() - offset;
  t.after(() => (Date.now = realNow));
  const replica = await startTestRuntime({ PROCESS_ROLE: 'api', DATABASE_URL: connectionUrl(api.db), DB_POOL_MAX: '2', CACHE_TTL_MS: String(CACHE_TTL_MS) });
  t.after(() => replica.close());
  const { runId } = await llmRun();
  const poll = () => replica.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: replica.auth() });
  const top = (await poll()).json().shortlist[0];
  assert.ok(top.name);
  offset = 3_600_000; // NTP, or a VM restored from a snapshot
  // Erased through A: C is not told, and remembers the answer with the name.
  await eraseThroughApi(top.externalId);
  await new Promise((r) => setTimeout(r, 2 * CACHE_TTL_MS));
  const entry = (await poll()).json().shortlist.find((e: { candidateId: string }) => e.candidateId === top.candidateId);
  assert.deepEqual([entry.name, entry.externalId], [null, null], 'read again once CACHE_TTL_MS had passed, whatever the wall clock read');
});

test('a key revoked through another process stops working there within CACHE_TTL_MS', async (t) => {
  const { key, prefix } = await api.services.apiKeys.create('revoked-elsewhere');
  t.after(() => clock.set(null));
  const start = Date.now() + 10_000;
  clock.set(start);
  const list = () => worker.app!.inject({ url: '/v1/candidates?limit=1', headers: worker.auth(key) });
  assert.equal((await list()).statusCode, 200);
  assert.equal(await api.services.apiKeys.revoke(prefix), true);
  clock.set(start + CACHE_TTL_MS - 1);
  assert.equal((await list()).statusCode, 200, 'within the cache time: still trusted (the documented bound)');
  clock.set(start + CACHE_TTL_MS);
  assert.equal((await list()).statusCode, 401);
});
