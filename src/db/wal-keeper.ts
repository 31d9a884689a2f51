// The embedded database's checkpoints. PGlite runs PostgreSQL as a single-user backend, and a single-user backend
// never checkpoints on its own: the checkpointer, which does it on a server, is a process PGlite does not have. Without
// checkpoints no write-ahead log segment is ever removed or recycled, so pg_wal grows for as long as the process runs
// (about 0.85 MB per three-round LLM run, 11 MB per 1,000 candidates ingested: on disk under DATA_DIR, or in memory
// for a memory:// database), and every 16 MB of log a new segment file is created while a statement waits (see
// embedded-thread.ts, START_PARAMS). So the process that owns the embedded database asks for a checkpoint itself once
// enough log has been written since the last one; the segments before it are then recycled as the next ones or removed.
import type { Queryable } from './database.js';

/** Log written since the last checkpoint's redo point that calls for a checkpoint: two segments. */
export const WAL_CHECKPOINT_BYTES = 32 * 1024 * 1024;
/** How often the log written since the last checkpoint is looked at (one catalog function, no table read). */
export const WAL_CHECK_INTERVAL_MS = 10_000;

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
 * Looks every `intervalMs` and checkpoints when the log calls for it, until stopped. A failed look (the database
 * closing) is tried again at the next interval; the timer does not keep the process alive. stop() waits for a look in
 * progress, so the pool can be closed after it.
 */
export function keepWalBounded(db: Queryable, opts: { intervalMs?: number; thresholdBytes?: number } = {}): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = checkpointIfWalExceeds(db, opts.thresholdBytes).catch(() => false);
  }, opts.intervalMs ?? WAL_CHECK_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
