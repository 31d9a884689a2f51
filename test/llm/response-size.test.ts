// Answers past the body cap (a hostile or broken model server): refused at the cap, socket closed, a named failure
// of the attempt with its ledger row, charged as its status says, never retried into more of the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLlmEmbedder } from '../../src/embeddings/llm-embedder.js';
import { createBudget } from '../../src/llm/budget.js';
import { ModelCallError } from '../../src/llm/errors.js';
import { fakeReply } from '../support/fake-llm-server.js';
import { ORG, setupLlm } from './harness.js';

const hello = [{ role: 'user' as const, content: 'hello' }];
// A low cap keeps the tests fast and light: a 1 MiB answer is 16 times over it.
const CAP = 64 * 1024;
const LIMIT = /passed the 65536-byte limit/;

test('an answer over the cap fails its attempt by name: one ledger row, charged (a 200 is billed), not retried', async (t) => {
  const h = await setupLlm({ settings: { maxResponseBytes: CAP, maxRetries: 2 } });
  t.after(h.close);
  h.server.script(fakeReply.large(1024 * 1024));
  const budget = createBudget({ maxTokens: 100_000 });
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: 'run_1', messages: hello, maxTokens: 10, budget }), (err: unknown) => {
    assert.ok(err instanceof ModelCallError, String(err));
    assert.equal(err.retryable, false);
    assert.equal(err.status, 200);
    assert.match(err.message, LIMIT);
    return true;
  });
  assert.equal(h.server.requests.length, 1, 'not retried: asking again would likely pay again for the same answer');
  const rows = h.ledger.entries();
  assert.deepEqual(rows.map((e) => [e.outcome, e.attempt, e.requestId, e.completionTokens, e.tokensEstimated]), [['error', 1, 'req_fake_1', 0, true]]);
  assert.match(rows[0]!.error ?? '', LIMIT);
  assert.ok(rows[0]!.promptTokens > 0 && rows[0]!.costUsd > 0, 'charged its estimated prompt');
  assert.deepEqual(budget.snapshot().spent, { tokens: rows[0]!.promptTokens, costUsd: rows[0]!.costUsd, calls: 1 });
  assert.equal(budget.snapshot().openReservations, 0);
});

test('an endless answer is cut at the cap and its socket closed; an over-size error answer costs nothing; the next call is served', async (t) => {
  // Were the cap not enforced, the endless answer would be read until this timeout and fail as a timeout, not by the
  // cap's name. (What tells the two apart is that name and the ledger's outcome, not a wall-clock bound.)
  const h = await setupLlm({ settings: { maxResponseBytes: CAP, maxRetries: 0, timeoutMs: 1_500 } });
  t.after(h.close);
  h.server.script(fakeReply.endless(), fakeReply.large(1024 * 1024, 500), fakeReply.text('fine'));
  const send = () => h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 });
  await assert.rejects(send(), LIMIT);
  await assert.rejects(send(), (err: unknown) => err instanceof ModelCallError && err.status === 500 && LIMIT.test(err.message));
  // The endless stream ends only when the client closes the socket: once the server has seen the close, nothing is in flight.
  for (const until = Date.now() + 2_000; h.server.inFlight > 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 5));
  assert.equal(h.server.inFlight, 0);
  assert.equal((await send()).message.content, 'fine');
  assert.deepEqual(h.ledger.entries().map((e) => [e.outcome, e.costUsd > 0, e.tokensEstimated ?? false]), [
    ['error', true, true],
    ['error', false, false],
    ['ok', true, false],
  ]);
});

test('an embeddings answer over the cap is the same named failure, with its ledger row', async (t) => {
  const h = await setupLlm({ settings: { maxResponseBytes: CAP, maxRetries: 2 } });
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  h.server.script(fakeReply.large(1024 * 1024));
  await assert.rejects(embedder.embed(['rust'], { orgId: ORG }), (err: unknown) => err instanceof ModelCallError && !err.retryable && LIMIT.test(err.message));
  assert.equal(h.server.requests.length, 1);
  assert.deepEqual(h.ledger.entries().map((e) => [e.agent, e.outcome, e.requestId, e.tokensEstimated]), [['embedder', 'error', 'req_fake_1', true]]);
  assert.match(h.ledger.entries()[0]!.error ?? '', LIMIT);
});

test('a chat answer is capped at 2 MiB whatever the configured cap, which embedding answers keep', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 0 } });
  t.after(h.close);
  const embedder = createLlmEmbedder({ client: h.client, registry: h.registry, settings: h.settings, ledger: h.ledger });
  const size = 3 * 1024 * 1024;
  h.server.script(fakeReply.large(size), fakeReply.large(size));
  await assert.rejects(h.caller.call({ agent: 'scorer', orgId: ORG, runId: null, messages: hello, maxTokens: 10 }), /passed the 2097152-byte limit/);
  // Read whole under the configured 32 MiB: refused for what it holds, not for its size.
  await assert.rejects(embedder.embed(['rust'], { orgId: ORG }), (err: unknown) => err instanceof Error && !/byte limit/.test(err.message));
});
