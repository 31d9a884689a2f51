// Abuse limits (OWASP API4, API6, LLM10): per-key rate limits, request caps, runs in flight and the daily model budget.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppError } from '../../src/errors.js';
import { createRunService } from '../../src/runs/run-service.js';
import { testClock } from '../support/clock.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let fake: FakeLlmServer;
let rt: TestRuntime;
const WRITES = 5;
const RUNS = 4;
const IN_FLIGHT = 2;
const BUDGET_USD = 1;
// The daily budget's clock: real time, except where the budget test stops it either side of a UTC midnight.
const clock = testClock();

before(async () => {
  fake = await startFakeLlmServer();
  // No worker: started runs stay queued, which is what "in flight" counts.
  rt = await startTestRuntime({
    PROCESS_ROLE: 'api',
    MATCH_ENGINE: 'llm',
    LLM_BASE_URL: fake.url,
    LLM_MODEL: 'fake-chat',
    RATE_LIMIT_WRITES_PER_MINUTE: String(WRITES),
    RATE_LIMIT_RUNS_PER_MINUTE: String(RUNS),
    MAX_RUNS_IN_FLIGHT_PER_ORG: String(IN_FLIGHT),
    ORG_DAILY_BUDGET_USD: String(BUDGET_USD),
  }, { now: clock.now });
});
after(async () => {
  await rt.close();
  await fake.close();
});

const post = (authorization: string, url: string, payload: object) =>
  rt.app!.inject({ method: 'POST', url, headers: { authorization }, payload });
const bearer = (key: string) => `Bearer ${key}`;
const count = async (table: string) => (await rt.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;

function assertProblem(res: Awaited<ReturnType<typeof post>>, status: number, type: RegExp) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.status, status);
  assert.match(body.type, type);
  assert.ok(body.title && body.detail, 'a title and a detail a person can act on');
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0, `Retry-After: ${res.headers['retry-after']}`);
  return { body, retryAfter };
}

test('writes are limited per API key across routes: 429 problem with Retry-After; header spellings buy nothing; other keys unaffected', async () => {
  const { key } = await rt.services.apiKeys.create('writer');
  const { key: neighbour } = await rt.services.apiKeys.create('neighbour');
  // One allowance for every write route: roles and candidates draw on the same counter.
  for (let i = 0; i < WRITES - 1; i++) assert.equal((await post(bearer(key), '/v1/roles', GO_ROLE)).statusCode, 201);
  assert.equal((await post(bearer(key), '/v1/candidates', { candidates: [candidate('w-1')] })).statusCode, 200);
  const roles = await count('roles');
  const limited = await post(bearer(key), '/v1/roles', GO_ROLE);
  const { retryAfter } = assertProblem(limited, 429, /too_many_requests$/);
  assert.ok(retryAfter <= 60);
  assertProblem(await post(bearer(key), '/v1/candidates', { candidates: [candidate('w-2')] }), 429, /too_many_requests$/);
  for (const spelling of [`bearer ${key}`, `BEARER  ${key}`, `Bearer ${key}   `]) {
    assert.equal((await post(spelling, '/v1/roles', GO_ROLE)).statusCode, 429, `"${spelling.replace(key, 'KEY')}" is the same key`);
  }
  assert.equal(await count('roles'), roles, 'a refused write writes nothing');
  assert.equal((await post(bearer(neighbour), '/v1/roles', GO_ROLE)).statusCode, 201, 'another key keeps its own allowance');
  const read = await rt.app!.inject({ url: '/v1/roles', headers: { authorization: bearer(key) } });
  assert.equal(read.statusCode, 200, 'reads are not counted against writes');
});

test('starting runs is limited per key across both run routes, before validation, so refused bodies count too', async () => {
  const { key } = await rt.services.apiKeys.create('runner');
  const roleId = (await post(bearer(key), '/v1/roles', GO_ROLE)).json().id;
  for (let i = 0; i < RUNS / 2; i++) {
    assert.equal((await post(bearer(key), '/v1/matching-runs', {})).statusCode, 400);
    assert.equal((await post(bearer(key), `/v1/roles/${roleId}/matching-runs`, { maxIterations: 0 })).statusCode, 400);
  }
  assertProblem(await post(bearer(key), '/v1/matching-runs', { roleId }), 429, /too_many_requests$/);
  assertProblem(await post(bearer(key), `/v1/roles/${roleId}/matching-runs`, {}), 429, /too_many_requests$/);
});

test('a retry with an Idempotency-Key whose run exists is answered with that run, not 429, when the run limit is spent', async () => {
  const { key } = await rt.services.apiKeys.create('retrier');
  const roleId = (await post(bearer(key), '/v1/roles', GO_ROLE)).json().id;
  const start = (payload: object, idempotencyKey?: string) =>
    rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: { authorization: bearer(key), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }, payload });
  const first = await start({ roleId, maxIterations: 1 }, 'lost-answer');
  assert.equal(first.statusCode, 202, first.body);
  // The rest of the minute's allowance goes on other starts.
  for (let i = 1; i < RUNS; i++) assert.equal((await start({})).statusCode, 400);
  assertProblem(await start({ roleId }), 429, /too_many_requests$/);
  // The client never saw the first answer (a network error) and sends the same request again.
  const retried = await start({ roleId, maxIterations: 1 }, 'lost-answer');
  assert.equal(retried.statusCode, 202, retried.body);
  assert.equal(retried.json().id, first.json().id);
  assert.equal(retried.headers.location, `/v1/matching-runs/${first.json().id}`);
  // The key's other answers are the key's too: another body is 422, not 429.
  assert.equal((await start({ roleId, maxIterations: 2 }, 'lost-answer')).statusCode, 422);
  assertProblem(await start({ roleId, maxIterations: 1 }, 'a-new-key'), 429, /too_many_requests$/);
  assertProblem(await post(bearer(key), `/v1/roles/${roleId}/matching-runs`, {}), 429, /too_many_requests$/);
});

test('a request carries at most 500 candidates: 501 answers 400 naming the field, and nothing is written', async () => {
  const { key } = await rt.services.apiKeys.create('bulk');
  const res = await post(bearer(key), '/v1/candidates', { candidates: Array.from({ length: 501 }, (_, i) => candidate(`b-${i}`)) });
  assert.equal(res.statusCode, 400);
  assert.ok(res.json().errors.some((e: { path: string }) => e.path === 'body.candidates'));
  assert.equal((await rt.db.query("SELECT count(*)::int AS n FROM candidates WHERE external_id LIKE 'b-%'")).rows[0]!.n, 0);
});

test('runs in flight per organisation are capped, also against a concurrent burst; other organisations are unaffected', async () => {
  // Two keys of one organisation, so the burst stays under each key's rate limit and only the cap can refuse.
  const first = await rt.services.apiKeys.create('busy');
  const second = await rt.services.apiKeys.create('busy');
  assert.equal(first.orgId, second.orgId);
  const keys = [first.key, first.key, first.key, second.key, second.key, second.key];
  const burst = await Promise.all(keys.map((k) => post(bearer(k), '/v1/matching-runs', { role: GO_ROLE })));
  const started = burst.filter((r) => r.statusCode === 202);
  assert.equal(started.length, IN_FLIGHT, `exactly the cap started: ${burst.map((r) => r.statusCode).join(',')}`);
  for (const refused of burst.filter((r) => r.statusCode !== 202)) {
    const { body } = assertProblem(refused, 429, /too_many_requests$/);
    assert.match(body.detail, /queued or running/);
  }
  const inFlight = await rt.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM matching_runs WHERE org_id = $1 AND status IN ('queued', 'running')",
    [first.orgId],
  );
  assert.equal(inFlight.rows[0]!.n, IN_FLIGHT);
  const other = await rt.services.apiKeys.create('idle');
  assert.equal((await post(bearer(other.key), '/v1/matching-runs', { role: GO_ROLE })).statusCode, 202, 'another organisation is not held up');
  // Cancelling a queued run frees its place at once.
  const cancel = await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${started[0]!.json().id}/cancel`, headers: { authorization: bearer(second.key) } });
  assert.equal(cancel.statusCode, 202);
  assert.equal((await post(bearer(second.key), '/v1/matching-runs', { role: GO_ROLE })).statusCode, 202);
});

test('the daily model budget: once spent, new LLM runs are refused with a clear problem document until midnight UTC', async (t) => {
  // The service's clock, not the machine's, says which day it is: a tenth of a second before midnight UTC.
  const today = Date.parse('2025-06-30T00:00:00.000Z');
  const midnight = today + 24 * 3600_000;
  clock.set(midnight - 100);
  t.after(() => clock.set(null));
  const spender = await rt.services.apiKeys.create('spender');
  const thrifty = await rt.services.apiKeys.create('thrifty');
  const spend = (orgId: string, usd: number, at: number) =>
    rt.db.query(
      `INSERT INTO model_calls (org_id, agent, model, prompt_tokens, completion_tokens, cost_usd, outcome, created_at)
       VALUES ($1, 'scorer', 'fake-chat', 1000, 100, $2, 'ok', $3)`,
      [orgId, usd, new Date(at)],
    );
  await spend(spender.orgId, 0.6, today); // the day's first millisecond counts
  await spend(spender.orgId, 5, today - 1); // yesterday's last one does not
  const roleId = (await post(bearer(spender.key), '/v1/roles', GO_ROLE)).json().id;
  assert.equal((await post(bearer(spender.key), '/v1/matching-runs', { roleId })).statusCode, 202, 'under budget: the run starts');
  await spend(spender.orgId, 0.4, midnight - 100);
  const runs = await count('matching_runs');
  for (const url of ['/v1/matching-runs', `/v1/roles/${roleId}/matching-runs`]) {
    const res = await post(bearer(spender.key), url, url === '/v1/matching-runs' ? { roleId } : {});
    const { body, retryAfter } = assertProblem(res, 429, /daily_budget_exhausted$/);
    assert.equal(body.title, 'Daily model budget exhausted');
    assert.match(body.detail, /\$1\.00 of its \$1\.00 daily model budget/);
    assert.equal(retryAfter, 1, 'Retry-After points at the next UTC midnight, 0.1 s away, in whole seconds');
  }
  assert.equal(await count('matching_runs'), runs, 'a refused run writes nothing');
  assert.equal((await post(bearer(thrifty.key), '/v1/matching-runs', { role: GO_ROLE })).statusCode, 202, 'the budget is per organisation');
  // Midnight UTC: yesterday's $1.00 no longer counts.
  clock.set(midnight);
  assert.equal((await post(bearer(spender.key), '/v1/matching-runs', { roleId })).statusCode, 202, 'a new day, a new budget');
  assert.equal(fake.chatRequests().length, 0, 'no model was called by any of this');
});

test('a heuristic run whose queries an endpoint embeds is paid for: the daily budget gates it too; with local embeddings it is free', async () => {
  const payer = await rt.services.apiKeys.create('embedding payer');
  await rt.db.query(
    `INSERT INTO model_calls (org_id, agent, model, prompt_tokens, completion_tokens, cost_usd, outcome)
     VALUES ($1, 'embedder', 'fake-embedding', 1000, 0, $2, 'ok')`,
    [payer.orgId, BUDGET_USD],
  );
  // The same queue and stores as the app's; only the engine and where embeddings come from differ.
  const heuristicRuns = (embeddings: 'local' | 'llm') =>
    createRunService({
      db: rt.db,
      runs: rt.services.runStore,
      usage: rt.services.usage,
      engine: 'heuristic',
      embeddings,
      limits: { maxRunsInFlightPerOrg: 10, orgDailyBudgetUsd: BUDGET_USD },
    });
  const start = (embeddings: 'local' | 'llm') =>
    heuristicRuns(embeddings).start({ orgId: payer.orgId, role: GO_ROLE, params: { maxIterations: 1, scoreThreshold: 70, targetStrong: 5, scoreLimit: 5, budget: { maxTokens: 200_000, maxCostUsd: 2 } } });
  const before = await count('matching_runs');
  await assert.rejects(start('llm'), (err: AppError) => err.status === 429 && err.code === 'daily_budget_exhausted');
  assert.equal(await count('matching_runs'), before, 'a refused run writes nothing');
  assert.equal((await start('local')).created, true, 'local embeddings and heuristic agents spend nothing: no budget applies');
});
