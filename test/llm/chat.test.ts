// The chat caller against the fake provider: ledger rows and costs, model resolution, budget, concurrency cap.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import pLimit from 'p-limit';
import { createBudget, estimateTokens, MAX_REPORTED_TOKENS } from '../../src/llm/budget.js';
import { AGENT_HEADER, createChatCaller } from '../../src/llm/chat.js';
import { BudgetExceededError, ModelCallError, UnknownModelError } from '../../src/llm/errors.js';
import { fakeReply } from '../support/fake-llm-server.js';
import { ORG, setupLlm } from './harness.js';

const hello = [{ role: 'user' as const, content: 'hello' }];

test('one successful call: one ledger row with tokens, cached tokens, registry-priced cost and the request id', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.text('hi', { promptTokens: 1_000, cachedTokens: 400, completionTokens: 500 }));
  const res = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: 'run_1', messages: hello, maxTokens: 100 });
  assert.equal(res.message.content, 'hi');
  // fake-chat: $1/M input, $0.50/M cached input, $2/M output => 600*1 + 400*0.5 + 500*2 = 1800 micro-dollars.
  assert.equal(res.usage.costUsd, 0.0018);
  assert.equal(res.requestId, 'req_fake_1');
  assert.deepEqual(h.ledger.entries(), [
    {
      orgId: ORG,
      runId: 'run_1',
      agent: 'scorer',
      model: 'fake-chat',
      promptTokens: 1_000,
      cachedTokens: 400,
      completionTokens: 500,
      costUsd: 0.0018,
      latencyMs: h.ledger.entries()[0]!.latencyMs,
      outcome: 'ok',
      requestId: 'req_fake_1',
      attempt: 1,
    },
  ]);
  assert.ok(h.ledger.entries()[0]!.latencyMs >= 0);
});

test('the request carries the agent model, temperature, clamped max_tokens and the agent header', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.text('a'), fakeReply.text('b'));
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 1_000_000 });
  await h.caller.call({ agent: 'reflector', orgId: ORG, runId: null, messages: hello, maxTokens: 64 });
  const [scorer, reflector] = h.server.requests;
  assert.equal(scorer?.body.model, 'fake-chat');
  assert.equal(scorer?.body.temperature, 0);
  assert.equal(scorer?.body.max_tokens, 4_096, 'clamped to the model maxOutputTokens');
  assert.equal(scorer?.headers[AGENT_HEADER], 'scorer');
  assert.equal(scorer?.agent, 'scorer');
  assert.equal(reflector?.body.temperature, 0.2);
  assert.equal(reflector?.body.max_tokens, 64);
});

test('the model is resolved from settings at call time', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.setHandler(() => fakeReply.text('ok'));
  await h.caller.call({ agent: 'reranker', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  h.setSettings({ agents: { ...h.settings().agents, reranker: { model: 'fake-chat-loose', temperature: 0.7 } } });
  const res = await h.caller.call({ agent: 'reranker', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  assert.equal(res.model, 'fake-chat-loose');
  assert.deepEqual(h.server.requests.map((r) => [r.body.model, r.body.temperature]), [['fake-chat', 0.2], ['fake-chat-loose', 0.7]]);
});

test('an unknown model at call time fails before any request', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.setSettings({ agents: { ...h.settings().agents, scorer: { model: 'gpt-9-ultra', temperature: 0 } } });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 }), (err: unknown) => {
    assert.ok(err instanceof UnknownModelError);
    assert.match(err.message, /scorer/);
    assert.match(err.message, /gpt-9-ultra/);
    return true;
  });
  assert.equal(h.server.requests.length, 0);
});

test('the budget refuses a call whose worst case does not fit: nothing is sent, a budget row is written', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.setHandler(() => fakeReply.text('should not be asked'));
  const budget = createBudget({ maxTokens: 100 });
  await assert.rejects(
    h.caller.call({ agent: 'scorer', orgId: ORG, runId: 'run_1', messages: hello, maxTokens: 200, budget }),
    (err: unknown) => err instanceof BudgetExceededError && err.limit === 'tokens',
  );
  assert.equal(h.server.requests.length, 0);
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.attempt, e.costUsd]), [['budget', 0, 0]]);
  assert.equal(budget.snapshot().openReservations, 0);
});

test('the budget refuses on cost and on calls as well', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.setHandler(() => fakeReply.text('ok', { promptTokens: 10, completionTokens: 5 }));
  // Worst case output alone: 1000 tokens at $2/M = $0.002 > $0.001.
  const poor = createBudget({ maxCostUsd: 0.001 });
  await assert.rejects(
    h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 1_000, budget: poor }),
    (err: unknown) => err instanceof BudgetExceededError && err.limit === 'cost',
  );
  const oneCall = createBudget({ maxCalls: 1 });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, budget: oneCall });
  await assert.rejects(
    h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, budget: oneCall }),
    (err: unknown) => err instanceof BudgetExceededError && err.limit === 'calls',
  );
  assert.equal(h.server.requests.length, 1);
});

test('after a call the budget is charged what the provider reported, not the worst case', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.serverError(), fakeReply.text('ok', { promptTokens: 1_000, cachedTokens: 400, completionTokens: 500 }));
  const budget = createBudget({ maxTokens: 100_000, maxCostUsd: 1 });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 600, budget });
  const snap = budget.snapshot();
  assert.deepEqual(snap.spent, { tokens: 1_500, costUsd: 0.0018, calls: 1 });
  assert.deepEqual(snap.reserved, { tokens: 0, costUsd: 0, calls: 0 });
});

test('a call that failed on every attempt still counts as a call and releases its reservation', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 1 } });
  t.after(h.close);
  h.server.script(fakeReply.serverError(), fakeReply.serverError());
  const budget = createBudget({ maxTokens: 100_000 });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100, budget }), ModelCallError);
  assert.deepEqual(budget.snapshot().spent, { tokens: 0, costUsd: 0, calls: 1 });
  assert.equal(budget.snapshot().openReservations, 0);
});

test('the retries read the caller\'s clock: a deadline an hour ahead on it is not taken as passed', async (t) => {
  // The caller's clock runs a day behind the machine's: the deadline is in the future on it, in the past on Date.now.
  const skew = 24 * 3600_000;
  const h = await setupLlm({ now: () => Date.now() - skew });
  t.after(h.close);
  h.server.script(fakeReply.serverError(), fakeReply.json({ ok: true }));
  const out = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, deadline: Date.now() - skew + 3600_000 });
  assert.equal(out.attempts, 2, 'retried once, then answered');
});

test('a global limiter caps in-flight model requests across concurrent calls', async (t) => {
  const h = await setupLlm({ limiter: pLimit(2) });
  t.after(h.close);
  h.server.setLatency(60);
  h.server.setHandler(() => fakeReply.text('ok'));
  const calls = Array.from({ length: 6 }, () => h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 }));
  await Promise.all(calls);
  assert.equal(h.server.requests.length, 6);
  assert.equal(h.server.maxInFlight, 2);
});

test('a call that waited for a model slot until its deadline had all but passed is not sent, and costs nothing', async (t) => {
  // One slot: the second call waits for the first, which answers after its deadline has gone by.
  const h = await setupLlm({ limiter: pLimit(1) });
  t.after(h.close);
  let answered = 0;
  h.server.setHandler(() => fakeReply.slow(answered++ === 0 ? 600 : 0, fakeReply.text('ok')));
  const budget = createBudget({ maxCostUsd: 1, deadline: Date.now() + 300 });
  const first = h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  const second = h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: [{ role: 'user', content: 'x'.repeat(30_000) }], maxTokens: 10, budget });
  await first;
  await assert.rejects(second, (err: Error) => err.name === 'DeadlineExceededError');
  assert.equal(h.server.requests.length, 1, 'the second call never reached the provider');
  assert.deepEqual(budget.snapshot().spent.costUsd, 0, 'nor was it charged as if billed');
  assert.ok(h.ledger.entries().every((e) => e.costUsd === 0 || e.outcome === 'ok'), JSON.stringify(h.ledger.entries()));
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.attempt]), [['ok', 1], ['budget', 0]], 'the refusal has its row');
});

test("a run's signal keeps no listener of a request once it is done: a long run's thousand calls leave none behind", async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.setHandler(() => fakeReply.text('ok'));
  const run = new AbortController();
  for (let i = 0; i < 5; i++) await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, signal: run.signal });
  h.server.script(fakeReply.serverError(), fakeReply.text('ok'));
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, signal: run.signal });
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
  // The link still aborts a request in flight.
  h.server.setHandler(() => fakeReply.hang());
  const pending = h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, signal: run.signal });
  await h.server.waitForRequests(h.server.requests.length + 1);
  run.abort(new Error('cancelled'));
  await assert.rejects(pending);
});

test('without a limiter the same calls overlap (the cap above is the limiter, not the server)', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  // No answer until three requests are in: calls that did not overlap would never get one (and the test would time out).
  h.server.setHandler(async () => {
    await h.server.waitForRequests(3);
    return fakeReply.text('ok');
  });
  await Promise.all(Array.from({ length: 6 }, () => h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 })));
  assert.ok(h.server.maxInFlight > 2, `maxInFlight ${h.server.maxInFlight}`);
});

test('a failing ledger does not throw away a paid answer', async (t) => {
  const h = await setupLlm({ ledger: { record: async () => Promise.reject(new Error('db down')) } });
  t.after(h.close);
  h.server.script(fakeReply.text('kept'));
  const res = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  assert.equal(res.message.content, 'kept');
});

test('refused and truncated answers are recorded with their own outcomes; a refusal\'s words stay out of the ledger', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  // A model may repeat what it was sent: the ledger's error column is read like a log, so the words are not kept there.
  h.server.script(fakeReply.refusal('I will not assess Jane Doe, jane.doe@example.com'), fakeReply.truncated());
  const refused = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  const truncated = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  assert.equal(refused.judgement.outcome, 'refused');
  assert.equal(truncated.finishReason, 'length');
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['refused', 'truncated']);
  assert.equal(h.ledger.entries()[0]!.error, 'the model refused to answer');
});

test('usage that is not a count a ledger row can hold is replaced by our estimate: it never credits the budget', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(
    fakeReply.text('ok', { promptTokens: -5_000_000, completionTokens: 1 }),
    fakeReply.text('ok', { promptTokens: 10, completionTokens: 2.5, cachedTokens: 50 }),
    // Past a ledger row's 32-bit token columns: its insert would fail, and the attempt would be missing from the ledger.
    fakeReply.text('ok', { promptTokens: 3_000_000_000, completionTokens: MAX_REPORTED_TOKENS }),
    // Past the model's context window (32,000 tokens): a proxy's absurd count would bill the run thousands of dollars.
    fakeReply.text('ok', { promptTokens: 2_000_000, completionTokens: 32_000 }),
  );
  const budget = createBudget({ maxTokens: 10_000, maxCostUsd: 0.01 });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100, budget });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100, budget });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100 });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100 });
  const [negative, fractional, huge, absurd] = h.ledger.entries();
  assert.ok(huge!.promptTokens > 0 && huge!.promptTokens < 1000, `prompt ${huge!.promptTokens}: our estimate`);
  assert.equal(huge!.completionTokens, 1, "past the context window too: 'ok' estimated at one token");
  assert.equal(huge!.tokensEstimated, true);
  assert.ok(absurd!.promptTokens > 0 && absurd!.promptTokens < 1000, `prompt ${absurd!.promptTokens}: our estimate`);
  assert.equal(absurd!.completionTokens, 32_000, 'a count within the context window is kept');
  assert.equal(absurd!.tokensEstimated, true);
  assert.ok(negative!.promptTokens > 0, `prompt ${negative!.promptTokens}`);
  assert.equal(negative!.completionTokens, 1, 'the valid count is kept');
  assert.ok(negative!.costUsd > 0);
  assert.equal(negative!.tokensEstimated, true);
  assert.equal(fractional!.promptTokens, 10);
  assert.equal(fractional!.cachedTokens, 10, 'cached tokens are part of the prompt, never more than it');
  assert.equal(fractional!.completionTokens, 1, "'ok' estimated at one token");
  assert.equal(fractional!.tokensEstimated, true);
  const left = budget.remaining();
  assert.ok(left.tokens < 10_000 && left.costUsd < 0.01, `remaining ${JSON.stringify(left)}`);
});

test('an answer without usage is charged by what it emitted, tool-call arguments included', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const args = JSON.stringify({ skillsAny: Array.from({ length: 20 }, (_, i) => `skill-name-number-${i}`) });
  const body = JSON.stringify({
    id: 'x', object: 'chat.completion', created: 0, model: 'fake-chat',
    choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'evaluate_filters', arguments: args } }] } }],
  });
  h.server.script({ type: 'raw', status: 200, body, headers: { 'content-type': 'application/json' } });
  await h.caller.call({ agent: 'queryExpander', orgId: ORG, runId: null, messages: hello, maxTokens: 800 });
  const entry = h.ledger.entries()[0]!;
  assert.equal(entry.completionTokens, Math.ceil(('evaluate_filters' + args).length / 3));
  assert.ok(entry.promptTokens > 0);
  assert.equal(entry.tokensEstimated, true);
});

test('an answer with valid usage is not marked estimated', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.text('ok', { promptTokens: 10, completionTokens: 1 }));
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  assert.equal(h.ledger.entries()[0]!.tokensEstimated, undefined);
});

test('attempts that timed out after sending are charged their estimated prompt: ledger and budget alike', async (t) => {
  const h = await setupLlm({ settings: { timeoutMs: 1_000, maxRetries: 2 } });
  t.after(h.close);
  // The provider answers after our timeout: it processed (and bills) every attempt.
  h.server.setHandler(() => fakeReply.slow(1_300, fakeReply.text('late', { promptTokens: 10_000, completionTokens: 500 })));
  const messages = [{ role: 'user' as const, content: 'x'.repeat(30_000) }];
  const budget = createBudget({ maxTokens: 1_000_000 });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: 'r', messages, maxTokens: 500, budget }), ModelCallError);
  assert.equal(h.server.requests.length, 3);
  const rows = h.ledger.entries();
  assert.deepEqual(rows.map((e) => [e.outcome, e.tokensEstimated, e.completionTokens]), [['timeout', true, 0], ['timeout', true, 0], ['timeout', true, 0]]);
  const prompt = rows[0]!.promptTokens;
  assert.ok(prompt >= 10_000, `estimated prompt ${prompt}`);
  assert.equal(rows[0]!.costUsd, prompt / 1e6, 'fake-chat input is $1 per MTok');
  assert.deepEqual(budget.snapshot().spent, { tokens: 3 * prompt, costUsd: 3 * rows[0]!.costUsd, calls: 1 });
  assert.equal(budget.snapshot().openReservations, 0);
});

test('a connection lost after sending and an abort during the request are charged; refused requests are not', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 0 } });
  t.after(h.close);
  h.server.script(fakeReply.drop(), fakeReply.hang(), fakeReply.serverError(503), fakeReply.rateLimited());
  const budget = createBudget({ maxTokens: 1_000_000 });
  const send = (signal?: AbortSignal) => h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, budget, signal });
  await assert.rejects(send()); // connection reset after the request was sent
  const abort = new AbortController();
  void h.server.waitForRequests(2).then(() => abort.abort()); // once the provider has it, not after a guessed 100 ms
  await assert.rejects(send(abort.signal)); // aborted while the provider works on it
  await assert.rejects(send()); // 503: the provider answered that it did not process it
  await assert.rejects(send()); // 429
  await assert.rejects(send(AbortSignal.abort())); // aborted before anything was sent: no attempt at all
  const rows = h.ledger.entries();
  // The abort is ours, not the provider's failure: its own outcome, so a cancel does not read as a provider error.
  assert.deepEqual(rows.map((e) => [e.outcome, e.promptTokens > 0, e.tokensEstimated ?? false]), [
    ['error', true, true],
    ['aborted', true, true],
    ['error', false, false],
    ['rate_limited', false, false],
  ]);
  assert.equal(budget.snapshot().spent.tokens, rows[0]!.promptTokens + rows[1]!.promptTokens);
});

test('requests a cancelled run left waiting for a model slot are not sent, recorded, billed or checked', async (t) => {
  const checked: string[] = [];
  const h = await setupLlm({ limiter: pLimit(1) });
  t.after(h.close);
  const caller = createChatCaller({
    client: h.client,
    registry: h.registry,
    settings: h.settings,
    ledger: h.ledger,
    limiter: pLimit(1),
    erasedAmong: async (_org, ids) => {
      checked.push(...ids);
      return [];
    },
  });
  h.server.setHandler(() => fakeReply.slow(300, fakeReply.json({ ok: true })));
  // Another run's request holds the only slot; five of this run's wait for it, and the run is cancelled.
  const other = caller.call({ agent: 'scorer', orgId: ORG, runId: 'other', messages: hello, maxTokens: 10, candidateIds: ['c-other'] });
  const budget = createBudget({ maxTokens: 1_000_000, maxCalls: 100 });
  const run = new AbortController();
  const exchanges: number[] = [];
  const queued = Array.from({ length: 5 }, (_, i) =>
    caller.call({ agent: 'scorer', orgId: ORG, runId: 'mine', messages: hello, maxTokens: 10, budget, signal: run.signal, candidateIds: [`c${i}`], onExchange: async (x) => void exchanges.push(x.attempt) }),
  );
  await h.server.waitForRequests(1);
  run.abort(new Error('run cancelled'));
  for (const r of await Promise.allSettled(queued)) assert.equal(r.status === 'rejected' && (r.reason as Error).message, 'run cancelled');
  await other;
  assert.equal(h.server.chatRequests().length, 1, "only the other run's request was sent");
  assert.deepEqual(checked, ['c-other'], 'no erasure check for a request that will not be sent');
  assert.deepEqual(h.ledger.entries().filter((e) => e.runId === 'mine'), [], 'no model call recorded');
  assert.deepEqual(exchanges, [], 'no exchange in the trail');
  assert.deepEqual(budget.snapshot().spent, { tokens: 0, costUsd: 0, calls: 0 });
  assert.equal(budget.snapshot().openReservations, 0);
});

test('a connection refused costs nothing: the request never reached a provider', async (t) => {
  const h = await setupLlm({ settings: { baseUrl: 'http://127.0.0.1:1/v1', maxRetries: 0 } });
  t.after(h.close);
  const budget = createBudget({ maxTokens: 1_000_000 });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, budget }), ModelCallError);
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.promptTokens, e.costUsd, e.tokensEstimated ?? false]), [['error', 0, 0, false]]);
  assert.equal(budget.snapshot().spent.tokens, 0);
});

test('an answer in a shape the judge cannot read (no choices list, a message that is no object) keeps its reported usage', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  const usage = { prompt_tokens: 1_000, completion_tokens: 500, total_tokens: 1_500 };
  const bodies = [
    { id: 'x', object: 'chat.completion', created: 0, model: 'fake-chat', choices: 'none', usage },
    { id: 'x', object: 'chat.completion', created: 0, model: 'fake-chat', choices: [{ index: 0, finish_reason: 'stop', message: null }], usage },
  ];
  for (const body of bodies) h.server.script({ type: 'raw', status: 200, body: JSON.stringify(body) });
  const budget = createBudget({ maxTokens: 100_000 });
  for (const _ of bodies) {
    await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10, budget }), ModelCallError);
  }
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.promptTokens, e.completionTokens]), [['error', 1_000, 500], ['error', 1_000, 500]]);
  assert.equal(budget.snapshot().spent.tokens, 3_000);
});

test('a retry of an attempt that was charged must fit the budget too: 504s cannot spend past it', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 3 } });
  t.after(h.close);
  // A gateway that gave up on a provider that may still be generating: each attempt is charged its estimated prompt.
  h.server.setHandler(() => fakeReply.serverError(504));
  const messages = [{ role: 'user' as const, content: 'x'.repeat(3_000) }];
  const prompt = estimateTokens(JSON.stringify({ messages }));
  // Room for the call's worst case and half a prompt more: not for a second attempt.
  const budget = createBudget({ maxTokens: prompt + 100 + Math.floor(prompt / 2) });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: 'r', messages, maxTokens: 100, budget }), BudgetExceededError);
  assert.equal(h.server.requests.length, 1, 'the retry that did not fit was not sent');
  // The refused retry has its row, as a call refused at its reservation has: the run's budget stop is on the ledger.
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.promptTokens, e.attempt]), [['error', prompt, 1], ['budget', 0, 0]]);
  assert.deepEqual(budget.snapshot().spent, { tokens: prompt, costUsd: prompt / 1e6, calls: 1 });
  assert.equal(budget.snapshot().openReservations, 0);
  assert.deepEqual(budget.snapshot().reserved, { tokens: 0, costUsd: 0, calls: 0 });

  // With room for them, every attempt is sent, and the budget ends charged exactly what the ledger says.
  const roomy = createBudget({ maxTokens: 1_000_000 });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: 'r', messages, maxTokens: 100, budget: roomy }), ModelCallError);
  assert.equal(h.server.requests.length, 5);
  assert.deepEqual(roomy.snapshot().spent.tokens, 4 * prompt);
  assert.deepEqual(roomy.snapshot().reserved, { tokens: 0, costUsd: 0, calls: 0 });
});
