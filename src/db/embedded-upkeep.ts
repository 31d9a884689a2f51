// The embedded database's upkeep. PGlite runs PostgreSQL as a single-user backend, which has none of a server's
// background processes: no checkpointer and no autovacuum. The process that owns the embedded database does their
// work itself, from time to time, through its pool like any statement:
// - Checkpoints. Without them no write-ahead log segment is ever removed or recycled, so pg_wal grows for as long as
//   the process runs (about 0.85 MB per three-round LLM run, 11 MB per 1,000 candidates ingested: on disk under
//   DATA_DIR, in memory for a memory:// database), and every 16 MB of log a new segment file is created while a
//   statement waits (see embedded-thread.ts, WAL_PARAMS).
// - Vacuums. Without them the space of dead rows is never reused: each checkpoint of a run replaces a TOASTed context
//   of tens of KB, and the runs table grew by ~250 KB of dead chunks per LLM run, for good.
import type { Queryable } from './database.js';

/** Log written since the last checkpoint's redo point that calls for a checkpoint: two segments. */
export const WAL_CHECKPOINT_BYTES = 32 * 1024 * 1024;
/** How often the upkeep looks (two catalog reads; the work itself only when due). */
export const UPKEEP_INTERVAL_MS = 10_000;

/**
 * Runs CHECKPOINT if at least `thresholdBytes` of log was written since the last checkpoint's redo point; answers
 * whether it did. A checkpoint writes the dirty shared buffers (at most 32 MB here) to the data files: measured
 * 14-40 ms on the embedded database, during which its other statements wait.
 */
export async function checkpointIfWalExceeds(db: Queryable, thresholdBytes = WAL_CHECKPOINT_BYTES): Promise<boolean> {
  const { rows } = await db.query<{ bytes: number }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::bigint AS bytes FROM pg_control_checkpoint()',
  );
  if ((rows[0]?.bytes ?? 0) < thresholdBytes) return false;
  await db.query('CHECKPOINT');
  return true;
}

/**
 * Vacuums (and analyses) each table whose dead rows, or whose TOAST table's dead chunks, passed autovacuum's default
 * threshold (50 plus a fifth of the live ones); answers the tables vacuumed. Not a table with an HNSW index (the
 * embeddings): vacuuming one repairs the graph around every dead vector, which held the one database thread for 4-11 s
 * after 2,000 embeddings were replaced and ~125 s after 10,000, past any run's lease; without cleaning the index
 * (INDEX_CLEANUP OFF) the dead rows stay counted as dead, so the table would be vacuumed again at every look. The counts are the statistics the backend
 * reports when idle, so they trail the last statements by a moment. `stopping`: asked before each table, as a vacuum
 * holds the database and one after a stop was asked would hold up the shutdown (close() waits for the upkeep).
 */
export async function vacuumWhereDead(db: Queryable, stopping: () => boolean = () => false): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT format('%I.%I', s.schemaname, s.relname) AS name
     FROM pg_stat_all_tables s
     JOIN pg_class c ON c.oid = s.relid
     LEFT JOIN pg_stat_all_tables t ON t.relid = c.reltoastrelid
     WHERE c.relkind = 'r' AND s.schemaname NOT IN ('pg_catalog', 'information_schema') AND s.schemaname NOT LIKE 'pg\\_toast%'
       AND (s.n_dead_tup > 50 + 0.2 * s.n_live_tup OR coalesce(t.n_dead_tup, 0) > 50 + 0.2 * coalesce(t.n_live_tup, 0))
       AND NOT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am a ON a.oid = ic.relam
                       WHERE i.indrelid = c.oid AND a.amname = 'hnsw')
     ORDER BY 1`,
  );
  const vacuumed: string[] = [];
  for (const { name } of rows) {
    if (stopping()) break;
    await db.query(`VACUUM (ANALYZE) ${name}`);
    vacuumed.push(name);
  }
  return vacuumed;
}

/** What the upkeep reports: a look that failed, one that worked (after failures, the streak is over), and what it did. */
export interface UpkeepReports {
  failed?(err: unknown): void;
  succeeded?(): void;
  did?(work: { checkpoint: boolean; vacuumed: string[] }): void;
}

/**
 * Looks every `intervalMs` and checkpoints or vacuums when due, until stopped. A failed look (the database closing,
 * a full disk) is reported and tried again at the next interval; the timer does not keep the process alive. stop()
 * waits for the statement in progress, and no other starts after it, so the pool can be closed after it.
 */
export function keepEmbeddedUp(db: Queryable, opts: { intervalMs?: number } & UpkeepReports = {}): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const look = async () => {
    const checkpoint = await checkpointIfWalExceeds(db);
    const vacuumed = stopped ? [] : await vacuumWhereDead(db, () => stopped);
    if (checkpoint || vacuumed.length) opts.did?.({ checkpoint, vacuumed });
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = look()
      .then(
        () => opts.succeeded?.(),
        (err: unknown) => opts.failed?.(err),
      )
      .finally(() => (busy = false));
  }, opts.intervalMs ?? UPKEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
