// /metrics after real runs: valid Prometheus text, every family the operators' dashboards read, bounded labels.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agents } from '../../src/agents/types.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { startTestWorker } from '../support/worker.js';
import { pool, recordedRun, runToEnd, startLlmRig, type LlmRig } from './llm-run.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A strict reader of the text exposition format: every line is a comment or `name{labels} value`. */
export function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      assert.ok(m, `malformed comment: ${line}`);
      if (m[1] === 'TYPE') types.set(m[2]!, m[3]!);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    assert.ok(m, `malformed sample: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
    let consumed = 0;
    for (let p = pair.exec(body); p; p = pair.exec(body)) {
      labels[p[1]!] = p[2]!;
      consumed = pair.lastIndex;
    }
    assert.equal(consumed, body.length, `malformed labels: ${line}`);
    const value = Number(m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : m[3]);
    // NaN in any case: prom-client writes "Nan" (an idle event loop has no lag sample yet), which Prometheus parses.
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(m[3]!), `malformed value: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

async function scrape(rt: TestRuntime) {
  const res = await rt.app!.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  return parsePrometheus(res.body);
}

const sum = (samples: Sample[], name: string, where: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

let rig: LlmRig;
before(async () => {
  rig = await startLlmRig();
  await recordedRun(rig.rt);
  // A budget too small for even the first call: a budget stop, not a failure.
  const stopped = await runToEnd(rig.rt, { budget: { maxTokens: 1000, maxCostUsd: 2 } });
  assert.equal(stopped.stop.reason, 'budget');
});
after(() => rig.close());

test('/metrics is Prometheus text and carries every family, with values, after an llm run', async () => {
  const { samples, types } = await scrape(rig.rt);
  const families = [
    ['http_request_duration_seconds', 'histogram'],
    ['matching_runs_started_total', 'counter'],
    ['matching_runs_finished_total', 'counter'],
    ['matching_runs_queue_depth', 'gauge'],
    ['matching_runs_oldest_queued_age_seconds', 'gauge'],
    ['model_call_duration_seconds', 'histogram'],
    ['model_tokens_total', 'counter'],
    ['model_cost_usd_total', 'counter'],
    ['structured_output_reasks_total', 'counter'],
    ['candidates_unscored_total', 'counter'],
    ['matching_runs_budget_stops_total', 'counter'],
    ['db_pool_connections', 'gauge'],
    ['db_pool_waiting_requests', 'gauge'],
  ] as const;
  for (const [name, type] of families) {
    assert.equal(types.get(name), type, `${name} is declared a ${type}`);
    assert.ok(samples.some((s) => s.name === name || s.name.startsWith(`${name}_`)), `${name} has samples`);
  }
  assert.ok(sum(samples, 'http_request_duration_seconds_count', { route: '/v1/matching-runs/:id', method: 'GET', status: '200' }) > 0);
  assert.ok(sum(samples, 'http_request_duration_seconds_count', { route: '/v1/candidates', method: 'POST', status: '200' }) >= 1);
  assert.equal(sum(samples, 'matching_runs_started_total', { engine: 'llm' }), 2);
  assert.equal(sum(samples, 'matching_runs_finished_total', { status: 'succeeded', reason: 'reflector' }), 1);
  assert.equal(sum(samples, 'matching_runs_finished_total', { status: 'succeeded', reason: 'budget' }), 1);
  assert.equal(sum(samples, 'matching_runs_budget_stops_total'), 1);
  assert.equal(sum(samples, 'matching_runs_queue_depth'), 0);
  for (const agent of ['queryExpander', 'reranker', 'scorer', 'reflector']) {
    assert.ok(sum(samples, 'model_call_duration_seconds_count', { agent, model: 'fake-chat', outcome: 'ok' }) > 0, agent);
    assert.ok(sum(samples, 'model_tokens_total', { agent, kind: 'prompt' }) > 0, agent);
    assert.ok(sum(samples, 'model_cost_usd_total', { agent, outcome: 'ok' }) > 0, agent);
  }
  assert.ok(sum(samples, 'model_call_duration_seconds_count', { agent: 'scorer', outcome: 'error' }) >= 1, 'the 500 is an error sample');
  assert.ok(sum(samples, 'model_call_duration_seconds_count', { agent: 'scorer', outcome: 'invalid_output' }) >= 3);
  // The reask candidate was re-asked once, the unscorable one once before giving up.
  assert.equal(sum(samples, 'structured_output_reasks_total', { agent: 'scorer' }), 2);
  assert.equal(sum(samples, 'candidates_unscored_total'), 1);
  // Parts of one whole: in use and idle add up to the pool's connections; waiting requests are counted apart.
  assert.ok(sum(samples, 'db_pool_connections', { state: 'in_use' }) + sum(samples, 'db_pool_connections', { state: 'idle' }) >= 1);
  assert.deepEqual([...new Set(samples.filter((s) => s.name === 'db_pool_connections').map((s) => s.labels.state))].sort(), ['idle', 'in_use']);
  assert.ok(sum(samples, 'db_pool_waiting_requests', {}) >= 0);
  const tokens = sum(samples, 'model_tokens_total', { kind: 'prompt' }) + sum(samples, 'model_tokens_total', { kind: 'completion' });
  assert.equal(tokens, rig.served.promptTokens + rig.served.completionTokens, 'token counters agree with the provider');
});

test('label sets stay bounded: no ids in any label value, few series per family', async () => {
  // Requests that could leak ids or paths into labels if routes were not patterns.
  await rig.rt.app!.inject({ url: `/v1/matching-runs/${crypto.randomUUID()}`, headers: rig.rt.auth() });
  await rig.rt.app!.inject({ url: `/no/such/${crypto.randomUUID()}` });
  const { samples } = await scrape(rig.rt);
  for (const s of samples) {
    for (const [k, v] of Object.entries(s.labels)) assert.doesNotMatch(v, UUID, `${s.name}{${k}="${v}"} carries an id`);
  }
  const routes = new Set(samples.filter((s) => s.name === 'http_request_duration_seconds_count').map((s) => s.labels.route));
  assert.ok(routes.has('unmatched'), `unknown paths collapse into one label: ${[...routes].join(' ')}`);
  assert.ok([...routes].every((r) => !r?.startsWith('/no/')), 'a raw path is never a label');
  const series = new Map<string, number>();
  for (const s of samples) series.set(s.name, (series.get(s.name) ?? 0) + 1);
  for (const [name, n] of series) assert.ok(n < 400, `${name} has ${n} series`);
});

test('heuristic engine: a candidate its scorer leaves unscored is counted too', async () => {
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  try {
    assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool() } })).statusCode, 200);
    const unscoredIds: string[] = [];
    const refuseOne = (agents: Agents): Agents => ({
      ...agents,
      scorer: {
        score: async (input, ctx) => {
          if (unscoredIds.length === 0) {
            unscoredIds.push(input.candidate.id);
            return { status: 'unscored', reason: 'no usable resume text' };
          }
          return agents.scorer.score(input, ctx);
        },
      },
    });
    const worker = startTestWorker(rt, { wrap: refuseOne });
    try {
      const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, scoreLimit: 4 } });
      assert.equal(res.statusCode, 202);
      const run = await waitFor(async () => {
        const r = (await rt.app!.inject({ url: `/v1/matching-runs/${res.json().id}`, headers: rt.auth() })).json();
        return r.status === 'succeeded' ? r : null;
      }, 30_000, 'the heuristic run');
      assert.equal(run.engine, 'heuristic');
      assert.equal(unscoredIds.length, 1);
    } finally {
      await worker.stop(2000);
    }
    const { samples } = await scrape(rt);
    assert.equal(sum(samples, 'candidates_unscored_total'), 1);
    assert.equal(sum(samples, 'matching_runs_finished_total', { status: 'succeeded' }), 1);
  } finally {
    await rt.close();
  }
});

test('runs no worker finishes are counted too; the queue gauges read NaN while the database does not answer', async (t) => {
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  t.after(() => rt.close());
  const start = async () => (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } })).json().id as string;
  const finished = async (status: string, reason: string) => sum((await scrape(rt)).samples, 'matching_runs_finished_total', { status, reason });

  // A queued run cancelled: the API finished it.
  const queued = await start();
  assert.equal((await rt.app!.inject({ method: 'POST', url: `/v1/matching-runs/${queued}/cancel`, headers: rt.auth() })).statusCode, 202);
  assert.equal(await finished('cancelled', 'cancelled'), 1);

  // A run whose worker died on its last attempt: the heartbeat's sweep ends it, and counts it.
  const exhausted = await start();
  await rt.db.query("UPDATE matching_runs SET status = 'running', attempts = 3, lease_owner = 'gone', lease_expires_at = now() - interval '1 minute' WHERE id = $1", [exhausted]);
  const worker = startTestWorker(rt, { maxAttempts: 3 });
  try {
    await waitFor(async () => (await rt.services.runs.get((await rt.services.apiKeys.verify(rt.apiKey))!.orgId, exhausted)).status === 'failed', 10_000, 'the sweep');
    await waitFor(async () => (await finished('failed', 'error')) === 1, 5_000, 'the sweep to be counted');
  } finally {
    await worker.stop(1_000);
  }

  const gauges = async () => {
    const { samples } = await scrape(rt);
    return ['matching_runs_queue_depth', 'matching_runs_oldest_queued_age_seconds'].map((name) => samples.find((s) => s.name === name)!.value);
  };
  await start();
  assert.equal((await gauges())[0], 1);
  const query = rt.db.query.bind(rt.db);
  rt.db.query = ((text: string, values?: unknown[]) =>
    /status = 'queued'/.test(text) ? Promise.reject(new Error('Connection terminated unexpectedly')) : query(text, values)) as typeof rt.db.query;
  try {
    assert.deepEqual((await gauges()).map(Number.isNaN), [true, true], 'unknown, not the last value');
  } finally {
    rt.db.query = query;
  }
  assert.equal((await gauges())[0], 1);
});
