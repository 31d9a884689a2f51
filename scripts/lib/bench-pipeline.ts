// One LLM-engine run against the fake model server at fixed latency: wall clock, model-busy time, idle share, step overhead.
import { stepGaps, unionMs } from './fake-agents.js';
import { startFakeModel } from './fake-model.js';
import { probe, probeRows } from './probes.js';
import { ingest, openRuntime, runEvents, startRun, waitForRuns } from './runtime.js';
import { fmt, heading, percentile, reportTargets, table } from './stats.js';
import { stepTimes, STEP_NAMES } from './steps.js';
import { syntheticCandidates, syntheticRole } from './synthetic.js';

/** Run parameters that let all three rounds happen: no early stop on strong candidates, a budget that never binds. */
export const LLM_RUN = { maxIterations: 3, scoreLimit: 15, scoreThreshold: 100, targetStrong: 100, budget: { maxTokens: 50_000_000, maxCostUsd: 1000 } };

export function llmEnv(baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { MATCH_ENGINE: 'llm', LLM_BASE_URL: baseUrl, LLM_API_KEY: 'bench', LLM_MODEL: 'fake-chat', ORG_DAILY_BUDGET_USD: '1000000', ...extra };
}

export async function benchPipeline(opts: { candidates: number; latencyMs: number; jitterMs: number }): Promise<void> {
  const fake = await startFakeModel({ latencyMs: opts.latencyMs, jitterMs: opts.jitterMs });
  const rt = await openRuntime(llmEnv(fake.url));
  try {
    heading(`pipeline: LLM engine, fake model (own process) at ${opts.latencyMs} ms + up to ${opts.jitterMs} ms jitter, ${opts.candidates} candidates, 3 rounds x scoreLimit 15`);
    await ingest(rt, syntheticCandidates(opts.candidates));
    // A one-round warm-up run (connections, JIT), then the measured run alone.
    const warm = await startRun(rt, { ...LLM_RUN, maxIterations: 1, role: syntheticRole(1) });
    await waitForRuns(rt, [warm]);
    await fake.reset();

    const probes = probe(rt.db);
    const mark = await probes.mark();
    const id = await startRun(rt, { ...LLM_RUN, role: syntheticRole(0) });
    // Polled as the API's Retry-After tells a client to (1 s while a run is running): the poll is a statement too.
    const run = (await waitForRuns(rt, [id], { pollMs: 1000 })).get(id)!;
    const load = await probes.since(mark);
    const { intervals, unknown } = await fake.collect();
    if (unknown.length) throw new Error(`requests no script answers: ${[...new Set(unknown)].join(', ')}`);
    if (run.status !== 'succeeded') throw new Error(`the run ended ${run.status}: ${JSON.stringify(run.error ?? run.stop)}`);
    const wallMs = Date.parse(run.finishedAt!) - Date.parse(run.startedAt!);
    const busyMs = unionMs(intervals);
    const gaps = stepGaps(intervals);
    const byAgent = new Map<string, number>();
    for (const i of intervals) byAgent.set(i.agent, (byAgent.get(i.agent) ?? 0) + 1);

    console.log(`run ${run.status} (${run.stop?.reason}, ${run.progress.iteration} rounds), shortlist ${run.shortlist.length}, model requests ${intervals.length} (${[...byAgent].map(([a, n]) => `${a} ${n}`).join(', ')})`);
    console.log(table(['figure', 'value (ms or share)'], [
      ['run wall clock (startedAt -> finishedAt)', wallMs],
      ['ideal wall clock (union of model requests in flight)', busyMs],
      ['idle (wall - ideal)', wallMs - busyMs],
      ['  of it, startedAt -> the first model request', Math.min(...intervals.map((i) => i.start)) - Date.parse(run.startedAt!)],
      ['  of it, the last model answer -> finishedAt', Date.parse(run.finishedAt!) - Math.max(...intervals.map((i) => i.end))],
      ...probeRows(load).map(([k, v]): [string, number | string] => [`${k}, during the run`, v]),
    ]));
    const transitions = new Map<string, number[]>();
    for (const g of gaps) transitions.set(`${g.from} -> ${g.to}`, [...(transitions.get(`${g.from} -> ${g.to}`) ?? []), g.ms]);
    console.log("\nper-step overhead (next step's first request minus the previous step's last answer):");
    console.log(table(['transition', 'count', 'p50 ms', 'max ms'], [...transitions].map(([k, v]) => [k, v.length, percentile(v, 50), Math.max(...v)])));
    const steps = stepTimes(await runEvents(rt, id));
    console.log(`step time from the run's events, ms over 3 rounds (model time included): ${[...STEP_NAMES, 'other'].map((n) => `${n} ${fmt(steps.get(n)!, 0)}`).join(', ')}`);
    const all = gaps.map((g) => g.ms);
    console.log(`all transitions: n ${all.length}, p50 ${fmt(percentile(all, 50))} ms, p95 ${fmt(percentile(all, 95))} ms`);
    reportTargets([
      { name: 'idle share (1 - busy/wall)', value: (1 - busyMs / wallMs) * 100, op: '<=', target: 5, unit: '%' },
      { name: 'per-step overhead p95', value: percentile(all, 95), op: '<=', target: 20, unit: ' ms' },
    ]);
  } finally {
    await rt.close();
    await fake.close();
  }
}
