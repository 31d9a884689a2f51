// Object-level authorisation (OWASP API1): another organisation's rows answer exactly as missing ones, on every route.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createCandidateStore } from '../../src/candidates/candidate-store.js';
import { createSearch } from '../../src/retrieval/search.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { readTrace } from '../support/trace.js';
import { startTestWorker } from '../support/worker.js';

let rt: TestRuntime;
let rivalKey: string;
let rivalOrg: string;
let ownOrg: string;
const own = { candidates: [] as string[], roleId: '', runId: '', queuedRunId: '' };
const rival = { candidates: [] as string[], roleId: '', runId: '' };

// The rival's pool says exactly what the query says: closer to it than anything of ours.
const QUERY = 'Senior Go engineer Kubernetes gRPC PostgreSQL distributed systems';
const NEAR_DUPLICATES = 80;

type Method = 'GET' | 'POST' | 'DELETE';
const call = (key: string, method: Method, url: string, payload?: object) =>
  rt.app!.inject({ method, url, headers: rt.auth(key), ...(payload ? { payload } : {}) });

async function startRun(key: string, body: object) {
  const res = await call(key, 'POST', '/v1/matching-runs', body);
  assert.equal(res.statusCode, 202, res.body);
  return res.json().id as string;
}

async function finished(key: string, id: string) {
  return waitFor(async () => {
    const run = (await call(key, 'GET', `/v1/matching-runs/${id}`)).json();
    return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, 30_000, `run ${id}`);
}

before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api', MATCH_ENGINE: 'heuristic' });
  const created = await rt.services.apiKeys.create('rival');
  rivalKey = created.key;
  rivalOrg = created.orgId;
  ownOrg = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;

  const mine = await call(rt.apiKey, 'POST', '/v1/candidates', { candidates: backendPool('own-') });
  own.candidates = mine.json().items.map((i: { id: string }) => i.id);
  const dupes = Array.from({ length: NEAR_DUPLICATES }, (_, i) =>
    candidate(`rival-${i}`, { headline: 'Senior Go engineer', skills: ['Go', 'Kubernetes', 'gRPC', 'PostgreSQL'], resume: `${QUERY} ${i}` }),
  );
  const theirs = await call(rivalKey, 'POST', '/v1/candidates', { candidates: dupes });
  rival.candidates = theirs.json().items.map((i: { id: string }) => i.id);

  own.roleId = (await call(rt.apiKey, 'POST', '/v1/roles', GO_ROLE)).json().id;
  rival.roleId = (await call(rivalKey, 'POST', '/v1/roles', GO_ROLE)).json().id;
  const worker = startTestWorker(rt);
  try {
    own.runId = await startRun(rt.apiKey, { roleId: own.roleId, maxIterations: 2, scoreLimit: 6 });
    rival.runId = await startRun(rivalKey, { roleId: rival.roleId, maxIterations: 1, scoreLimit: 3 });
    assert.equal((await finished(rt.apiKey, own.runId)).status, 'succeeded');
    assert.equal((await finished(rivalKey, rival.runId)).status, 'succeeded');
  } finally {
    await worker.stop(2000);
  }
  // No worker from here on: this run stays queued, so a foreign cancel would really change it.
  own.queuedRunId = await startRun(rt.apiKey, { roleId: own.roleId });
});
after(() => rt.close());

/** A foreign id and a missing id must be indistinguishable: same status, same content type, same body. */
async function assertLikeMissing(method: Method, path: string, foreignId: string, payload?: object) {
  const foreign = await call(rivalKey, method, path.replace('{id}', foreignId), payload);
  const missing = await call(rivalKey, method, path.replace('{id}', randomUUID()), payload);
  assert.equal(foreign.statusCode, 404, `${method} ${path} with a foreign id: ${foreign.body}`);
  assert.equal(missing.statusCode, 404, `${method} ${path} with a missing id: ${missing.body}`);
  assert.equal(foreign.headers['content-type'], missing.headers['content-type']);
  assert.match(String(foreign.headers['content-type']), /application\/problem\+json/);
  assert.deepEqual(foreign.json(), missing.json(), `${method} ${path}: a foreign id must not be told apart from a missing one`);
}

test("another organisation's candidate, role, run, events, trace and cancel answer 404, exactly like a missing id", async () => {
  await assertLikeMissing('GET', '/v1/candidates/{id}', own.candidates[0]!);
  await assertLikeMissing('DELETE', '/v1/candidates/{id}', own.candidates[0]!);
  await assertLikeMissing('GET', '/v1/roles/{id}', own.roleId);
  await assertLikeMissing('POST', '/v1/roles/{id}/matching-runs', own.roleId, {});
  await assertLikeMissing('GET', '/v1/matching-runs/{id}', own.runId);
  await assertLikeMissing('GET', '/v1/matching-runs/{id}/events', own.runId);
  await assertLikeMissing('GET', '/v1/matching-runs/{id}/trace', own.runId);
  await assertLikeMissing('POST', '/v1/matching-runs/{id}/cancel', own.queuedRunId);
  // A finished run: the owner would get 409, a stranger must still get the missing-id answer.
  await assertLikeMissing('POST', '/v1/matching-runs/{id}/cancel', own.runId);

  const byRoleId = await call(rivalKey, 'POST', '/v1/matching-runs', { roleId: own.roleId });
  assert.equal(byRoleId.statusCode, 404, 'a run cannot be started on a foreign role by id');
  // None of it changed anything of ours.
  assert.equal((await call(rt.apiKey, 'GET', `/v1/candidates/${own.candidates[0]}`)).statusCode, 200);
  assert.equal((await call(rt.apiKey, 'GET', `/v1/matching-runs/${own.queuedRunId}`)).json().status, 'queued');
  const runsOnOurRole = await rt.db.query('SELECT org_id FROM matching_runs WHERE role_id = $1', [own.roleId]);
  assert.ok(runsOnOurRole.rows.every((r) => r.org_id === ownOrg), 'no foreign run was started on our role');
});

test('lists and usage never show another organisation’s rows', async () => {
  await rt.db.query(
    `INSERT INTO model_calls (org_id, agent, model, prompt_tokens, completion_tokens, cost_usd, outcome) VALUES ($1, 'scorer', 'fake-chat', 1000, 100, 0.5, 'ok')`,
    [ownOrg],
  );
  const ids = async (key: string, url: string) => {
    const res = await call(key, 'GET', url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().items.map((i: { id: string }) => i.id) as string[];
  };
  const theirs = [...rival.candidates, rival.roleId, rival.runId];
  const ours = [...own.candidates, own.roleId, own.runId, own.queuedRunId];
  for (const url of ['/v1/candidates?limit=100', '/v1/roles?limit=100', '/v1/matching-runs?limit=100']) {
    const seenByRival = await ids(rivalKey, url);
    const seenByUs = await ids(rt.apiKey, url);
    assert.ok(seenByRival.length > 0 && seenByUs.length > 0, url);
    assert.deepEqual(seenByRival.filter((id) => ours.includes(id)), [], `${url}: the rival sees none of ours`);
    assert.deepEqual(seenByUs.filter((id) => theirs.includes(id)), [], `${url}: we see none of theirs`);
  }
  assert.deepEqual((await call(rivalKey, 'GET', '/v1/usage?groupBy=agent')).json().total.costUsd, 0);
  assert.equal((await call(rt.apiKey, 'GET', '/v1/usage?groupBy=agent')).json().total.costUsd, 0.5);
});

test('an Idempotency-Key is scoped to its organisation: the same key elsewhere starts that organisation’s own run', async () => {
  const key = { 'idempotency-key': 'shared-retry-key-1' };
  const ours = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: { ...rt.auth(), ...key }, payload: { roleId: own.roleId } });
  const theirs = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: { ...rt.auth(rivalKey), ...key }, payload: { roleId: rival.roleId, maxIterations: 1 } });
  assert.equal(ours.statusCode, 202);
  assert.equal(theirs.statusCode, 202, 'not 422: another organisation’s use of the key must not leak');
  assert.notEqual(theirs.json().id, ours.json().id);
  assert.equal(theirs.json().roleId, rival.roleId);
});

/** Every method and path the router really serves, read from its own tree (HEAD and OPTIONS left out). */
function servedRoutes(): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of rt.app!.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]*)\)/u.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path}`);
  }
  return routes;
}

test('every route of the OpenAPI document: /v1 answers 401 without a key, and 404 for a foreign {id}', async () => {
  const doc = (await rt.app!.inject({ url: '/docs/json' })).json() as { paths: Record<string, Record<string, unknown>> };
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
  const served = servedRoutes().filter((r) => r.includes(' /v1/'));
  assert.ok(served.length >= 15, `the router tree was read: ${served.join(', ')}`);
  assert.deepEqual(served.filter((r) => !documented.has(r)), [], 'no /v1 route hides from the document (and so from this sweep)');
  // The id of one of our resources for each resource a path can name; a new resource must be added here.
  const foreignIdFor = (path: string) => {
    if (path.startsWith('/v1/candidates/')) return own.candidates[1]!;
    if (path.startsWith('/v1/roles/')) return own.roleId;
    if (path.startsWith('/v1/matching-runs/')) return own.runId;
    return assert.fail(`${path}: no foreign id known for this resource; add one to this test`);
  };
  let routes = 0;
  let idRoutes = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops).map((m) => m.toUpperCase())) {
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method) || !path.startsWith('/v1/')) continue;
      routes++;
      const anyUrl = path.replace('{id}', randomUUID());
      const anonymous = await rt.app!.inject({ method: method as Method, url: anyUrl, ...(method === 'POST' ? { payload: {} } : {}) });
      assert.equal(anonymous.statusCode, 401, `${method} ${path} without a key`);
      assert.equal(anonymous.json().status, 401);
      if (!path.includes('{id}')) continue;
      idRoutes++;
      assert.deepEqual(path.match(/\{[^}]+\}/g), ['{id}'], `${path}: a new path parameter needs a foreign value in this test`);
      await assertLikeMissing(method as Method, path, foreignIdFor(path), method === 'POST' ? {} : undefined);
      if (method === 'GET') {
        const mine = await call(rt.apiKey, 'GET', path.replace('{id}', foreignIdFor(path)));
        assert.equal(mine.statusCode, 200, `${path}: the id really exists for its owner`);
      }
    }
  }
  assert.ok(routes >= 15 && idRoutes >= 7, `the sweep covered ${routes} routes, ${idRoutes} with an id`);
});

test('retrieval never returns another organisation’s candidates, even closer near-duplicates, and still fills the limit', async () => {
  const search = createSearch({ db: rt.db, embedder: rt.services.embedder });
  const limit = 5;
  const theirs = await search.search({ orgId: rivalOrg, queries: [QUERY], filters: {}, excludeIds: [], limit });
  const ours = await search.search({ orgId: ownOrg, queries: [QUERY], filters: {}, excludeIds: [], limit });
  // The premise below is only checked if the rival's search found something: every() of nothing is true.
  assert.equal(theirs.length, limit);
  assert.ok(theirs.every((h) => rival.candidates.includes(h.id)));
  const bestOfOurs = Math.min(...ours.map((h) => h.distance ?? Infinity));
  assert.ok(theirs.every((h) => (h.distance ?? Infinity) < bestOfOurs), 'the rival’s near-duplicates really are closer to the query');
  assert.equal(ours.length, limit, 'the filter by organisation does not starve the search');
  assert.ok(ours.every((h) => own.candidates.includes(h.id)), 'only our candidates');
  assert.ok(ours.every((h) => h.vectorRank !== null), 'each came through the vector index, not only full text');
});

test("a trail's seq counts its own run's rows: nothing of another organisation's activity shows through its numbering", async () => {
  for (const [key, id] of [[rt.apiKey, own.runId], [rivalKey, rival.runId]] as const) {
    const seqs = (await readTrace(rt.app!, id, rt.auth(key))).map((i) => i.seq);
    assert.ok(seqs.length > 5);
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'no gap where another run wrote');
  }
});

test("the pool's skill vocabulary and filter counts the query expander reads hold none of another organisation's candidates", async () => {
  const theirs = Array.from({ length: 3 }, (_, i) => candidate(`rival-zorb-${i}`, { skills: ['Zorblaxian Compiler'], resume: `Zorblaxian compiler engineer ${i}` }));
  assert.equal((await call(rivalKey, 'POST', '/v1/candidates', { candidates: theirs })).statusCode, 200);
  const store = createCandidateStore(rt.db);
  assert.ok((await store.skillVocabulary(rivalOrg)).some((v) => /zorblaxian/i.test(v.skill)), 'the rival has it');
  assert.ok(!(await store.skillVocabulary(ownOrg)).some((v) => /zorblaxian/i.test(v.skill)), 'our vocabulary does not');
  assert.equal(await store.countMatching(ownOrg, { skillsAny: ['Zorblaxian Compiler'] }), 0);
  assert.equal(await store.countMatching(rivalOrg, { skillsAny: ['Zorblaxian Compiler'] }), 3);
});

test('a matching run never sees another organisation’s candidates: shortlist, events and trace', async () => {
  const run = (await call(rt.apiKey, 'GET', `/v1/matching-runs/${own.runId}`)).json();
  assert.ok(run.shortlist.length > 0);
  assert.ok(run.shortlist.every((e: { candidateId: string }) => own.candidates.includes(e.candidateId)));
  const events = (await call(rt.apiKey, 'GET', `/v1/matching-runs/${own.runId}/events?limit=100`)).body;
  const trace = JSON.stringify(await readTrace(rt.app!, own.runId, rt.auth(rt.apiKey)));
  assert.match(events, /candidates\.retrieved/);
  for (const id of rival.candidates) {
    assert.equal(events.includes(id) || trace.includes(id), false, `rival candidate ${id} leaked into our run`);
  }
});
