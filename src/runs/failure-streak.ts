// The log lines of a loop that fails on every pass while the database is away (the worker's claim every
// WORKER_POLL_MS, its lease heartbeat every RUN_HEARTBEAT_MS): the first failure of a streak, then at most one line
// every reportEveryMs with how many were not logged, and one line when it works again. Without it an outage wrote a
// line per poll (20 a second at WORKER_POLL_MS=50) until the database came back.
import type { Logger } from 'pino';
import { databaseFault } from '../db/database.js';

/** How often a streak that goes on is logged again, at most. */
export const FAILURE_REPORT_EVERY_MS = 30_000;

export interface FailureStreakOptions {
  log: Pick<Logger, 'warn' | 'info'>;
  /** What failed, as the lines say it: `claim failed`, `claim still failing`, `claim works again`. */
  what: string;
  reportEveryMs?: number;
  /** Milliseconds on any monotonic scale; tests drive it. */
  now?: () => number;
}

export function createFailureStreak(opts: FailureStreakOptions) {
  const everyMs = opts.reportEveryMs ?? FAILURE_REPORT_EVERY_MS;
  const now = opts.now ?? (() => performance.now());
  let failures = 0;
  let since = 0;
  let reportedAt = 0;
  let unreported = 0;

  return {
    failed(err: unknown): void {
      const at = now();
      failures++;
      // The fault's name (database_unavailable, database_timeout, database_busy) says what the operator is facing.
      const fault = databaseFault(err) ?? null;
      if (failures === 1) {
        since = reportedAt = at;
        opts.log.warn({ err, fault }, `${opts.what} failed`);
        return;
      }
      if (at - reportedAt < everyMs) {
        unreported++;
        return;
      }
      opts.log.warn({ err, fault, failures, notLogged: unreported, failingForMs: Math.round(at - since) }, `${opts.what} still failing (${unreported} failures since the last line not logged)`);
      reportedAt = at;
      unreported = 0;
    },
    succeeded(): void {
      if (failures === 0) return;
      opts.log.info({ failures, failingForMs: Math.round(now() - since) }, `${opts.what} works again after ${failures} failures`);
      failures = 0;
      unreported = 0;
    },
  };
}

export type FailureStreak = ReturnType<typeof createFailureStreak>;
