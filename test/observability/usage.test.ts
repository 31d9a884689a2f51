// Cost read-back: GET /v1/usage and each run's usage equal the ledger, and the ledger equals what the provider reported.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { costUsd, loadModelRegistry } from '../../src/llm/model-registry.js';
import { recordedRun, runToEnd, startLlmRig, type LlmRig } from './llm-run.js';

let rig: LlmRig;
let runs: Array<{ id: string; usage: Record<string, number> }>;

before(async () => {
  rig = await startLlmRig();
  // Two runs, so per-run figures must split the ledger, not just repeat the organisation's total.
  runs = [await recordedRun(rig.rt), await runToEnd(rig.rt, { maxIterations: 1 })];
});
after(() => rig.close());

type LedgerSums = { calls: number; prompt: number; completion: number; cost: number; failed: number; estimated: number };

async function ledger(where: string, values: unknown[]): Promise<LedgerSums> {
  const r = await rig.rt.db.query<LedgerSums>(
    `SELECT count(*)::int AS calls, coalesce(sum(prompt_tokens), 0)::int AS prompt, coalesce(sum(completion_tokens), 0)::int AS completion,
            coalesce(sum(cost_usd), 0)::numeric AS cost, count(*) FILTER (WHERE outcome <> 'ok')::int AS failed,
            count(*) FILTER (WHERE tokens_estimated)::int AS estimated
     FROM model_calls WHERE ${where}`,
    values,
  );
  return r.rows[0]!;
}

async function usage(query: string, key?: string) {
  const res = await rig.rt.app!.inject({ url: `/v1/usage?${query}`, headers: rig.rt.auth(key) });
  assert.equal(res.statusCode, 200, res.body);
  type Figures = { llmCalls: number; estimatedCalls: number; promptTokens: number; completionTokens: number; costUsd: number };
  return res.json() as { items: Array<Figures & { key: string }>; total: Figures };
}

const window = () => `from=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;

test('the ledger holds what the fake provider reported: every answered attempt, at registry prices', async () => {
  const all = await ledger('true', []);
  assert.equal(all.prompt, rig.served.promptTokens);
  assert.equal(all.completion, rig.served.completionTokens);
  assert.ok(all.failed >= 3, 'the 500, the re-asked answer and the unscored candidate’s answers are rows too');
  const chatRequests = rig.server.chatRequests().length;
  assert.equal(all.calls, chatRequests, 'one row per request the provider saw, failed ones included');
  const price = costUsd(loadModelRegistry().chat('fake-chat')!, { promptTokens: rig.served.promptTokens, completionTokens: rig.served.completionTokens });
  assert.ok(Math.abs(all.cost - price) < 1e-6 * all.calls, `ledger cost ${all.cost} vs priced ${price}`);
});

test('GET /v1/usage: every grouping totals the ledger; groups partition it', async () => {
  const all = await ledger('true', []);
  for (const groupBy of ['day', 'agent', 'model'] as const) {
    const report = await usage(`${window()}&groupBy=${groupBy}`);
    assert.equal(report.total.llmCalls, all.calls, groupBy);
    assert.equal(report.total.estimatedCalls, all.estimated, groupBy);
    assert.equal(report.total.promptTokens, all.prompt, groupBy);
    assert.equal(report.total.completionTokens, all.completion, groupBy);
    assert.ok(Math.abs(report.total.costUsd - all.cost) < 1e-6, groupBy);
    assert.equal(report.items.reduce((n, i) => n + i.llmCalls, 0), all.calls, `${groupBy} groups add up`);
  }
  const byAgent = await usage(`${window()}&groupBy=agent`);
  assert.deepEqual(byAgent.items.map((i) => i.key).sort(), ['queryExpander', 'reflector', 'reranker', 'scorer']);
  for (const item of byAgent.items) {
    const rows = await ledger('agent = $1', [item.key]);
    assert.deepEqual([item.llmCalls, item.promptTokens, item.completionTokens], [rows.calls, rows.prompt, rows.completion], item.key);
  }
  const byModel = await usage(`${window()}&groupBy=model`);
  assert.deepEqual(byModel.items.map((i) => i.key), ['fake-chat']);
});

test('a window that holds no calls reports zero; another organisation sees none of ours', async () => {
  const empty = await usage(`from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z&groupBy=day`);
  assert.deepEqual(empty, { items: [], total: { llmCalls: 0, estimatedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 } });
  const { key } = await createApiKeyStore(rig.rt.db).create('usage-other-org');
  const theirs = await usage(`${window()}&groupBy=agent`, key);
  assert.equal(theirs.total.llmCalls, 0);
});

test('each run’s usage is the sum of its own ledger rows, failed and retried attempts included', async () => {
  let sumOfRuns = 0;
  for (const { id } of runs) {
    const run = (await rig.rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rig.rt.auth() })).json();
    const rows = await ledger('run_id = $1', [id]);
    assert.ok(rows.calls > 0);
    assert.deepEqual(
      [run.usage.llmCalls, run.usage.promptTokens, run.usage.completionTokens, run.usage.totalTokens],
      [rows.calls, rows.prompt, rows.completion, rows.prompt + rows.completion],
    );
    assert.ok(Math.abs(run.usage.costUsd - rows.cost) < 1e-6, `run cost ${run.usage.costUsd} vs ledger ${rows.cost}`);
    sumOfRuns += rows.calls;
  }
  const first = await ledger('run_id = $1', [runs[0]!.id]);
  assert.ok(first.failed >= 3, 'the first run carries the 500, the rejected answer and the unscored candidate’s attempts');
  const retried = await rig.rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM model_calls WHERE run_id = $1 AND attempt > 1', [runs[0]!.id]);
  assert.ok(retried.rows[0]!.n >= 1, 'the retry of the 500 is its own row (attempt 2)');
  assert.equal(sumOfRuns, (await ledger('true', [])).calls, 'every ledger row belongs to one of the runs');
});
