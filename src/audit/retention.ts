// Audit-trail retention: whole trails whose last row is older than the retention period are deleted.
import type { Queryable } from '../db/database.js';

/**
 * Deletes the trails of finished runs whose newest trace row is older than `days` (TRACE_RETENTION_DAYS by default).
 * A trail goes as a whole: a long run's early rows never vanish while its later ones stay, and a run still queued or
 * running (handed back, or quiet past a retention of 0 days) keeps its trail, which it goes on writing.
 */
export async function pruneTraces(db: Queryable, days: number, now: Date = new Date()): Promise<{ runs: number; rows: number; before: Date }> {
  if (!Number.isFinite(days) || days < 0) throw new RangeError(`retention days must be a non-negative number, got ${days}`);
  const before = new Date(now.getTime() - days * 24 * 3600 * 1000);
  const r = await db.query<{ runs: number; rows: number }>(
    `WITH old AS (SELECT t.run_id FROM run_trace t JOIN matching_runs r ON r.id = t.run_id
                  WHERE r.status NOT IN ('queued', 'running') GROUP BY t.run_id HAVING max(t.at) < $1),
          gone AS (DELETE FROM run_trace t USING old WHERE t.run_id = old.run_id RETURNING t.run_id)
     SELECT count(DISTINCT run_id)::int AS runs, count(*)::int AS rows FROM gone`,
    [before],
  );
  return { runs: r.rows[0]?.runs ?? 0, rows: r.rows[0]?.rows ?? 0, before };
}
