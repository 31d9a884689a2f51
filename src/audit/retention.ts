// Audit-trail retention: whole trails whose last row is older than the retention period are deleted.
import type { Queryable } from '../db/database.js';

/** Trails deleted per statement: each batch is a short transaction of its own, not one holding every old row at once. */
const RUNS_PER_BATCH = 500;

/**
 * Deletes the trails of finished runs whose newest trace row is older than `days` (TRACE_RETENTION_DAYS by default).
 * A trail goes as a whole: a long run's early rows never vanish while its later ones stay, and a run still queued or
 * running (handed back, or quiet past a retention of 0 days) keeps its trail, which it goes on writing. The old trails
 * are found in one pass, then deleted RUNS_PER_BATCH at a time, each batch checking again that its trails are still
 * old (so a prune of millions of rows neither holds one long transaction nor writes its whole WAL at once).
 */
export async function pruneTraces(
  db: Queryable,
  days: number,
  now: Date = new Date(),
  opts: { runsPerBatch?: number } = {},
): Promise<{ runs: number; rows: number; before: Date }> {
  if (!Number.isFinite(days) || days < 0) throw new RangeError(`retention days must be a non-negative number, got ${days}`);
  const before = new Date(now.getTime() - days * 24 * 3600 * 1000);
  const perBatch = opts.runsPerBatch ?? RUNS_PER_BATCH;
  const old = await db.query<{ run_id: string }>(
    `SELECT t.run_id FROM run_trace t JOIN matching_runs r ON r.id = t.run_id
     WHERE r.status NOT IN ('queued', 'running') GROUP BY t.run_id HAVING max(t.at) < $1 ORDER BY t.run_id`,
    [before],
  );
  const ids = old.rows.map((r) => r.run_id);
  let runs = 0;
  let rows = 0;
  for (let i = 0; i < ids.length; i += perBatch) {
    const r = await db.query<{ runs: number; rows: number }>(
      `WITH gone AS (DELETE FROM run_trace t WHERE t.run_id = ANY($1::uuid[])
                       AND NOT EXISTS (SELECT 1 FROM run_trace n WHERE n.run_id = t.run_id AND n.at >= $2)
                     RETURNING t.run_id)
       SELECT count(DISTINCT run_id)::int AS runs, count(*)::int AS rows FROM gone`,
      [ids.slice(i, i + perBatch), before],
    );
    runs += r.rows[0]?.runs ?? 0;
    rows += r.rows[0]?.rows ?? 0;
  }
  return { runs, rows, before };
}
