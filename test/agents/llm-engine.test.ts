// The LLM engine over a real database: ledger rows per attempt with registry prices, run budgets read back, no PII sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prepareCandidate } from '../../src/candidates/candidate-service.js';
import { createCandidateStore } from '../../src/candidates/candidate-store.js';
import type { Database } from '../../src/db/database.js';
import { createLlmClient } from '../../src/llm/client.js';
import { callCap, createLlmEngine, isBudgetError } from '../../src/llm/engine.js';
import { BudgetExceededError, DeadlineExceededError, ModelCallError } from '../../src/llm/errors.js';
import { costUsd, loadModelRegistry } from '../../src/llm/model-registry.js';
import { parseLlmSettings } from '../../src/llm/settings.js';
import { createMetrics } from '../../src/metrics.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { createUsageStore } from '../../src/usage/usage-store.js';
import { createTestDatabase } from '../support/database.js';
import { fakeReply, startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { role, scoreAnswer, validSubscores, view } from './llm-harness.js';

let db: Database;
let server: FakeLlmServer;
let orgId: string;
let roleId: string;
const registry = loadModelRegistry();
const fake = { model: 'fake-chat', temperature: 0.2 };

before(async () => {
  db = await createTestDatabase();
  server = await startFakeLlmServer();
  orgId = (await db.query<{ id: string }>(`INSERT INTO organisations (name) VALUES ('acme') RETURNING id`)).rows[0]!.id;
  roleId = (await db.query<{ id: string }>(`INSERT INTO roles (org_id, title, description) VALUES ($1, 'Backend', 'Rust') RETURNING id`, [orgId])).rows[0]!.id;
});
after(async () => {
  await server.close();
  await db.close();
});

async function newRun(budget: { maxTokens: number; maxCostUsd: number }) {
  const params = RunParamsSchema.parse({ budget });
  const id = (
    await db.query<{ id: string }>(
      `INSERT INTO matching_runs (org_id, role_id, engine, params, progress, status) VALUES ($1, $2, 'llm', $3, '{}', 'running') RETURNING id`,
      [orgId, roleId, JSON.stringify(params)],
    )
  ).rows[0]!.id;
  return { id, orgId, params };
}

function engine() {
  server.requests.length = 0;
  const settings = parseLlmSettings({
    baseUrl: server.url,
    apiKey: 'k',
    timeoutMs: 2_000,
    maxRetries: 2,
    retryBaseMs: 5,
    retryMaxMs: 100,
    reaskLimit: 1,
    agents: { queryExpander: fake, reranker: fake, scorer: { model: 'fake-chat', temperature: 0 }, reflector: fake },
    embeddingModel: 'fake-embed',
  });
  const usage = createUsageStore(db);
  const metrics = createMetrics({ defaultMetrics: false });
  const store = createCandidateStore(db);
  const pool = { skillVocabulary: store.skillVocabulary, countMatching: store.countMatching };
  const e = createLlmEngine({ settings, registry, usage, metrics, pool, concurrency: 4, client: createLlmClient(settings) });
  return { e, usage, metrics, store };
}

const rows = (runId: string) =>
  db.query<{ agent: string; model: string; outcome: string; attempt: number; prompt_tokens: number; cached_tokens: number; completion_tokens: number; cost_usd: number; org_id: string }>(
    'SELECT agent, model, outcome, attempt, prompt_tokens, cached_tokens, completion_tokens, cost_usd, org_id FROM model_calls WHERE run_id = $1 ORDER BY id',
    [runId],
  );

test('every attempt is a ledger row priced from the registry; run totals and metrics move with it', async () => {
  const { e, usage, metrics } = engine();
  const run = await newRun({ maxTokens: 200_000, maxCostUsd: 2 });
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  const tokens = { promptTokens: 1000, cachedTokens: 100, completionTokens: 200 };
  server.script(fakeReply.serverError(500), fakeReply.json(scoreAnswer(validSubscores), tokens));
  const out = await e.agents.scorer.score({ role, candidate: view('c1', 'Rust engineer') }, ctx);
  assert.equal(out.status, 'scored');

  const r = (await rows(run.id)).rows;
  assert.deepEqual(r.map((x) => [x.agent, x.model, x.outcome, x.attempt]), [
    ['scorer', 'fake-chat', 'error', 1],
    ['scorer', 'fake-chat', 'ok', 2],
  ]);
  const expected = costUsd(registry.chat('fake-chat')!, tokens);
  assert.equal(expected, (900 * 1 + 100 * 0.5 + 200 * 2) / 1e6, 'fake-chat prices: 1 / 0.5 cached / 2 per MTok');
  assert.equal(r[1]!.cost_usd, Number(expected.toFixed(6)));
  assert.deepEqual([r[1]!.prompt_tokens, r[1]!.cached_tokens, r[1]!.completion_tokens], [1000, 100, 200]);
  assert.deepEqual(await usage.runTotals(run.id), { calls: 2, tokens: 1200, costUsd: Number(expected.toFixed(6)) });
  const runRow = (await db.query<{ llm_calls: number; prompt_tokens: number }>('SELECT llm_calls, prompt_tokens FROM matching_runs WHERE id = $1', [run.id])).rows[0]!;
  assert.deepEqual(runRow, { llm_calls: 2, prompt_tokens: 1000 });
  const tokenMetric = (await metrics.modelTokens.get()).values.find((v) => v.labels.kind === 'completion' && v.labels.agent === 'scorer');
  assert.equal(tokenMetric?.value, 200);
  const costMetric = (await metrics.modelCost.get()).values.find((v) => v.labels.outcome === 'ok');
  assert.equal(costMetric?.value, expected);
  assert.equal((await metrics.modelCallDuration.get()).values.find((v) => v.metricName === 'model_call_duration_seconds_count' && v.labels.outcome === 'error')?.value, 1);
});

test('a run budget too small: BudgetExceededError before any request, a "budget" ledger row, and a budget stop', async () => {
  const { e } = engine();
  const run = await newRun({ maxTokens: 1000, maxCostUsd: 2 });
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  const err = await e.agents.scorer.score({ role, candidate: view('c1', 'Rust engineer') }, ctx).then(
    () => assert.fail('should not score'),
    (x: unknown) => x,
  );
  assert.ok(err instanceof BudgetExceededError);
  assert.equal(e.isBudgetError(err), true, 'the worker ends the run with reason "budget", not "error"');
  assert.equal(server.requests.length, 0, 'nothing was sent');
  assert.deepEqual((await rows(run.id)).rows.map((x) => [x.outcome, x.attempt, x.cost_usd]), [['budget', 0, 0]]);
});

test('a resumed run continues with what is left of its budget, read back from the ledger', async () => {
  const { e, usage } = engine();
  const run = await newRun({ maxTokens: 101_000, maxCostUsd: 2 });
  // Earlier work of this run, as a previous worker recorded it.
  await usage.record({ orgId, runId: run.id, agent: 'scorer', model: 'fake-chat', promptTokens: 90_000, cachedTokens: 0, completionTokens: 10_000, costUsd: 0.11, latencyMs: 5, outcome: 'ok', requestId: null, attempt: 1 });
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  assert.deepEqual(ctx.budget!.snapshot().spent, { tokens: 100_000, costUsd: 0.11, calls: 1 });
  assert.equal(ctx.budget!.snapshot().limits.maxCalls, callCap(run.params, 1));
  assert.equal(ctx.deadline !== undefined && ctx.runId === run.id && ctx.orgId === orgId, true);
  await assert.rejects(e.agents.scorer.score({ role, candidate: view('c1', 'Rust engineer') }, ctx), BudgetExceededError);
  assert.equal(server.requests.length, 0, 'a fresh budget would have sent this call');
});

test('a passed deadline stops the run as a budget stop, without a request', async () => {
  const { e } = engine();
  const run = await newRun({ maxTokens: 200_000, maxCostUsd: 2 });
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() - 1);
  const err = await e.agents.reflector.reflect(
    { role, iteration: 1, maxIterations: 3, scoreThreshold: 70, targetStrong: 5, roundScores: [], bestBefore: null, bestAfter: null, strongBefore: 0, strongAfter: 0, usedQueries: [] },
    ctx,
  ).catch((x: unknown) => x);
  assert.ok(err instanceof BudgetExceededError && err.limit === 'deadline');
  assert.equal(server.requests.length, 0);
  assert.equal(isBudgetError(new DeadlineExceededError(Date.now(), 'late')), true);
  assert.equal(isBudgetError(new Error('wrapped', { cause: err })), true);
  assert.equal(isBudgetError(new ModelCallError({ agent: 'scorer', model: 'm', status: 500, retryable: true, attempts: 3, cause: new Error('x') })), false);
});

test('no PII reaches the model: canaries kept only in raw fields never appear in any request body', async () => {
  const { e, store } = engine();
  const run = await newRun({ maxTokens: 200_000, maxCostUsd: 2 });
  const canaries = { name: 'Zephyrine Quillfeather', email: 'zq.canary7@example.org', phone: '+44 20 7946 0123' };
  const prepared = prepareCandidate({
    externalId: 'ats-canary',
    ...canaries,
    headline: 'Senior Rust engineer',
    location: 'Berlin, DE',
    yearsExperience: 9,
    skills: ['Rust', 'PostgreSQL'],
    resume: `${canaries.name}\n${canaries.email} | ${canaries.phone}\nBuilt Rust payment services for 9 years.`,
  });
  const ids = await db.withTransaction((tx) => store.upsert(tx, orgId, [prepared], { model: 'test-model', vectors: [[1, 0, 0]] }));
  const id = ids.get('ats-canary')!.id;
  assert.equal((await store.get(orgId, id))?.email, canaries.email, 'the canary is really stored in the raw field');
  const [candidate] = await store.views(orgId, [id]);
  assert.ok(candidate);
  assert.deepEqual(Object.keys(candidate).sort(), ['headline', 'id', 'location', 'skills', 'text', 'yearsExperience']);

  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  server.script(fakeReply.json({ ranking: ['c1'] }), fakeReply.json(scoreAnswer(validSubscores)));
  await e.agents.reranker.rerank({ role, candidates: [{ id, fusedScore: 1, vectorRank: 1, textRank: 1, distance: 0, candidate }], limit: 1 }, ctx);
  await e.agents.scorer.score({ role, candidate }, ctx);

  assert.equal(server.chatRequests().length, 2);
  const sent = server.chatRequests().map((r) => JSON.stringify(r.body)).join('\n');
  assert.match(sent, /Built Rust payment services/, 'the resume itself was sent');
  for (const canary of [canaries.name, 'Zephyrine', 'Quillfeather', canaries.email, 'zq.canary7', '7946 0123', '79460123']) {
    assert.equal(sent.includes(canary), false, `"${canary}" must not reach the model`);
  }
});

test('evaluate_filters counts only what the model may read: a probe for a raw street or postcode counts nobody', async () => {
  const { e, store } = engine();
  const run = await newRun({ maxTokens: 200_000, maxCostUsd: 2 });
  const prepared = prepareCandidate({
    externalId: 'ats-probe',
    name: 'Orla Vance',
    location: 'Leeds, UK (14 Quarry Lane, LS6 2AB)',
    skills: ['Rust'],
    resume: 'Rust engineer, 9 years of payment services.',
  });
  await db.withTransaction((tx) => store.upsert(tx, orgId, [prepared], { model: 'test-model', vectors: [[1, 0, 0]] }));
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  server.script(
    fakeReply.toolCall('evaluate_filters', { location: 'Quarry Lane' }, 'call_1'),
    fakeReply.toolCall('evaluate_filters', { location: 'LS6 2AB' }, 'call_2'),
    fakeReply.toolCall('evaluate_filters', { location: 'Leeds' }, 'call_3'),
    fakeReply.json({ queries: ['rust payments'], filters: { skillsAll: [], skillsAny: [], location: 'Leeds', minYears: null } }),
  );
  await e.agents.queryExpander.expand({ role, iteration: 1, usedQueries: [], hints: [] }, ctx);

  const last = server.chatRequests().at(-1)!;
  const counts = (last.body.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => (JSON.parse(/<tool_result>\n([\s\S]*)\n<\/tool_result>/.exec(String(m.content))![1]!) as { count: number }).count);
  assert.deepEqual(counts, [0, 0, 1], 'the street and the postcode are only in the raw location; the city is in the scrubbed one');
});

test('the reranker reads resumes only as far as it shows them, and its requests are the same as with the whole text', async () => {
  const { e, store } = engine();
  const run = await newRun({ maxTokens: 200_000, maxCostUsd: 2 });
  const limit = e.agents.reranker.resumeChars;
  assert.ok(limit !== undefined && limit > 100);
  // Around the cut: shorter, exactly as long, one longer, much longer, and astral characters (two UTF-16 units each).
  const resumes = [
    'Short resume: Rust services.',
    'a'.repeat(limit - 1),
    'b'.repeat(limit),
    'c'.repeat(limit + 1),
    `Rust ${'x'.repeat(5000)}`,
    '🦀'.repeat(limit),
  ];
  const prepared = resumes.map((resume, i) => prepareCandidate({ externalId: `cut-${i}`, headline: 'Engineer', skills: ['Rust'], resume }));
  const ids = await db.withTransaction((tx) => store.upsert(tx, orgId, prepared, { model: 'test-model', vectors: prepared.map(() => [1, 0, 0]) }));
  const idList = prepared.map((p) => ids.get(p.externalId)!.id);
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  const sentWith = async (views: Awaited<ReturnType<typeof store.views>>) => {
    server.requests.length = 0;
    server.script(fakeReply.json({ ranking: ['c1'] }));
    const byId = new Map(views.map((v) => [v.id, v]));
    const candidates = idList.map((id, i) => ({ id, fusedScore: 1 - i / 10, vectorRank: i + 1, textRank: null, distance: 0, candidate: byId.get(id)! }));
    await e.agents.reranker.rerank({ role, candidates, limit: 3 }, ctx);
    return JSON.stringify(server.chatRequests().map((r) => r.body.messages));
  };
  const excerpts = await store.views(orgId, idList, { maxChars: limit });
  assert.ok(excerpts.every((v) => v.text.length <= 2 * limit), 'excerpts are bounded');
  assert.equal(await sentWith(excerpts), await sentWith(await store.views(orgId, idList)));
});

test('an attempt lost after sending is an estimated ledger row: the run totals and a resumed budget count it', async () => {
  const { e, usage } = engine();
  const run = await newRun({ maxTokens: 200_000, maxCostUsd: 2 });
  const ctx = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  const tokens = { promptTokens: 1000, cachedTokens: 0, completionTokens: 200 };
  server.script(fakeReply.drop(), fakeReply.json(scoreAnswer(validSubscores), tokens));
  assert.equal((await e.agents.scorer.score({ role, candidate: view('c1', 'Rust engineer') }, ctx)).status, 'scored');
  const r = (
    await db.query<{ outcome: string; prompt_tokens: number; cost_usd: number; tokens_estimated: boolean }>(
      'SELECT outcome, prompt_tokens, cost_usd::float8 AS cost_usd, tokens_estimated FROM model_calls WHERE run_id = $1 ORDER BY id',
      [run.id],
    )
  ).rows;
  assert.deepEqual(r.map((x) => [x.outcome, x.tokens_estimated]), [['error', true], ['ok', false]]);
  const lost = r[0]!.prompt_tokens;
  assert.ok(lost > 0);
  const totals = await usage.runTotals(run.id);
  assert.equal(totals.tokens, lost + 1200);
  assert.deepEqual(ctx.budget!.snapshot().spent.tokens, lost + 1200);
  const resumed = await e.callContextFor(run, new AbortController().signal, Date.now() + 60_000);
  assert.equal(resumed.budget!.snapshot().spent.tokens, lost + 1200);
  const runRow = (await db.query<{ prompt_tokens: number }>('SELECT prompt_tokens FROM matching_runs WHERE id = $1', [run.id])).rows[0]!;
  assert.equal(runRow.prompt_tokens, lost + 1000);
});
