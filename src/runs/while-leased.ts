// A write a worker owes a run it still holds (its retry event, its hand-back), tried again while the database is away
// and the lease lasts: after a short outage the run goes on as soon as the database answers, not when its lease ends.
import { OUTAGE_RETRY_MS as RETRY_MS } from '../db/batch-writer.js';
import { databaseFault } from '../db/database.js';
import type { ActiveRun } from './worker.js';

/**
 * Runs write until it succeeds. A database fault is tried again every RETRY_MS (as often as the journal tries a batch again) until the lease would run out (by the
 * worker's conservative clock), or the run was given up (lease ran out or lost, shutdown): then the run is left to be
 * claimed once its lease has run out, as before. Any other error is thrown at once.
 */
export async function whileLeased<T>(
  run: Pick<ActiveRun, 'abortReason' | 'leaseUntil'>,
  write: () => Promise<T>,
  now: () => number = Date.now,
): Promise<T> {
  for (;;) {
    try {
      return await write();
    } catch (err) {
      const givenUp = run.abortReason === 'lease_expired' || run.abortReason === 'lease_lost' || run.abortReason === 'shutdown';
      if (!databaseFault(err) || givenUp || now() + RETRY_MS >= run.leaseUntil) throw err;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
