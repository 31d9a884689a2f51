// A provider that refuses for a while (a rate limit, an outage) is waited out between a run's attempts: claimed again
// at once, a run spent every attempt within seconds while the provider still refused, and failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModelCallError } from '../../src/llm/errors.js';
import { MAX_PROVIDER_PAUSE_MS, providerPause, RATE_LIMIT_PAUSE_MS } from '../../src/runs/run-ending.js';
import { fakeReply, startFakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';

const LLM = { MATCH_ENGINE: 'llm', LLM_MODEL: 'fake-chat', LLM_MAX_RETRIES: '0' };

async function events(rt: Awaited<ReturnType<typeof startTestRuntime>>, id: string) {
  return (await rt.app!.inject({ url: `/v1/matching-runs/${id}/events?limit=100`, headers: rt.auth() })).json().items as Array<{ type: string; data: Record<string, unknown> }>;
}

test('a rate-limited run waits the pause the provider asked for, is not charged an attempt, and then succeeds', async (t) => {
  const server = await startFakeLlmServer();
  const model = scriptedModel();
  const expanderAt: number[] = [];
  server.setHandler((req) => {
    if (req.agent !== 'queryExpander') return model(req);
    expanderAt.push(Date.now());
    return expanderAt.length <= 3 ? fakeReply.rateLimited({ retryAfterSeconds: 1 }) : model(req);
  });
  // One attempt allowed: a rate limit counted as one would fail the run at its first refusal.
  const rt = await startTestRuntime({ ...LLM, LLM_BASE_URL: server.url, RUN_MAX_ATTEMPTS: '1' });
  t.after(async () => {
    await rt.close();
    await server.close();
  });
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool() } })).statusCode, 200);
  const id = (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 2 } })).json().id as string;
  const run = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return r.status === 'running' || r.status === 'queued' ? null : r;
  }, 30_000, 'the run to end');
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
  assert.ok(run.shortlist.length > 0);
  assert.equal(expanderAt.length, 4);
  for (let i = 1; i < 4; i++) assert.ok(expanderAt[i]! - expanderAt[i - 1]! >= 950, `asked again ${expanderAt[i]! - expanderAt[i - 1]!} ms after a 1 s Retry-After`);
  const retrying = (await events(rt, id)).filter((e) => e.type === 'run.retrying');
  assert.equal(retrying.length, 3);
  assert.ok(retrying.every((e) => e.data.retryInMs === 1000 && /429/.test(String(e.data.error))), JSON.stringify(retrying));
  // Each pause is a warning that says the run goes on; a run that succeeded logged no error.
  const ofRun = rt.logs.filter((l) => l.runId === id);
  assert.deepEqual(ofRun.filter((l) => Number(l.level) >= 50).map((l) => l.msg), []);
  const paused = ofRun.filter((l) => l.msg === 'run attempt failed; handed back to be tried again');
  assert.deepEqual(paused.map((l) => [l.level, l.willRetry, l.countAttempt, l.retryInMs]), Array(3).fill([40, true, false, 1000]));
});

test('a run asked to cancel while it waits out a long pause ends cancelled at once, not after the pause', async (t) => {
  const server = await startFakeLlmServer();
  const model = scriptedModel();
  // Longer than the in-call retries ever wait: the attempt ends at once and the run waits two minutes.
  server.setHandler((req) => (req.agent === 'queryExpander' ? fakeReply.rateLimited({ retryAfterSeconds: 120 }) : model(req)));
  const rt = await startTestRuntime({ ...LLM, LLM_BASE_URL: server.url });
  t.after(async () => {
    await rt.close();
    await server.close();
  });
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: backendPool() } })).statusCode, 200);
  const id = (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } })).json().id as string;
  await waitFor(async () => (await events(rt, id)).some((e) => e.type === 'run.retrying'), 20_000, 'the first refusal');
  // Several of the worker's polls and heartbeats pass: the run waits, asked once, and is not failed.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const waiting = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
  assert.equal(waiting.status, 'running');
  assert.equal(server.chatRequests().filter((r) => r.agent === 'queryExpander').length, 1);
  assert.equal((await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${id}/cancel`, headers: rt.auth() })).statusCode, 202);
  const ended = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return r.status === 'cancelled' ? r : null;
  }, 10_000, 'the run to be cancelled');
  assert.equal(ended.stop.reason, 'cancelled');
});

test('the pause: a rate limit waits as asked (or 30 s) uncounted; an outage doubles counted; other failures go back at once', () => {
  const failure = (kind: ModelCallError['kind'], status: number | null, retryAfterMs: number | null, retryable = true) =>
    new ModelCallError({ agent: 'scorer', model: 'm', status, retryable, attempts: 1, cause: new Error('x'), kind, retryAfterMs });
  assert.deepEqual(providerPause(failure('rate_limited', 429, 45_000), 1), { countAttempt: false, delayMs: 45_000 });
  assert.deepEqual(providerPause(failure('rate_limited', 429, null), 2), { countAttempt: false, delayMs: RATE_LIMIT_PAUSE_MS });
  assert.deepEqual(providerPause(failure('rate_limited', 429, 3_600_000), 1), { countAttempt: false, delayMs: MAX_PROVIDER_PAUSE_MS });
  assert.deepEqual(providerPause(failure('rate_limited', 429, 0), 1), { countAttempt: false, delayMs: 1_000 });
  assert.deepEqual([1, 2, 3].map((n) => providerPause(failure('server', 503, null), n)), [5_000, 10_000, 20_000].map((delayMs) => ({ countAttempt: true, delayMs })));
  assert.deepEqual(providerPause(failure('server', 503, 60_000), 1), { countAttempt: true, delayMs: 60_000 });
  assert.deepEqual(providerPause(failure('connection', null, null), 9), { countAttempt: true, delayMs: MAX_PROVIDER_PAUSE_MS });
  assert.deepEqual(providerPause(failure('quota', 429, null, false), 1), { countAttempt: true, delayMs: 0 });
  assert.deepEqual(providerPause(failure('client', 400, null, false), 1), { countAttempt: true, delayMs: 0 });
  assert.deepEqual(providerPause(new Error('database gone'), 1), { countAttempt: true, delayMs: 0 });
});
