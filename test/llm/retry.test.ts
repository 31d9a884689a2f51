// Retries through the real openai client against the fake provider: counts, waits, fail-fast cases and deadlines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { DeadlineExceededError, ModelCallError } from '../../src/llm/errors.js';
import { ResponseTooLargeError } from '../../src/llm/http-fetch.js';
import { backoffDelay, classifyFailure, mayBeBilled, retryAfterMs, withRetry } from '../../src/llm/retry.js';
import { fakeReply } from '../support/fake-llm-server.js';
import { ORG, setupLlm } from './harness.js';

const ask = (h: Awaited<ReturnType<typeof setupLlm>>, extra: { deadline?: number; signal?: AbortSignal } = {}) =>
  h.caller.call({ agent: 'reranker', orgId: ORG, runId: 'run_1', messages: [{ role: 'user', content: 'hi' }], maxTokens: 50, ...extra });

test('a 500 with maxRetries 2 is sent exactly 3 times: the SDK adds no retries of its own', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 2 } });
  t.after(h.close);
  h.server.script(fakeReply.serverError(), fakeReply.serverError(), fakeReply.serverError(), fakeReply.text('never reached'));
  const err = await ask(h).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ModelCallError);
  assert.equal(err.status, 500);
  assert.equal(err.retryable, true);
  assert.equal(err.attempts, 3);
  assert.equal(err.agent, 'reranker');
  assert.equal(err.model, 'fake-chat');
  assert.ok(err.cause instanceof APIError);
  assert.equal(h.server.requests.length, 3);
  assert.deepEqual(h.ledger.entries().map((e) => [e.attempt, e.outcome]), [[1, 'error'], [2, 'error'], [3, 'error']]);
});

test('a 500 then an answer succeeds on the second attempt with one ledger row each', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.serverError(503), fakeReply.text('fine'));
  const res = await ask(h);
  assert.equal(res.message.content, 'fine');
  assert.equal(res.attempts, 2);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['error', 'ok']);
  assert.equal(h.ledger.entries()[0]?.requestId, 'req_fake_1');
});

test('Retry-After (seconds) is honoured: the second request arrives after the indicated delay', async (t) => {
  const h = await setupLlm({ settings: { retryBaseMs: 1 } });
  t.after(h.close);
  h.server.script(fakeReply.rateLimited({ retryAfterSeconds: 0.3 }), fakeReply.text('ok'));
  await ask(h);
  const [first, second] = h.server.requests;
  assert.ok(first && second);
  const gap = second.receivedAt - first.receivedAt;
  assert.ok(gap >= 295, `second request came after ${gap} ms, expected >= 300`);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['rate_limited', 'ok']);
});

test('retry-after-ms is honoured and preferred over retry-after', async (t) => {
  const h = await setupLlm({ settings: { retryBaseMs: 1 } });
  t.after(h.close);
  h.server.script(fakeReply.rateLimited({ retryAfterMs: 200, retryAfterSeconds: 5 }), fakeReply.text('ok'));
  await ask(h);
  // Measured between the two requests' arrivals: the 5 s wait would put them at least 5 s apart, and seconds of
  // margin below that leave room for a loaded machine.
  const gap = h.server.requests[1]!.receivedAt - h.server.requests[0]!.receivedAt;
  assert.ok(gap >= 195, `gap ${gap}`);
  assert.ok(gap < 4_000, `gap ${gap}: the 5 s retry-after was not used`);
});

test('insufficient_quota fails fast: exactly one request', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 3 } });
  t.after(h.close);
  h.server.script(fakeReply.insufficientQuota(), fakeReply.text('never'));
  const err = await ask(h).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ModelCallError);
  assert.equal(err.status, 429);
  assert.equal(err.retryable, false);
  assert.equal(h.server.requests.length, 1);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['rate_limited']);
});

for (const status of [400, 401, 403, 404]) {
  test(`a ${status} fails fast: exactly one request`, async (t) => {
    const h = await setupLlm({ settings: { maxRetries: 3 } });
    t.after(h.close);
    h.server.script(fakeReply.error(status, 'no'), fakeReply.text('never'));
    const err = await ask(h).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ModelCallError);
    assert.equal(err.status, status);
    assert.equal(err.retryable, false);
    assert.equal(h.server.requests.length, 1);
  });
}

test('a Retry-After that would pass the deadline gives up at once with DeadlineExceededError', async (t) => {
  // The deadline leaves the first attempt seconds (a loaded machine needs more than the 300 ms this had), and the
  // decision not to wait is read from the error rather than timed: the 5 s wait would have ended past the deadline.
  const h = await setupLlm({ settings: { retryMaxMs: 10_000 } });
  t.after(h.close);
  h.server.script(fakeReply.rateLimited({ retryAfterMs: 5_000 }), fakeReply.text('never'));
  const err = await ask(h, { deadline: Date.now() + 3_000 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof DeadlineExceededError, String(err));
  assert.match(err.message, /retry 1 would wait 5000 ms/, 'it gave up instead of sitting out the wait');
  assert.equal(h.server.requests.length, 1);
});

test('a Retry-After longer than retryMaxMs is not waited out', async (t) => {
  const h = await setupLlm({ settings: { retryMaxMs: 100 } });
  t.after(h.close);
  h.server.script(fakeReply.rateLimited({ retryAfterSeconds: 30 }), fakeReply.text('never'));
  const err = await ask(h).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ModelCallError);
  assert.equal(err.retryable, true);
  assert.equal(h.server.requests.length, 1);
});

test('a hanging provider times out per attempt, is retried, and each attempt is a timeout row', async (t) => {
  // Long enough for each attempt to reach the server on a loaded machine before it is timed out.
  const h = await setupLlm({ settings: { timeoutMs: 500, maxRetries: 1 } });
  t.after(h.close);
  h.server.script(fakeReply.hang(), fakeReply.hang());
  const err = await ask(h).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ModelCallError);
  assert.equal(h.server.requests.length, 2);
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['timeout', 'timeout']);
});

test('the deadline shortens the request timeout: a hang ends at the deadline, not at timeoutMs', async (t) => {
  // 3 s to the deadline: long enough for the attempt to reach the server on a loaded machine (200 ms was not), and
  // to be sent at all (a request with under MIN_REQUEST_MS left is not: 1 s raced the check).
  const h = await setupLlm({ settings: { timeoutMs: 10_000 } });
  t.after(h.close);
  h.server.script(fakeReply.hang());
  const started = Date.now();
  const err = await ask(h, { deadline: started + 3_000 }).then(() => null, (e: unknown) => e);
  const elapsed = Date.now() - started;
  assert.ok(err instanceof DeadlineExceededError, String(err));
  assert.ok(elapsed >= 2_990 && elapsed < 9_000, `elapsed ${elapsed} (timeoutMs is 10 s)`);
  assert.equal(h.server.requests.length, 1);
});

test('a dropped connection is retried', async (t) => {
  const h = await setupLlm();
  t.after(h.close);
  h.server.script(fakeReply.drop(), fakeReply.text('back'));
  const res = await ask(h);
  assert.equal(res.message.content, 'back');
  assert.deepEqual(h.ledger.entries().map((e) => e.outcome), ['error', 'ok']);
});

test('aborting the signal stops a hanging call without retries', async (t) => {
  const h = await setupLlm({ settings: { maxRetries: 3 } });
  t.after(h.close);
  h.server.script(fakeReply.hang());
  const controller = new AbortController();
  const pending = ask(h, { signal: controller.signal }).then(() => null, (e: unknown) => e);
  await h.server.waitForRequests(1);
  controller.abort();
  const err = await pending;
  assert.ok(err instanceof ModelCallError);
  assert.equal(err.retryable, false);
  assert.equal(h.server.requests.length, 1);
});

test('backoff is full jitter under an exponential ceiling capped at maxMs', () => {
  assert.equal(backoffDelay(1, 100, 1_000, () => 0), 0);
  assert.equal(backoffDelay(1, 100, 1_000, () => 0.999999), 99);
  assert.equal(backoffDelay(3, 100, 1_000, () => 0.999999), 399);
  assert.equal(backoffDelay(10, 100, 1_000, () => 0.999999), 999);
});

test('retry-after headers: milliseconds, seconds and HTTP dates', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(retryAfterMs(new Headers({ 'retry-after-ms': '150' })), 150);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2_000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now), 3_000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' })), null);
  assert.equal(retryAfterMs(new Headers()), null);
});

test('withRetry does not retry what its classifier calls permanent', async () => {
  let calls = 0;
  const err = await withRetry(
    async () => {
      calls++;
      throw new TypeError('a bug, not an outage');
    },
    { maxRetries: 5, baseMs: 1, maxMs: 1 },
  ).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof TypeError);
  assert.equal(calls, 1);
});

test('mayBeBilled: sent and unanswered attempts may be billed; refused and unsent ones are not', () => {
  const errno = (code: string) => Object.assign(new Error(code), { code });
  const status = (s: number) => APIError.generate(s, { error: { message: 'x' } }, 'x', new Headers());
  assert.equal(mayBeBilled(new APIConnectionTimeoutError()), true);
  assert.equal(mayBeBilled(new APIUserAbortError()), true);
  assert.equal(mayBeBilled(new APIConnectionError({ cause: errno('ECONNRESET') })), true);
  assert.equal(mayBeBilled(new APIConnectionError({ cause: errno('ECONNREFUSED') })), false);
  assert.equal(mayBeBilled(new APIConnectionError({ cause: errno('ENOTFOUND') })), false);
  assert.equal(mayBeBilled(status(504)), true);
  for (const s of [400, 408, 429, 500, 502, 503]) assert.equal(mayBeBilled(status(s)), false, String(s));
  assert.equal(mayBeBilled(new TypeError('a bug before sending')), false);
  // An answer over our cap, as the SDK reports it: the provider did the work of a 2xx (and a 504's upstream may have).
  const tooLarge = (s: number) => new APIConnectionError({ cause: new ResponseTooLargeError(1024, s, null) });
  for (const s of [200, 504]) assert.equal(mayBeBilled(tooLarge(s)), true, String(s));
  for (const s of [400, 429, 500, 503]) assert.equal(mayBeBilled(tooLarge(s)), false, String(s));
  assert.deepEqual(classifyFailure(tooLarge(200)), { kind: 'too_large', retryable: false, status: 200, retryAfterMs: null });
});
