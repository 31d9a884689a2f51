// Throughput of complete offline runs (heuristic engine) over a synthetic pool, and where their time goes by step.
import { probe, probeRows } from './probes.js';
import { ingest, openRuntime, runEvents, startRun, waitForRuns } from './runtime.js';
import { heading, table } from './stats.js';
import { stepTimes, STEP_NAMES } from './steps.js';
import { syntheticCandidates, syntheticRole } from './synthetic.js';

/** All three rounds unless the reflector stops: no early exit on strong candidates, so the work per run is comparable. */
const PARAMS = { maxIterations: 3, scoreLimit: 15, scoreThreshold: 100, targetStrong: 100 };

export async function benchHeuristic(opts: { runs: number; candidates: number }): Promise<void> {
  const rt = await openRuntime({ MATCH_ENGINE: 'heuristic' });
  try {
    const workers = rt.config.WORKER_CONCURRENCY;
    heading(`heuristic: ${opts.runs} offline runs over ${opts.candidates} candidates, maxIterations 3, scoreLimit 15, targetStrong 100, WORKER_CONCURRENCY ${workers}`);
    await ingest(rt, syntheticCandidates(opts.candidates));
    const warm = await startRun(rt, { role: syntheticRole(99), maxIterations: 1, scoreLimit: 15 });
    await waitForRuns(rt, [warm]);

    const probes = probe(rt.db);
    const mark = await probes.mark();
    const started = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < opts.runs; i++) ids.push(await startRun(rt, { role: syntheticRole(i), ...PARAMS }));
    const runs = await waitForRuns(rt, ids, { pollMs: 100 });
    const wallS = (performance.now() - started) / 1000;
    const load = await probes.since(mark);

    const totals = new Map<string, number>();
    const durations: number[] = [];
    const stops = new Map<string, number>();
    let rounds = 0;
    for (const id of ids) {
      const run = runs.get(id)!;
      rounds += run.progress.iteration;
      durations.push(Date.parse(run.finishedAt!) - Date.parse(run.startedAt!));
      stops.set(run.stop?.reason ?? run.status, (stops.get(run.stop?.reason ?? run.status) ?? 0) + 1);
      for (const [step, ms] of stepTimes(await runEvents(rt, id))) totals.set(step, (totals.get(step) ?? 0) + ms);
    }
    const all = [...totals.values()].reduce((s, v) => s + v, 0);
    console.log(`${ids.length} runs in ${wallS.toFixed(2)} s: ${(ids.length / wallS).toFixed(2)} runs/s; one run ${(durations.reduce((s, v) => s + v, 0) / durations.length / 1000).toFixed(2)} s on average (claim -> finish, ${workers} at a time)`);
    console.log(`stop reasons: ${[...stops].map(([k, v]) => `${k} ${v}`).join(', ')}; ${(rounds / ids.length).toFixed(1)} rounds per run`);
    console.log(table(['while the runs ran', 'share'], probeRows(load)));
    console.log(table(['step', 'ms per run', 'share'], [...STEP_NAMES, 'other'].map((s) => [s, totals.get(s)! / ids.length, `${((100 * totals.get(s)!) / all).toFixed(1)}%`])));
    console.log('(from the run events\' timestamps; "other" is start and finish bookkeeping between run.started and run.stopped; runs overlap, so per-run times include waiting for the shared database connection and CPU)');
    console.log('\ntargets: none set for offline throughput; figures are for comparison between versions.');
  } finally {
    await rt.close();
  }
}
