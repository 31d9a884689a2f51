// Twenty LLM-engine runs at once in one service process: model-call throughput against LLM_CONCURRENCY / latency,
// and peak RSS. The service is measured as it ships: built (dist/), started as `node dist/main.js` in a child
// process on a data directory on disk, and driven over HTTP; its memory and CPU are read from /proc.
import { llmEnv, LLM_RUN } from './bench-pipeline.js';
import { inFlightProfile, unionMs } from './fake-agents.js';
import { startFakeModel } from './fake-model.js';
import {
  buildDist,
  cpuRows,
  cpuSince,
  ingestHttp,
  mainHeap,
  mb,
  memoryBreakdown,
  readCpu,
  readMemory,
  rssSampler,
  SERVICE_DEFAULTS,
  startRunHttp,
  startServiceProcess,
  waitForRunsHttp,
} from './service-process.js';
import { heading, reportTargets, table } from './stats.js';
import { syntheticCandidates, syntheticRole } from './synthetic.js';

/** One line: the RSS split into PGlite's WebAssembly memory, malloc, other anonymous memory and files. */
async function composed(svc: { pid: number; url: string }): Promise<string> {
  const { rss } = readMemory(svc.pid);
  const b = memoryBreakdown(svc.pid);
  const heap = await mainHeap(svc);
  const f = (n: number) => mb(n).toFixed(0);
  return `${f(rss)} = ${f(b.wasm)} + ${f(b.malloc)} + ${f(b.otherAnon)} + ${f(b.file)}; ${heap ? `${f(heap.heapTotal)} (${f(heap.heapUsed)} used; new space ${f(heap.newSpace)}, old ${f(heap.oldSpace)})` : 'n/a'}`;
}

export async function benchConcurrent(opts: { runs: number; candidates: number; latencyMs: number; jitterMs: number; cap: number; nodeArgs?: string[]; serviceEnv?: Record<string, string> }): Promise<void> {
  heading(`concurrent: ${opts.runs} LLM runs at once, LLM_CONCURRENCY ${opts.cap}, fake model (own process) at ${opts.latencyMs} ms${opts.jitterMs ? ` + up to ${opts.jitterMs} ms jitter` : ''}, ${opts.candidates} candidates`);
  buildDist();
  // "Fixed latency" with small jitter, as issue #9 describes the pipeline's model (--jitter 0 for none: the answers of
  // a wave then all land at once, the hardest case for the cap; docs/benchmarks.md, twelfth session).
  const fake = await startFakeModel({ latencyMs: opts.latencyMs, jitterMs: opts.jitterMs });
  // Every run is driven at once (WORKER_CONCURRENCY = runs): the model cap, not the worker, is what is measured.
  const env = llmEnv(fake.url, { LLM_CONCURRENCY: String(opts.cap), WORKER_CONCURRENCY: String(opts.runs), ...opts.serviceEnv });
  const svc = await startServiceProcess(env, opts.nodeArgs ? { nodeArgs: opts.nodeArgs } : {});
  let exitCode: number | null | undefined;
  try {
    console.log(`service: ${Object.entries(opts.serviceEnv ?? {}).map(([k, v]) => `${k}=${v} `).join('')}node ${[...(opts.nodeArgs ?? []), 'dist/main.js'].join(' ')} (pid ${svc.pid}), ${process.env.BENCH_DATABASE_URL ? 'a new database on the BENCH_DATABASE_URL server' : 'a new data directory on disk'}, DB_POOL_MAX ${env.DB_POOL_MAX ?? SERVICE_DEFAULTS.DB_POOL_MAX}`);
    // Idle after start: give the process a moment to settle (the database thread collects its startup garbage).
    await new Promise((r) => setTimeout(r, 1000));
    const atStart = readMemory(svc.pid);
    const composition: Array<[string, string]> = [['after start, empty database', await composed(svc)]];
    await ingestHttp(svc, syntheticCandidates(opts.candidates));
    await new Promise((r) => setTimeout(r, 1000));
    const afterIngest = readMemory(svc.pid);
    composition.push([`after ingesting ${opts.candidates} candidates`, await composed(svc)]);
    const sampler = rssSampler(svc.pid, 50);
    const started = performance.now();
    const mark = { at: started, cpu: readCpu(svc.pid) };
    const accepted: number[] = [];
    const ids = await Promise.all(
      Array.from({ length: opts.runs }, (_, i) => startRunHttp(svc, { ...LLM_RUN, role: syntheticRole(i) }).then((id) => (accepted.push(performance.now() - started), id))),
    );
    const runs = await waitForRunsHttp(svc, ids, { pollMs: 100 });
    const wallMs = performance.now() - started;
    const cpu = cpuSince(svc.pid, mark);
    const peakRss = sampler.stop();
    const atEnd = readMemory(svc.pid);
    composition.push(['after the runs', await composed(svc)]);
    const { intervals, unknown, maxInFlight } = await fake.collect();
    if (unknown.length) throw new Error(`requests no script answers: ${[...new Set(unknown)].join(', ')}`);
    const failed = [...runs.values()].filter((r) => r.status !== 'succeeded');
    const calls = intervals.length;
    const first = Math.min(...intervals.map((i) => i.start));
    const last = Math.max(...intervals.map((i) => i.end));
    const spanS = (last - first) / 1000;
    const ideal = opts.cap / (opts.latencyMs / 1000);
    const meanLatencyMs = intervals.reduce((sum, i) => sum + (i.end - i.start), 0) / calls;
    const achieved = calls / spanS;
    // Concurrency integral: mean requests in flight over the span, against the cap.
    const inFlightMean = intervals.reduce((s, i) => s + (i.end - i.start), 0) / (last - first);
    console.log(`${runs.size} runs finished (${failed.length} not succeeded) in ${(wallMs / 1000).toFixed(1)} s; model requests ${calls}; max in flight seen by the server ${maxInFlight}`);
    console.log(table(['figure', 'value'], [
      ['model calls/s achieved (first request -> last answer)', achieved],
      [`ideal: cap / latency = ${opts.cap} / ${opts.latencyMs / 1000} s`, ideal],
      ['model latency as the server measured it, mean (ms)', meanLatencyMs],
      ['model calls/s achieved / (cap / that mean latency)', achieved / (opts.cap / (meanLatencyMs / 1000))],
      ['mean requests in flight over that span', inFlightMean],
      ['model-busy share of the span (>= 1 in flight)', unionMs(intervals) / (last - first)],
      ...cpuRows(cpu),
      ['RSS after start, empty database (MB)', mb(atStart.rss)],
      [`RSS after ingesting ${opts.candidates} candidates (MB)`, mb(afterIngest.rss)],
      ['peak RSS during the runs, sampled every 50 ms (MB)', mb(peakRss)],
      ['RSS after the runs (MB): anonymous / file-backed', `${mb(atEnd.rss).toFixed(1)}: ${mb(atEnd.anon).toFixed(1)} / ${mb(atEnd.file).toFixed(1)}`],
      ['peak RSS of the process lifetime, VmHWM (MB)', mb(atEnd.hwm)],
    ]));
    // Where the span's slots go: filling up (runs starting, each first round's retrieval), the steady middle, the end.
    const profile = inFlightProfile(intervals, 250);
    const full = (x: number) => x >= 0.9 * opts.cap;
    const rampEnd = profile.findIndex(full);
    const tailStart = profile.length - [...profile].reverse().findIndex(full);
    const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    if (rampEnd >= 0) {
      const parts: Array<[string, number[]]> = [['filling up', profile.slice(0, rampEnd)], ['steady', profile.slice(rampEnd, tailStart)], ['ending', profile.slice(tailStart)]];
      console.log(`\nmean requests in flight per 250 ms from the first request: ${profile.map((x) => x.toFixed(0)).join(' ')}`);
      console.log(parts.map(([name, xs]) => `${name} ${((xs.length * 250) / 1000).toFixed(2)} s at ${((meanOf(xs) / opts.cap) * 100).toFixed(1)} % of the cap`).join('; '));
    }
    // How the burst got going: the POSTs' 202s, the runs' claims (startedAt) and the first round's expander requests.
    const created = Math.min(...[...runs.values()].map((r) => Date.parse(r.createdAt)));
    const claimed = [...runs.values()].map((r) => Date.parse(r.startedAt!) - created);
    const expansions = intervals.filter((i) => i.agent === 'queryExpander').map((i) => i.start - first).sort((a, b) => a - b).slice(0, opts.runs);
    console.log(
      `starting the ${opts.runs} runs (ms): last 202 answered ${Math.max(...accepted).toFixed(0)} after submitting; ` +
        `claimed ${Math.min(...claimed)}-${Math.max(...claimed)} after the first run was created; ` +
        `the first ${expansions.length} expander requests ${expansions[0]!.toFixed(0)}-${expansions.at(-1)!.toFixed(0)} after the first request`,
    );
    const finished = [...runs.values()].map((r) => Date.parse(r.finishedAt!)).sort((a, b) => a - b);
    console.log(`and ending them: the first run finished ${finished[0]! - created} ms after the first was created, the last ${finished.at(-1)! - finished[0]!} ms after that`);
    console.log('\nwhat the resident memory is made of (MB, from /proc/<pid>/smaps; the main V8 heap from /metrics):');
    console.log(table(['when', 'RSS = wasm + malloc + other anonymous + file-backed; main thread V8 heap'], composition));
    console.log('(the service runs in its own process: CPU is read per thread from /proc; the database busy time is not reachable from here)');
    if (failed.length) console.log(`not succeeded: ${failed.map((r) => `${r.status} ${JSON.stringify(r.error)}`).join('; ')}`);
    reportTargets([
      { name: 'throughput share of cap/latency', value: (achieved / ideal) * 100, op: '>=', target: 90, unit: '%' },
      { name: 'peak RSS during the runs', value: mb(peakRss), op: '<=', target: 400, unit: ' MB' },
    ]);
  } finally {
    exitCode = await svc.stop();
    await fake.close();
  }
  if (exitCode !== 0) throw new Error(`the service exited with ${exitCode} on SIGTERM`);
}
