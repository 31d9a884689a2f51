// Twenty LLM-engine runs at once in one process: model-call throughput against LLM_CONCURRENCY / latency, and peak RSS.
import { llmEnv, LLM_RUN } from './bench-pipeline.js';
import { unionMs } from './fake-agents.js';
import { startFakeModel } from './fake-model.js';
import { probe, probeRows } from './probes.js';
import { ingest, openRuntime, startRun, waitForRuns } from './runtime.js';
import { heading, reportTargets, table } from './stats.js';
import { syntheticCandidates, syntheticRole } from './synthetic.js';

const MB = 1024 * 1024;

export async function benchConcurrent(opts: { runs: number; candidates: number; latencyMs: number; cap: number }): Promise<void> {
  const fake = await startFakeModel({ latencyMs: opts.latencyMs, jitterMs: 10 });
  // Every run is driven at once (WORKER_CONCURRENCY = runs): the model cap, not the worker, is what is measured.
  const rt = await openRuntime(llmEnv(fake.url, { LLM_CONCURRENCY: String(opts.cap), WORKER_CONCURRENCY: String(opts.runs) }));
  const rssStart = process.memoryUsage().rss;
  const probes = probe(rt.db);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  try {
    heading(`concurrent: ${opts.runs} LLM runs at once, LLM_CONCURRENCY ${opts.cap}, fake model (own process) at ${opts.latencyMs} ms, ${opts.candidates} candidates`);
    await ingest(rt, syntheticCandidates(opts.candidates));
    const rssBefore = process.memoryUsage().rss;
    peakRss = rssBefore;
    const started = performance.now();
    const mark = await probes.mark();
    const ids = await Promise.all(Array.from({ length: opts.runs }, (_, i) => startRun(rt, { ...LLM_RUN, role: syntheticRole(i) })));
    const runs = await waitForRuns(rt, ids, { pollMs: 100 });
    const wallMs = performance.now() - started;
    const load = await probes.since(mark);
    clearInterval(sampler);
    const { intervals, unknown, maxInFlight } = await fake.collect();
    if (unknown.length) throw new Error(`requests no script answers: ${[...new Set(unknown)].join(', ')}`);
    const failed = [...runs.values()].filter((r) => r.status !== 'succeeded');
    const calls = intervals.length;
    const first = Math.min(...intervals.map((i) => i.start));
    const last = Math.max(...intervals.map((i) => i.end));
    const spanS = (last - first) / 1000;
    const ideal = opts.cap / (opts.latencyMs / 1000);
    const achieved = calls / spanS;
    // Concurrency integral: mean requests in flight over the span, against the cap.
    const inFlightMean = intervals.reduce((s, i) => s + (i.end - i.start), 0) / (last - first);
    console.log(`${runs.size} runs finished (${failed.length} not succeeded) in ${(wallMs / 1000).toFixed(1)} s; model requests ${calls}; max in flight seen by the server ${maxInFlight}`);
    console.log(table(['figure', 'value'], [
      ['model calls/s achieved (first request -> last answer)', achieved],
      [`ideal: cap / latency = ${opts.cap} / ${opts.latencyMs / 1000} s`, ideal],
      ['mean requests in flight over that span', inFlightMean],
      ['model-busy share of the span (>= 1 in flight)', unionMs(intervals) / (last - first)],
      ...probeRows(load),
      ['RSS after start, empty database (MB)', rssStart / MB],
      [`RSS after ingesting ${opts.candidates} candidates (MB)`, rssBefore / MB],
      ['peak RSS during the runs, sampled every 50 ms (MB)', peakRss / MB],
      ['peak RSS of the process lifetime, getrusage (MB)', (process.resourceUsage().maxRSS * 1024) / MB],
    ]));
    if (failed.length) console.log(`not succeeded: ${failed.map((r) => `${r.status} ${JSON.stringify(r.error)}`).join('; ')}`);
    reportTargets([
      { name: 'throughput share of cap/latency', value: (achieved / ideal) * 100, op: '>=', target: 90, unit: '%' },
      { name: 'peak RSS during the runs', value: peakRss / MB, op: '<=', target: 400, unit: ' MB' },
    ]);
  } finally {
    clearInterval(sampler);
    await rt.close();
    await fake.close();
  }
}
