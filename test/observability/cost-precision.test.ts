// The ledger keeps a call's cost as priced (to 1e-10 USD): a cheap call is not recorded as free, and the sums that
// usage, run totals, budgets and metrics read back agree with each other and with what was charged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createUsageSink } from '../../src/llm/engine.js';
import type { LedgerEntry } from '../../src/llm/ledger.js';
import { costUsd, loadModelRegistry } from '../../src/llm/model-registry.js';
import { createMetrics } from '../../src/metrics.js';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
let orgId: string;

before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  orgId = (await rt.services.apiKeys.verify(rt.apiKey))!.orgId;
});
after(async () => rt.close());

test('sub-micro-dollar calls (a run’s query embeddings) are charged in the ledger, run usage, /v1/usage and metrics alike', async () => {
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE } });
  assert.equal(res.statusCode, 202, res.body);
  const runId = res.json<{ id: string }>().id;
  const registry = loadModelRegistry();
  // Three short search queries embedded by text-embedding-3-small: 20 tokens, $0.0000004 a call.
  const embedding = costUsd(registry.embedding('text-embedding-3-small')!, { promptTokens: 20, completionTokens: 0 });
  // A scorer call whose price has more than six decimals.
  const scorer = costUsd(registry.chat('gpt-4o-mini')!, { promptTokens: 2_345, completionTokens: 321 });
  assert.equal(embedding, 4e-7);
  assert.equal(scorer, 0.00054435);
  const row = (agent: string, model: string, promptTokens: number, completionTokens: number, cost: number): LedgerEntry => ({
    orgId, runId, agent, model, promptTokens, cachedTokens: 0, completionTokens, costUsd: cost, latencyMs: 5, outcome: 'ok', requestId: null, attempt: 1,
  });
  const metrics = createMetrics({ defaultMetrics: false });
  const sink = createUsageSink({ usage: rt.services.journal, metrics });
  const entries = [
    ...Array.from({ length: 10 }, () => row('embedder', 'text-embedding-3-small', 20, 0, embedding)),
    ...Array.from({ length: 3 }, () => row('scorer', 'gpt-4o-mini', 2_345, 321, scorer)),
  ];
  for (const e of entries) await sink.record(e);
  await rt.services.journal.flush();

  const charged = 10 * 4e-7 + 3 * 0.00054435;
  const close = (actual: number, what: string) => assert.ok(Math.abs(actual - charged) < 1e-12, `${what}: ${actual}, charged ${charged}`);
  close((await rt.services.usage.runTotals(runId)).costUsd, 'the run’s totals read back on a claim');
  close(await runUsage(runId), 'the run’s usage');
  const report = (await rt.app!.inject({ url: '/v1/usage?groupBy=agent', headers: rt.auth() })).json<{ items: Array<{ key: string; costUsd: number }>; total: { costUsd: number } }>();
  close(report.total.costUsd, '/v1/usage total');
  assert.ok(Math.abs(report.items.find((i) => i.key === 'embedder')!.costUsd - 4e-6) < 1e-12, 'ten query embeddings are not free');
  const metric = (await metrics.modelCost.get()).values.reduce((n, v) => n + v.value, 0);
  close(metric, 'model_cost_usd_total');
});

async function runUsage(runId: string): Promise<number> {
  const r = await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() });
  return r.json<{ usage: { costUsd: number } }>().usage.costUsd;
}
