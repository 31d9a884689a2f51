// Whole-pipeline quality with the heuristic engine: 100 runs through the API, where the ground truth lands, and determinism.
import type { Run } from '../../src/runs/run-schemas.js';
import type { Dataset } from './dataset.js';
import { ingest, openRuntime, runEvents, startRun, waitForRuns } from './runtime.js';
import { heading, rankMetrics, reportTargets, table } from './stats.js';

const KS = [1, 5, 10];
const PARAMS = { maxIterations: 3, scoreLimit: 15 };

const signature = (run: Run) => JSON.stringify(run.shortlist.map((e) => [e.candidateId, e.totalScore, e.subscores]));

export async function evalMatch(data: Dataset): Promise<void> {
  const rt = await openRuntime({ MATCH_ENGINE: 'heuristic', WORKER_CONCURRENCY: '4' });
  try {
    await ingest(rt, data.resumes.map((r) => ({ externalId: r.id, resume: r.text })));
    const started = performance.now();
    // Every role twice: the second pass is the determinism check, interleaved with the first on the same worker.
    const first: string[] = [];
    const second: string[] = [];
    for (const role of data.roles) first.push(await startRun(rt, { role: { title: role.title, description: role.description }, ...PARAMS }));
    for (const role of data.roles) second.push(await startRun(rt, { role: { title: role.title, description: role.description }, ...PARAMS }));
    const runs = await waitForRuns(rt, [...first, ...second]);
    const wallS = (performance.now() - started) / 1000;

    const ranks: Array<number | null> = [];
    const stops = new Map<string, number>();
    const sizes: number[] = [];
    const misses: string[] = [];
    let failed = 0;
    let identical = 0;
    data.roles.forEach((role, i) => {
      const run = runs.get(first[i]!)!;
      const again = runs.get(second[i]!)!;
      if (run.status !== 'succeeded') failed++;
      const stop = run.stop?.reason ?? run.status;
      stops.set(stop, (stops.get(stop) ?? 0) + 1);
      sizes.push(run.shortlist.length);
      const entry = run.shortlist.findIndex((e) => e.externalId === role.truthId);
      const rank = entry >= 0 ? entry + 1 : null;
      ranks.push(rank);
      if (rank === null || rank > 5) misses.push(`  role ${role.index + 1} "${role.title}": rank ${rank ?? '∞ (not in shortlist)'} of ${run.shortlist.length}, stop ${stop}`);
      if (signature(run) === signature(again)) identical++;
    });
    let resumed = 0;
    for (const id of [...first, ...second]) if ((await runEvents(rt, id)).some((e) => e.type === 'run.resumed')) resumed++;
    const m = rankMetrics(ranks, KS);
    heading(`match (heuristic engine): ${data.roles.length} roles x 2, maxIterations ${PARAMS.maxIterations}, scoreLimit ${PARAMS.scoreLimit}`);
    console.log(`${runs.size} runs finished in ${wallS.toFixed(1)} s; ${failed} of the first pass not succeeded; ${resumed} resumed after a lost lease`);
    console.log(`stop reasons: ${[...stops].map(([k, v]) => `${k} ${v}`).join(', ')}; shortlist length ${Math.min(...sizes)}..${Math.max(...sizes)}`);
    console.log(table(['metric', 'value'], [['MRR', m.mrr], ...KS.map((k) => [`recall@${k}`, m.recall.get(k)!] as [string, number]), ['determinism (identical pairs)', `${identical}/${data.roles.length}`]]));
    if (misses.length) console.log(`\nroles whose ground truth is not in the top 5 (${misses.length}):\n${misses.join('\n')}`);
    reportTargets([
      { name: 'MRR', value: m.mrr, op: '>=', target: 0.9 },
      { name: 'recall@10', value: m.recall.get(10)!, op: '>=', target: 0.95 },
      { name: 'identical shortlists (ids and scores) on repeat', value: identical / data.roles.length, op: '>=', target: 1 },
    ]);
  } finally {
    await rt.close();
  }
}
