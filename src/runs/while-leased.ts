// A write a worker owes a run it still holds (a checkpoint, scored candidates, the finish, the retry event, the
// hand-back), and a read the run needs (its entries and budget when claimed, a retrieval, the candidates' texts),
// sent again while the database is away and the lease lasts: an outage shorter than the lease costs the run a wait,
// not its attempt, and it goes on as soon as the database answers.
import { randomUUID } from 'node:crypto';
import { OUTAGE_RETRY_MS as RETRY_MS } from '../db/batch-writer.js';
import { databaseOutage, unappliedOutage, type StatementSender } from '../db/database.js';
import type { Logger } from 'pino';
import { createFailureStreak, type FailureStreak } from './failure-streak.js';
import { LeaseLostError } from './run-writes.js';
import type { ActiveRun } from './worker.js';

/**
 * Sends a statement until it succeeds. By default, a statement the database was away or busy for and certainly did
 * not apply (unappliedOutage: it never left, or the server refused it) is sent again every RETRY_MS (as often as the
 * journal tries a batch again) until the lease would run out (by the worker's conservative clock), or the run was
 * given up (lease ran out or lost, shutdown): then it fails, and the attempt with it. Any other error is thrown at
 * once: a write refused for a lost lease (fencing), a timeout, and one whose connection was lost after it was sent,
 * which may have committed. `streak` hears of each failure waited out, and of the success. `again` says which failures
 * are waited out instead: a read's are any outage (databaseOutage), also one whose connection was lost after it was
 * sent, as nothing of a read stays, and so are a run's writes', which carry an id that makes a second landing change
 * nothing (leasedWrites); a statement timeout or a conflict is none.
 */
export async function whileLeased<T>(
  run: Pick<ActiveRun, 'abortReason' | 'leaseUntil'>,
  send: () => Promise<T>,
  opts: { streak?: Pick<FailureStreak, 'failed' | 'succeeded'>; now?: () => number; again?: (err: unknown) => boolean } = {},
): Promise<T> {
  const now = opts.now ?? Date.now;
  const again = opts.again ?? unappliedOutage;
  for (;;) {
    try {
      const answer = await send();
      opts.streak?.succeeded();
      return answer;
    } catch (err) {
      const givenUp = run.abortReason === 'lease_expired' || run.abortReason === 'lease_lost' || run.abortReason === 'shutdown';
      if (!again(err) || givenUp || now() + RETRY_MS >= run.leaseUntil) throw err;
      opts.streak?.failed(err);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/**
 * Sends a write of the run it was made for, and sends it again while the database is away (see leasedWrites). The
 * write gets one id however often it is sent: the run queue's writes record it, and one sent again after it landed
 * changes nothing.
 */
export type LeasedWrite = <T>(send: (writeId: string) => Promise<T>) => Promise<T>;
/** Sends a read for the run it was made for, and sends it again while the database is away (see leasedReads). */
export type LeasedRead = StatementSender;

/**
 * How a run's writes are sent: again while the database is away and the run still holds its lease (whileLeased with
 * databaseOutage), the failures logged as a streak (`run write failed`, then `run write works again`). Also a write
 * whose connection was lost after it was sent: it may have committed, but each send carries the write's one id, which
 * the run queue's writes record, so one that had landed changes nothing when sent again (the hand-back changes nothing
 * either, its lease already given up). A write refused for a lost lease calls onLeaseLost at once (the worker aborts
 * the run, as the heartbeat would later: the model calls still in flight are paid for answers that can no longer be
 * written, and the run's new owner makes them again).
 */
export function leasedWrites(run: Pick<ActiveRun, 'abortReason' | 'leaseUntil'>, runLog: Logger, onLeaseLost: () => void): LeasedWrite {
  const streak = createFailureStreak({ log: runLog, what: 'run write' });
  return (send) => {
    const writeId = randomUUID();
    return whileLeased(run, () => send(writeId), { streak, again: databaseOutage }).catch((err: unknown) => {
      if (err instanceof LeaseLostError) onLeaseLost();
      throw err;
    });
  };
}

/**
 * How a run's reads are sent: again while the database is away and the run still holds its lease (whileLeased with
 * databaseOutage), the failures logged as a streak (`run read failed`, then `run read works again`). A read has no
 * lease to be refused for: a run taken meanwhile learns of it from its next write or the heartbeat.
 */
export function leasedReads(run: Pick<ActiveRun, 'abortReason' | 'leaseUntil'>, runLog: Logger): LeasedRead {
  const streak = createFailureStreak({ log: runLog, what: 'run read' });
  return (read) => whileLeased(run, read, { streak, again: databaseOutage });
}
