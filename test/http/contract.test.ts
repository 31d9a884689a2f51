// The HTTP contract item by item, as a client reads it: field names and types, status codes, headers, paging.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startApiWithCandidates, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Answer = Awaited<ReturnType<NonNullable<TestRuntime['app']>['inject']>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// ISO-8601 in UTC, as toISOString() writes it.
const UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SUBSCORES = { hardSkills: 30, domain: 20, seniority: 15, impact: 15, logistics: 10, trajectory: 10 };
// The contract's run fields, and `params` (the run's parameters with defaults filled in, docs/api.md).
const RUN_FIELDS = ['createdAt', 'engine', 'error', 'finishedAt', 'id', 'params', 'progress', 'roleId', 'shortlist', 'startedAt', 'status', 'stop', 'usage'];
// 26 candidates: more than a default page of 20.
const POOL = [...backendPool(), ...Array.from({ length: 20 }, (_, i) => candidate(`extra-${i}`))];

let rt: TestRuntime;
let finished: Json;
before(async () => {
  rt = await startApiWithCandidates(POOL);
  // One finished run with more than 20 events: every candidate scored in one round, the round cap reached.
  const worker = startTestWorker(rt);
  try {
    const res = await call('POST', '/v1/matching-runs', { role: GO_ROLE, maxIterations: 1, scoreLimit: 30, targetStrong: 50 });
    assert.equal(res.statusCode, 202, res.body);
    finished = await waitFor(async () => {
      const run = (await call('GET', `/v1/matching-runs/${res.json().id}`)).json();
      return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : null;
    }, 30_000, 'the run to finish');
  } finally {
    await worker.stop(2000);
  }
});
after(() => rt.close());

function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) {
  return rt.app!.inject({ method, url, headers: { ...rt.auth(), ...headers }, ...(payload ? { payload } : {}) });
}

const keys = (o: object) => Object.keys(o).sort();

function assertProblem(res: Answer, status: number): Json {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.deepEqual(keys(body).filter((k) => k !== 'errors'), ['detail', 'status', 'title', 'type']);
  assert.equal(body.status, status);
  for (const k of ['type', 'title', 'detail']) assert.equal(typeof body[k], 'string', k);
  for (const e of body.errors ?? []) assert.deepEqual([keys(e), typeof e.path, typeof e.message], [['message', 'path'], 'string', 'string']);
  return body;
}

function assertRun(run: Json): void {
  assert.deepEqual(keys(run), RUN_FIELDS);
  assert.match(run.id, UUID);
  assert.match(run.roleId, UUID);
  assert.ok(['queued', 'running', 'succeeded', 'failed', 'cancelled'].includes(run.status), run.status);
  assert.ok(['llm', 'heuristic'].includes(run.engine));
  assert.match(run.createdAt, UTC);
  for (const at of [run.startedAt, run.finishedAt]) assert.ok(at === null || UTC.test(at), String(at));
  assert.deepEqual(keys(run.progress), ['candidatesScored', 'candidatesSeen', 'iteration', 'maxIterations', 'strongCandidates']);
  assert.ok(Object.values(run.progress).every(Number.isInteger));
  assert.deepEqual(keys(run.usage), ['completionTokens', 'costUsd', 'llmCalls', 'promptTokens', 'totalTokens']);
  assert.equal(run.usage.totalTokens, run.usage.promptTokens + run.usage.completionTokens);
  if (run.stop !== null) {
    assert.deepEqual(keys(run.stop), ['iteration', 'reason', 'reasoning']);
    assert.ok(['target_reached', 'reflector', 'max_iterations', 'budget', 'exhausted', 'cancelled', 'error'].includes(run.stop.reason));
  }
  assert.ok(run.error === null || (typeof run.error.title === 'string' && typeof run.error.detail === 'string'));
  assert.ok(Array.isArray(run.shortlist));
}

test('POST /v1/candidates answers 200 { items: [{ externalId, id, status }] }, in the order sent', async () => {
  const res = await call('POST', '/v1/candidates', { candidates: [candidate('order-b'), POOL[0]!, candidate('order-a')] });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(keys(res.json()), ['items']);
  const items = res.json().items as Json[];
  assert.deepEqual(items.map((i) => [i.externalId, i.status]), [['order-b', 'created'], [POOL[0]!.externalId, 'unchanged'], ['order-a', 'created']]);
  for (const i of items) {
    assert.deepEqual(keys(i), ['externalId', 'id', 'status']);
    assert.match(i.id, UUID);
  }
  for (const bad of [{ candidates: [] }, { candidates: [{ externalId: 'no-resume' }] }]) assertProblem(await call('POST', '/v1/candidates', bad), 400);
});

test('an upsert replaces the candidate: a field left out (or null) is cleared; a required one null is refused with its path (docs/api.md)', async () => {
  const { id } = (await call('POST', '/v1/candidates', { candidates: [candidate('replaced', { phone: '+44 20 7946 0000' })] })).json().items[0];
  const again = await call('POST', '/v1/candidates', { candidates: [{ externalId: 'replaced', resume: 'Go engineer.' }] });
  assert.deepEqual(again.json().items, [{ externalId: 'replaced', id, status: 'updated' }]);
  const got = (await call('GET', `/v1/candidates/${id}`)).json();
  assert.deepEqual([got.name, got.email, got.phone, got.resume], [null, null, null, 'Go engineer.']);
  await call('POST', '/v1/candidates', { candidates: [candidate('replaced', { phone: '+44 20 7946 0000' })] });
  const nulls = await call('POST', '/v1/candidates', { candidates: [{ externalId: 'replaced', resume: 'Go engineer.', name: null, email: null, phone: null }] });
  assert.deepEqual(nulls.json().items, [{ externalId: 'replaced', id, status: 'updated' }]);
  const cleared = (await call('GET', `/v1/candidates/${id}`)).json();
  assert.deepEqual([cleared.name, cleared.email, cleared.phone, cleared.resume], [null, null, null, 'Go engineer.']);
  const refused = assertProblem(await call('POST', '/v1/candidates', { candidates: [{ externalId: 'replaced', resume: null }] }), 400);
  assert.deepEqual(refused.errors.map((e: Json) => e.path), ['body.candidates.0.resume']);
});

test('POST /v1/roles: 201, Location, and the role with its fields; GET answers the same role', async () => {
  const res = await call('POST', '/v1/roles', GO_ROLE);
  assert.equal(res.statusCode, 201);
  const role = res.json();
  assert.equal(res.headers.location, `/v1/roles/${role.id}`);
  assert.match(role.id, UUID);
  assert.match(role.createdAt, UTC);
  for (const [field, value] of Object.entries(GO_ROLE)) assert.deepEqual(role[field], value, field);
  assert.deepEqual((await call('GET', `/v1/roles/${role.id}`)).json(), role);
  const bare = (await call('POST', '/v1/roles', { title: 'Bare', description: 'Only what is required' })).json();
  assert.deepEqual([bare.mustHaveSkills, bare.niceToHaveSkills, bare.location, bare.remote, bare.seniority, bare.minYearsExperience], [[], [], null, null, null, null]);
  assertProblem(await call('POST', '/v1/roles', { title: 'No description' }), 400);
});

test('a started run: 202 with the run, Location, ETag and Retry-After; its ETag answers the poll 304; the inline role is stored', async () => {
  const res = await call('POST', '/v1/matching-runs', { role: { ...GO_ROLE, title: 'Queued role' } });
  assert.equal(res.statusCode, 202);
  const run = res.json();
  assertRun(run);
  assert.deepEqual([run.status, run.startedAt, run.finishedAt, run.stop, run.error, run.shortlist], ['queued', null, null, null, null, []]);
  assert.equal(res.headers.location, `/v1/matching-runs/${run.id}`);
  assert.ok(Number(res.headers['retry-after']) >= 1, 'an unfinished run carries a polling hint');
  const etag = res.headers.etag as string;
  const poll = await call('GET', `/v1/matching-runs/${run.id}`, undefined, { 'if-none-match': etag });
  assert.equal(poll.statusCode, 304, 'the 202 names the version a poll then sees');
  assert.equal(poll.headers.etag, etag);
  assert.ok(Number(poll.headers['retry-after']) >= 1, 'a 304 of an unfinished run carries the hint too');
  // However the id is spelt (a UUID's hex digits may be upper case), the run has one tag per version.
  assert.equal((await call('GET', `/v1/matching-runs/${run.id.toUpperCase()}`)).headers.etag, etag);
  assert.equal((await call('GET', `/v1/roles/${run.roleId}`)).json().title, 'Queued role');

  const forRole = await call('POST', `/v1/roles/${run.roleId}/matching-runs`, { maxIterations: 2 });
  assert.equal(forRole.statusCode, 202);
  assertRun(forRole.json());
  assert.equal(forRole.headers.location, `/v1/matching-runs/${forRole.json().id}`);
  assert.ok(forRole.headers.etag && forRole.headers['retry-after']);
  for (const id of [run.id, forRole.json().id]) assert.equal((await call('POST', `/v1/matching-runs/${id}/cancel`)).statusCode, 202);
});

test('a finished run: the contract’s shortlist entries, ranked, no Retry-After; the round cap stops it as max_iterations', async () => {
  assertRun(finished);
  assert.equal(finished.status, 'succeeded');
  assert.match(finished.startedAt, UTC);
  assert.match(finished.finishedAt, UTC);
  assert.deepEqual(finished.stop.reason, 'max_iterations', `the last allowed round ended it: ${JSON.stringify(finished.stop)}`);
  assert.equal(finished.stop.iteration, 1);
  assert.equal(typeof finished.stop.reasoning, 'string');
  assert.equal(finished.shortlist.length, finished.progress.candidatesScored);
  for (const [i, e] of (finished.shortlist as Json[]).entries()) {
    assert.deepEqual(keys(e), ['candidateId', 'evidence', 'externalId', 'iteration', 'name', 'rank', 'rationale', 'subscores', 'totalScore']);
    assert.equal(e.rank, i + 1);
    assert.match(e.candidateId, UUID);
    assert.deepEqual([typeof e.externalId, typeof e.name, typeof e.rationale, e.iteration], ['string', 'string', 'string', 1]);
    assert.deepEqual(keys(e.subscores), keys(SUBSCORES));
    for (const [name, max] of Object.entries(SUBSCORES)) assert.ok(Number.isInteger(e.subscores[name]) && e.subscores[name] >= 0 && e.subscores[name] <= max, name);
    assert.equal(e.totalScore, Object.values(e.subscores as Record<string, number>).reduce((a, b) => a + b, 0));
    for (const ev of e.evidence) assert.ok(e.subscores[ev.subscore] !== undefined && typeof ev.quote === 'string', JSON.stringify(ev));
    if (i > 0) assert.ok(finished.shortlist[i - 1].totalScore >= e.totalScore, 'ranked by totalScore');
  }
  const res = await call('GET', `/v1/matching-runs/${finished.id}`);
  assert.ok(res.headers.etag);
  assert.equal(res.headers['retry-after'], undefined);
  const cancel = assertProblem(await call('POST', `/v1/matching-runs/${finished.id}/cancel`), 409);
  assert.match(cancel.detail, /already finished \(succeeded\)/);
});

test('events: { items: [{ seq, at, type, data }], nextCursor }, oldest first, 20 a page by default, after=<seq> goes on from there', async () => {
  const url = `/v1/matching-runs/${finished.id}/events`;
  const first = (await call('GET', url)).json();
  assert.deepEqual(keys(first), ['items', 'nextCursor']);
  assert.equal(first.items.length, 20, 'the default page');
  assert.deepEqual(first.items.map((e: Json) => e.seq), Array.from({ length: 20 }, (_, i) => i + 1));
  for (const e of first.items) {
    assert.deepEqual(keys(e), ['at', 'data', 'seq', 'type']);
    assert.match(e.at, UTC);
    assert.equal(typeof e.type, 'string');
    assert.equal(typeof e.data, 'object');
  }
  assert.equal(typeof first.nextCursor, 'string');
  const rest = (await call('GET', `${url}?after=20&limit=100`)).json();
  assert.equal(rest.items[0].seq, 21);
  assert.equal(rest.nextCursor, null, 'the last page');
  const types = [...first.items, ...rest.items].map((e: Json) => e.type);
  for (const t of ['run.started', 'iteration.started', 'queries.expanded', 'candidates.retrieved', 'candidates.reranked', 'candidate.scored', 'candidates.scored', 'run.stopped']) {
    assert.ok(types.includes(t), t);
  }
  assert.ok(!types.includes('iteration.reflected'), 'the last allowed round (here the only one) is not reflected on');
  assert.deepEqual((await call('GET', `${url}?after=5&limit=3`)).json().items.map((e: Json) => e.seq), [6, 7, 8]);
  assert.deepEqual((await call('GET', `${url}?after=${types.length}`)).json(), { items: [], nextCursor: null });
  for (const limit of [0, 101]) assertProblem(await call('GET', `${url}?limit=${limit}`), 400);
  // Decimal digits only: what Number() reads (hex, exponents, signs, spaces) is no count of ours.
  for (const bad of ['0x10', '1e1', '+5', '%205', '%20', '5.0']) {
    for (const name of ['limit', 'after']) {
      const res = await call('GET', `${url}?${name}=${bad}`);
      assertProblem(res, 400);
      assert.equal(res.json().errors[0].path, `querystring.${name}`, `${name}=${bad}`);
    }
  }
});

test('trace: { runId, items: [{ seq, at, kind, candidateId, data }], nextCursor }, a list like the others: 20 a page, the cursor goes on', async () => {
  const url = `/v1/matching-runs/${finished.id}/trace`;
  const first = (await call('GET', url)).json();
  assert.deepEqual(keys(first), ['items', 'nextCursor', 'runId']);
  assert.equal(first.runId, finished.id);
  // A UUID is answered in lower case, as the run's own answer writes it, however the path spells it.
  const upper = (await call('GET', `/v1/matching-runs/${finished.id.toUpperCase()}/trace?limit=1`)).json();
  assert.equal(upper.runId, finished.id);
  assert.equal(first.items.length, 20, 'the default page');
  for (const i of first.items) {
    assert.deepEqual(keys(i), ['at', 'candidateId', 'data', 'kind', 'seq']);
    assert.match(i.at, UTC);
    assert.ok(i.candidateId === null || UUID.test(i.candidateId));
  }
  assert.equal(typeof first.nextCursor, 'string');
  // Page by page with the cursor, three at a time: the same rows as one page of 100, oldest first, none twice.
  const all = (await call('GET', `${url}?limit=100`)).json();
  assert.ok(all.items.length > 20 && all.items.length < 100, String(all.items.length));
  assert.equal(all.nextCursor, null, 'one page holds the whole trail');
  const paged: Json[] = [];
  for (let cursor: string | null = null, pages = 0; pages === 0 || cursor; pages++) {
    const page: Json = (await call('GET', `${url}?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json();
    assert.ok(page.items.length <= 3);
    paged.push(...page.items);
    cursor = page.nextCursor;
  }
  assert.deepEqual(paged, all.items);
  // Each row's place in its run's trail: 1, 2, 3 ... (row ids, drawn by every organisation's runs from one sequence,
  // had gaps that told a run's owner how much the other organisations' runs wrote meanwhile).
  assert.deepEqual(all.items.map((i: Json) => i.seq), Array.from({ length: all.items.length }, (_, i) => i + 1));
  assert.equal(all.items[0].kind, 'run.started');
  for (const limit of [0, 101]) assertProblem(await call('GET', `${url}?limit=${limit}`), 400);
  for (const cursor of ['abc', '-1', '9223372036854775808', '1.5']) assertProblem(await call('GET', `${url}?cursor=${cursor}`), 400);
});

test('every id an answer carries is a UUID (API.md, Conventions): resources, runs, their entries, events and trail rows', async () => {
  /** The fields named id or ...Id (but a client's externalId) of an answer, its items and shortlist entries. */
  const idsOf = (o: Json, where: string): Array<[string, unknown]> => [
    ...Object.entries(o).filter(([k]) => k === 'id' || (k.endsWith('Id') && k !== 'externalId')).map(([k, v]): [string, unknown] => [`${where}.${k}`, v]),
    ...['items', 'shortlist'].flatMap((list) => (Array.isArray(o[list]) ? o[list].flatMap((item: Json, i: number) => idsOf(item, `${where}.${list}.${i}`)) : [])),
  ];
  const answers = ['/v1/candidates', '/v1/roles', '/v1/matching-runs', `/v1/matching-runs/${finished.id}`, `/v1/matching-runs/${finished.id}/events`, `/v1/matching-runs/${finished.id}/trace`];
  for (const url of answers) {
    const ids = idsOf((await call('GET', url)).json(), url);
    for (const [where, value] of ids) assert.ok(value === null || UUID.test(String(value)), `${where}: ${JSON.stringify(value)}`);
  }
  // The trail's order is a number, as the events' is: its seq, also its cursor.
  const trace = (await call('GET', `/v1/matching-runs/${finished.id}/trace?limit=2`)).json();
  assert.ok(trace.items.every((i: Json) => Number.isInteger(i.seq)));
  assert.equal(trace.nextCursor, String(trace.items[1].seq));
});

test('lists: 20 items a page by default, limit 1..100, nextCursor until the last page, which has null', async () => {
  for (let i = 0; i < 21; i++) assert.equal((await call('POST', '/v1/roles', { title: `Paged role ${i}`, description: 'x' })).statusCode, 201);
  for (const path of ['/v1/candidates', '/v1/roles']) {
    const page = (await call('GET', path)).json();
    assert.deepEqual(keys(page), ['items', 'nextCursor']);
    assert.equal(page.items.length, 20, path);
    assert.equal(typeof page.nextCursor, 'string', path);
    const all = (await call('GET', `${path}?limit=100`)).json();
    assert.ok(all.items.length > 20 && all.items.length < 100, path);
    assert.equal(all.nextCursor, null, `${path}: one page holds them all`);
    const created = all.items.map((i: Json) => i.createdAt);
    assert.deepEqual(created, [...created].sort().reverse(), `${path}: newest first`);
    for (const limit of [0, 101]) assertProblem(await call('GET', `${path}?limit=${limit}`), 400);
  }
});

test('a query parameter with an empty value is one left out: ?cursor= is the first page, ?from=&to= the default window', async () => {
  for (const path of ['/v1/candidates', '/v1/roles', '/v1/matching-runs']) {
    const blank = await call('GET', `${path}?limit=&cursor=`);
    assert.equal(blank.statusCode, 200, `${path}: ${blank.body}`);
    assert.deepEqual(blank.json(), (await call('GET', path)).json(), path);
  }
  assert.deepEqual((await call('GET', '/v1/matching-runs?status=&limit=100')).json(), (await call('GET', '/v1/matching-runs?limit=100')).json());
  const events = await call('GET', `/v1/matching-runs/${finished.id}/events?after=&limit=3`);
  assert.deepEqual(events.json().items.map((e: Json) => e.seq), [1, 2, 3], events.body);
  const usage = await call('GET', '/v1/usage?from=&to=&groupBy=agent');
  assert.deepEqual(usage.json(), (await call('GET', '/v1/usage?groupBy=agent')).json(), usage.body);
  // Given twice, one of them empty, is still given twice.
  assertProblem(await call('GET', '/v1/roles?limit=5&limit='), 400);
});

test('GET /v1/matching-runs: newest first, without shortlists; ?status= answers that status only', async () => {
  const queued = (await call('POST', '/v1/matching-runs', { roleId: finished.roleId })).json();
  const cancelled = (await call('POST', '/v1/matching-runs', { roleId: finished.roleId })).json();
  assert.equal((await call('POST', `/v1/matching-runs/${cancelled.id}/cancel`)).json().status, 'cancelled');
  const all = (await call('GET', '/v1/matching-runs?limit=100')).json();
  assert.deepEqual(keys(all), ['items', 'nextCursor']);
  const created = all.items.map((r: Json) => r.createdAt);
  assert.deepEqual(created, [...created].sort().reverse(), 'newest first');
  assert.deepEqual(all.items.slice(0, 2).map((r: Json) => r.id), [cancelled.id, queued.id]);
  for (const r of all.items) assert.deepEqual(keys(r), RUN_FIELDS.filter((f) => f !== 'shortlist'));
  for (const [status, id] of [['queued', queued.id], ['cancelled', cancelled.id], ['succeeded', finished.id]]) {
    const items = (await call('GET', `/v1/matching-runs?status=${status}&limit=100`)).json().items as Json[];
    assert.ok(items.length > 0 && items.every((r) => r.status === status), `${status}: ${items.map((r) => r.status)}`);
    assert.ok(items.some((r) => r.id === id), status);
  }
  const page = (await call('GET', '/v1/matching-runs?limit=1')).json();
  assert.equal(page.items.length, 1);
  const next = (await call('GET', `/v1/matching-runs?limit=1&cursor=${page.nextCursor}`)).json();
  assert.equal(next.items[0].id, all.items[1].id, 'the cursor goes on where the page ended');
  await call('POST', `/v1/matching-runs/${queued.id}/cancel`);
});

test('Idempotency-Key: a retry answers 202 with the first run and its Location; another body with the key is a 422 problem', async () => {
  const body = { roleId: finished.roleId, maxIterations: 2 };
  const headers = { 'idempotency-key': 'contract-retry-1' };
  const first = await call('POST', '/v1/matching-runs', body, headers);
  const retry = await call('POST', '/v1/matching-runs', body, headers);
  assert.deepEqual([first.statusCode, retry.statusCode], [202, 202]);
  assert.equal(retry.json().id, first.json().id);
  assert.equal(retry.headers.location, first.headers.location);
  const other = assertProblem(await call('POST', '/v1/matching-runs', { ...body, maxIterations: 3 }, headers), 422);
  assert.ok(other.errors.some((e: Json) => e.path === 'headers.idempotency-key'));
  // Another role with the same parameters is another body too, given inline or by id.
  const inline = { role: { ...GO_ROLE, title: 'Role A' }, maxIterations: 2 };
  const roleKey = { 'idempotency-key': 'contract-retry-role' };
  const byRole = await call('POST', '/v1/matching-runs', inline, roleKey);
  assert.equal(byRole.statusCode, 202, byRole.body);
  assertProblem(await call('POST', '/v1/matching-runs', { ...inline, role: { ...GO_ROLE, title: 'Role B' } }, roleKey), 422);
  assertProblem(await call('POST', '/v1/matching-runs', { roleId: finished.roleId, maxIterations: 2 }, roleKey), 422);
  await call('POST', `/v1/matching-runs/${first.json().id}/cancel`);
  await call('POST', `/v1/matching-runs/${byRole.json().id}/cancel`);
});

test('routes without a body take an empty one labelled JSON, as clients that label every request send it', async () => {
  const json = { 'content-type': 'application/json' };
  const forRole = await call('POST', `/v1/roles/${finished.roleId}/matching-runs`, undefined, json);
  assert.equal(forRole.statusCode, 202, forRole.body);
  const cancel = await call('POST', `/v1/matching-runs/${forRole.json().id}/cancel`, undefined, json);
  assert.equal(cancel.statusCode, 202, cancel.body);
  const id = (await call('POST', '/v1/candidates', { candidates: [candidate('erase-me')] })).json().items[0].id;
  const erased = await call('DELETE', `/v1/candidates/${id}`, undefined, json);
  assert.equal(erased.statusCode, 204, erased.body);
  // A route that needs a body still refuses an empty one, naming it.
  const refused = assertProblem(await call('POST', '/v1/roles', undefined, json), 400);
  assert.ok(refused.errors.some((e: Json) => e.path === 'body'), JSON.stringify(refused));
});

test('GET /v1/usage: { items: [{ key, llmCalls, promptTokens, completionTokens, costUsd }], total }, read from the ledger', async () => {
  const orgId = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;
  await rt.db.query(
    `INSERT INTO model_calls (org_id, agent, model, prompt_tokens, completion_tokens, cost_usd, outcome)
     VALUES ($1, 'scorer', 'fake-chat', 1000, 100, 0.25, 'ok'), ($1, 'reranker', 'fake-chat', 500, 50, 0.125, 'ok')`,
    [orgId],
  );
  const res = await call('GET', '/v1/usage?groupBy=agent');
  assert.equal(res.statusCode, 200);
  const report = res.json();
  assert.deepEqual(keys(report), ['items', 'total']);
  const figures = ['completionTokens', 'costUsd', 'estimatedCalls', 'llmCalls', 'promptTokens'];
  for (const item of report.items) assert.deepEqual(keys(item), ['key', ...figures].sort());
  assert.deepEqual(keys(report.total), figures);
  assert.deepEqual(report.items.map((i: Json) => [i.key, i.llmCalls, i.promptTokens, i.completionTokens, i.costUsd]), [
    ['reranker', 1, 500, 50, 0.125],
    ['scorer', 1, 1000, 100, 0.25],
  ]);
  assert.deepEqual([report.total.llmCalls, report.total.promptTokens, report.total.completionTokens, report.total.costUsd], [2, 1500, 150, 0.375]);
  const byDay = (await call('GET', '/v1/usage')).json();
  assert.match(byDay.items[0].key, /^\d{4}-\d\d-\d\d$/, 'groupBy=day is the default; its keys are UTC dates');
  // A date alone is not an instant: the answer says what to send instead.
  const dateOnly = assertProblem(await call('GET', '/v1/usage?from=2024-01-01'), 400);
  assert.match(dateOnly.errors[0].message, /2024-01-01T00:00:00Z/, JSON.stringify(dateOnly.errors));
});
