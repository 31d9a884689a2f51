// The chat caller against the fake provider: ledger rows and costs, model resolution, budget, concurrency cap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pLimit from 'p-limit';
import { createBudget } from '../../src/llm/budget.js';
import { AGENT_HEADER } from '../../src/llm/chat.js';
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

test('refused and truncated answers are recorded with their own outcomes', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.refusal(), fakeReply.truncated());
  const refused = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  const truncated = await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  assert.equal(refused.judgement.outcome, 'refused');
  assert.equal(truncated.finishReason, 'length');
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['refused', 'truncated']);
});

test('usage that is not a non-negative safe integer is replaced by our estimate: it never credits the budget', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(
    fakeReply.text('ok', { promptTokens: -5_000_000, completionTokens: 1 }),
    fakeReply.text('ok', { promptTokens: 10, completionTokens: 2.5, cachedTokens: 50 }),
  );
  const budget = createBudget({ maxTokens: 10_000, maxCostUsd: 0.01 });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100, budget });
  await h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 100, budget });
  const [negative, fractional] = h.ledger.entries();
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
