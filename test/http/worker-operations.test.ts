// A worker process (PROCESS_ROLE=worker) serves the operations routes alone: /healthz, /readyz that means "ready to
// work", and /metrics with the series of the runs it drives. Time is the test's clock, never a wall-clock threshold.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RoleInputSchema } from '../../src/roles/role-schemas.js';
import { RunParamsSchema } from '../../src/runs/run-schemas.js';
import { stallBoundMs } from '../../src/runs/worker-liveness.js';
import { testClock } from '../support/clock.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';
import { gate } from '../support/worker.js';

// An idle loop passes once a minute unless a queued run wakes it; the heartbeat completes every 100 ms of real time.
const POLL_MS = 60_000;
const HEARTBEAT_MS = 100;
const BOUND_MS = stallBoundMs({ pollMs: POLL_MS, heartbeatMs: HEARTBEAT_MS });

let server: FakeLlmServer;
let rt: TestRuntime;
let orgId: string;
const clock = testClock();
const t0 = Date.now();
/** Set by a test: scorer requests wait on it, and `scoring` opens when the first arrives. */
let held: { scorerGate: ReturnType<typeof gate>; scoring: ReturnType<typeof gate> } | null = null;

before(async () => {
  server = await startFakeLlmServer();
  const model = scriptedModel({ reflect: () => ({ stop: true, reasoning: 'Enough for a test.', hints: [] }) });
  server.setHandler(async (req) => {
    if (req.agent === 'scorer' && held) {
      held.scoring.open();
      await held.scorerGate.opened;
    }
    return model(req);
  });
  // Stopped before the worker starts: every pass it makes is stamped with an instant the test chose.
  clock.set(t0);
  rt = await startTestRuntime(
    {
      PROCESS_ROLE: 'worker',
      MATCH_ENGINE: 'llm',
      LLM_BASE_URL: server.url,
      LLM_MODEL: 'fake-chat',
      WORKER_POLL_MS: String(POLL_MS),
      RUN_HEARTBEAT_MS: String(HEARTBEAT_MS),
      RUN_LEASE_MS: '2000',
      // A drain lasts until the test lets the run in flight finish.
      SHUTDOWN_GRACE_MS: '600000',
    },
    { now: clock.now },
  );
  orgId = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;
  await rt.services.candidates.upsert(orgId, backendPool());
});

after(async () => {
  held?.scorerGate.open();
  await rt?.close();
  await server?.close();
});

/** A run started as the API would start it (this process has no /v1): the worker hears of it at once. */
async function startRun(): Promise<string> {
  const params = RunParamsSchema.parse({ maxIterations: 1, scoreLimit: 3, targetStrong: 50 });
  return (await rt.services.runs.start({ orgId, role: RoleInputSchema.parse(GO_ROLE), params })).runId;
}

async function finished(runId: string) {
  return waitFor(async () => {
    const run = await rt.services.runs.get(orgId, runId);
    return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, 60_000, `run ${runId} to finish`);
}

/** The sum of a family's samples whose labels include `labels` (test/observability/metrics.test.ts reads the format strictly). */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const m of text.matchAll(/^([a-z_]+)(?:\{(.*)\})? (\S+)$/gm)) {
    const own = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (m[1] === name && Object.entries(labels).every(([k, v]) => own[k] === v)) total += Number(m[3]);
  }
  return total;
}

test('a worker answers /healthz, /readyz and /metrics without a key, with request ids and the security headers', async () => {
  const health = await rt.app.inject({ url: '/healthz', headers: { 'x-request-id': 'probe-1' } });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), { status: 'ok' });
  assert.equal(health.headers['x-request-id'], 'probe-1');
  assert.equal(health.headers['x-content-type-options'], 'nosniff');
  const ready = await rt.app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 200, ready.body);
  assert.deepEqual(ready.json(), { status: 'ready' });
  assert.match(String(ready.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const metrics = await rt.app.inject({ url: '/metrics' });
  assert.equal(metrics.statusCode, 200);
  assert.match(String(metrics.headers['content-type']), /^text\/plain/);
  assert.match(metrics.body, /^# TYPE matching_runs_finished_total counter$/m);
});

test('a worker serves no API, documentation or page: those are 404 problem documents like any unknown route', async () => {
  const asked = [
    { method: 'GET', url: '/v1/roles' },
    { method: 'POST', url: '/v1/matching-runs', payload: { role: GO_ROLE } },
    { method: 'GET', url: '/v1/usage' },
    { method: 'GET', url: '/docs' },
    { method: 'GET', url: '/docs/json' },
    { method: 'GET', url: '/' },
    { method: 'GET', url: '/index.html' },
  ] as const;
  for (const req of asked) {
    const res = await rt.app.inject({ ...req, headers: rt.auth() });
    assert.equal(res.statusCode, 404, `${req.method} ${req.url}: ${res.body}`);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8', `${req.method} ${req.url}`);
    assert.equal(res.json().type, 'https://talent-matcher.dev/problems/not_found');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  }
});

test("/readyz is 503 once the claim loop has not passed within the bound, and ready again when it passes; the worker's runs are in its /metrics", async () => {
  // The loop is asleep for its poll; the test's clock moves past the bound while the heartbeat keeps completing.
  clock.set(t0 + BOUND_MS + 1);
  const stalled = await rt.app.inject({ url: '/readyz' });
  assert.equal(stalled.statusCode, 503, stalled.body);
  assert.equal(stalled.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.equal(stalled.json().type, 'https://talent-matcher.dev/problems/not_ready');
  assert.match(stalled.json().detail, new RegExp(`claim loop has not begun a pass for ${BOUND_MS + 1} ms \\(the bound is ${BOUND_MS} ms\\)`));
  assert.equal((await rt.app.inject({ url: '/healthz' })).statusCode, 200, 'the process is up all the same');

  // A queued run wakes the loop: it passes, claims and drives the run.
  const runId = await startRun();
  await waitFor(async () => (await rt.app.inject({ url: '/readyz' })).statusCode === 200, 20_000, 'the worker to be ready again');
  const run = await finished(runId);
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));

  const text = (await rt.app.inject({ url: '/metrics' })).body;
  assert.equal(value(text, 'matching_runs_started_total', { engine: 'llm' }), 1);
  assert.equal(value(text, 'matching_runs_finished_total', { status: 'succeeded' }), 1);
  assert.ok(value(text, 'model_call_duration_seconds_count', { agent: 'scorer', outcome: 'ok' }) >= 1, text);
  assert.ok(value(text, 'model_tokens_total', { agent: 'scorer', kind: 'prompt' }) > 0);
  assert.ok(value(text, 'model_cost_usd_total') > 0);
});

test('while a worker drains on shutdown, /readyz and the other routes answer 503', async () => {
  held = { scorerGate: gate(), scoring: gate() };
  const runId = await startRun();
  await held.scoring.opened;
  const closing = rt.close();
  try {
    for (const url of ['/readyz', '/healthz', '/metrics']) {
      const res = await rt.app.inject({ url });
      assert.equal(res.statusCode, 503, `${url}: ${res.body}`);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.headers['retry-after'], `${url} says when to retry`);
    }
    assert.deepEqual(rt.worker!.activeRuns(), [runId], 'the drain is waiting on the run in flight');
  } finally {
    held.scorerGate.open();
    await closing;
  }
  const end = rt.logs.find((l) => l.runId === runId && /^run (succeeded|failed|cancelled)/.test(String(l.msg)));
  assert.match(String(end?.msg), /^run succeeded/, 'the run in flight finished within the grace period');
});

test('/readyz is 503 once the lease heartbeat has not completed within the bound, and when the worker is stopped', async () => {
  // Another worker process: its loop passes every 10 ms, its heartbeat would first tick after ten minutes.
  const own = testClock();
  const t1 = Date.now();
  own.set(t1);
  const w = await startTestRuntime(
    { PROCESS_ROLE: 'worker', MATCH_ENGINE: 'heuristic', WORKER_POLL_MS: '10', RUN_HEARTBEAT_MS: '600000', RUN_LEASE_MS: '1200000' },
    { now: own.now },
  );
  try {
    const bound = stallBoundMs({ pollMs: 10, heartbeatMs: 600_000 });
    assert.equal((await w.app.inject({ url: '/readyz' })).statusCode, 200);
    own.set(t1 + bound + 1);
    // The loop passes again within its 10 ms poll; the heartbeat cannot.
    const stalled = await waitFor(async () => {
      const res = await w.app.inject({ url: '/readyz' });
      const body = res.json<{ detail: string }>();
      return res.statusCode === 503 && /heartbeat/.test(body.detail) ? body : null;
    }, 20_000, 'a 503 naming the heartbeat');
    assert.match(stalled.detail, new RegExp(`lease heartbeat has not completed for ${bound + 1} ms \\(the bound is ${bound} ms\\)`));

    own.set(t1);
    assert.equal((await w.app.inject({ url: '/readyz' })).statusCode, 200, 'ready again on the clock the heartbeat last completed at');
    await w.worker!.stop(0);
    const stopped = await w.app.inject({ url: '/readyz' });
    assert.equal(stopped.statusCode, 503, stopped.body);
    assert.match(stopped.json().detail, /The worker is stopping: it claims no more runs/);
    assert.equal((await w.app.inject({ url: '/healthz' })).statusCode, 200, 'the process is up all the same');
  } finally {
    await w.close();
  }
});
