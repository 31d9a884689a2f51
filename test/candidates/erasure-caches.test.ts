// An erasure and what a process remembers of its organisation's pool: the skill vocabulary the query expander shows a
// model and the term statistics of full-text search held the erased candidate's skills and words until reloaded; they
// are read again at their next use (across processes: erasure-across-processes.test.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { memoizeRefreshing } from '../../src/cache/recent-cache.js';
import { createTermRarity } from '../../src/retrieval/term-rarity.js';
import { fakeReply, startFakeLlmServer, type FakeLlmServer, type RecordedRequest } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';

// A skill only the erased candidates have (two of them: a skill one candidate holds is never offered), and the near
// miss the model asks about.
const SKILL = 'Zorblax Operator';
const NEAR_MISS = 'Zorblax Operatr';

let server: FakeLlmServer;
let rt: TestRuntime;
let orgId: string;

const toolResults = (r: RecordedRequest) => (r.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

before(async () => {
  server = await startFakeLlmServer();
  // The expander asks the tool about the near miss first: an unknown skill is answered with the closest pool skills.
  server.setHandler(
    scriptedModel({
      override: (req) =>
        req.agent === 'queryExpander' && toolResults(req).length === 0 ? fakeReply.toolCall('evaluate_filters', { skillsAny: [NEAR_MISS] }) : undefined,
    }),
  );
  rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: server.url, LLM_API_KEY: 'sk-test-erasure', LLM_MODEL: 'fake-chat' });
  const pool = [
    ...backendPool(),
    candidate('zorblax', { name: 'Ada Quist', skills: ['Go', SKILL], resume: 'Go engineer; wrote the zorblaxian operator for Kubernetes.' }),
    candidate('zorblax-2', { name: 'Bo Quist', skills: ['Rust', SKILL], resume: 'Rust engineer; maintains the zorblaxian operator.' }),
  ];
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool } });
  assert.equal(res.statusCode, 200, res.body);
  orgId = (await rt.db.query<{ id: string }>("SELECT id FROM organisations WHERE name = 'default'")).rows[0]!.id;
});
after(async () => {
  await rt?.close();
  await server?.close();
});

async function runOnce(): Promise<{ id: string; status: string; suggested: string }> {
  const from = server.chatRequests().length;
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 2 } });
  assert.equal(res.statusCode, 202, res.body);
  const run = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 30_000, 'the run');
  const expander = server.chatRequests().slice(from).filter((r) => r.agent === 'queryExpander');
  return { ...run, suggested: expander.flatMap(toolResults).join('\n') };
}

test("after an erasure this process's query expander no longer offers the model the candidate's skills", async () => {
  const first = await runOnce();
  assert.equal(first.status, 'succeeded');
  assert.ok(first.suggested.includes(SKILL), `the pool's closest skill is suggested: ${first.suggested}`);

  for (const { id } of (await rt.db.query<{ id: string }>("SELECT id FROM candidates WHERE external_id LIKE 'zorblax%'")).rows) {
    assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${id}`, headers: rt.auth() })).statusCode, 204);
  }

  const second = await runOnce();
  assert.equal(second.status, 'succeeded');
  assert.ok(second.suggested.length > 0, 'the tool was asked again');
  assert.equal(second.suggested.includes(SKILL), false, 'not from a vocabulary read before the erasure');
  const trail = await rt.db.query<{ data: unknown }>('SELECT data FROM run_trace WHERE run_id = $1', [second.id]);
  assert.equal(JSON.stringify(trail.rows).includes(SKILL), false, "nor in the run's audit trail");
});

test('forget drops a remembered value at once; a reload that was under way does not bring it back', async () => {
  let loads = 0;
  let release!: () => void;
  let gate = Promise.resolve();
  const get = memoizeRefreshing(0, 60_000, async (key: string) => {
    const n = ++loads;
    await gate;
    return `${key}:${n}`;
  });
  assert.equal(await get('x'), 'x:1');
  gate = new Promise((r) => (release = r));
  // Older than its ttl: answered from memory while a reload runs.
  assert.equal(await get('x'), 'x:1');
  get.forget('x');
  const after = get('x');
  release();
  assert.equal(await after, 'x:3', 'a new load, waited for');
  await new Promise((r) => setImmediate(r));
  assert.equal(loads, 3);
});

test("term statistics read before an erasure are read again by the next search, told or not", async () => {
  const rarity = createTermRarity(rt.db);
  const before = await rarity.poolSize(orgId);
  const gone = (await rt.db.query<{ id: string }>("SELECT id FROM candidates WHERE org_id = $1 AND external_id = 'c6'", [orgId])).rows[0]!.id;
  // The store, not the route: nothing in this process is told, as nothing in another process is.
  assert.equal(await rt.services.candidateStore.erase(orgId, gone), true);
  assert.equal(await rarity.poolSize(orgId), before, 'a figure no erased text reaches: remembered');
  await rarity.tsqueries(orgId, ['swift engineer']);
  assert.equal(await rarity.poolSize(orgId), before - 1, 'the search read the statistics again');
});
