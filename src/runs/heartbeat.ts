// A worker's lease heartbeat: renews the leases of the runs it drives, aborts those it lost, was asked to cancel or
// could not renew before their lease ran out, and sweeps runs that died on every attempt or after a cancel.
import type { Logger } from 'pino';
import { createFailureStreak } from './failure-streak.js';
import type { RunQueue, SweptRun } from './run-queue.js';
import type { ActiveRun } from './worker.js';
import type { Liveness } from './worker-liveness.js';

export interface HeartbeatDeps {
  queue: Pick<RunQueue, 'heartbeat' | 'cancelAbandoned' | 'failExhausted' | 'endOverdue'>;
  /** The worker's runs in flight, by id; read on every beat. */
  active: Map<string, ActiveRun>;
  leaseMs: number;
  heartbeatMs: number;
  liveness: Pick<Liveness, 'heartbeatDone'>;
  abort(run: ActiveRun, reason: NonNullable<ActiveRun['abortReason']>): void;
  log: Pick<Logger, 'warn' | 'info'>;
  /** Hears of the runs a sweep finished (with no worker left to count them), for the finished runs' metric. */
  onSwept?(status: 'failed' | 'cancelled' | 'succeeded', reason: 'error' | 'cancelled' | 'budget', count: number): void;
}

export function startHeartbeat(deps: HeartbeatDeps): { stop(): void } {
  const { queue, active, leaseMs, abort } = deps;
  /** Runs a sweep ended are logged as a worker's finish logs its runs (a failure as a warning), and counted. */
  const swept = (status: 'failed' | 'cancelled' | 'succeeded', reason: 'error' | 'cancelled' | 'budget', runs: SweptRun[]) => {
    for (const run of runs) {
      const line = { runId: run.id, orgId: run.orgId, status, reason, ...(run.error ? { error: run.error } : {}) };
      const msg = `run ${status}: ${reason}: ${run.stop.reasoning} (ended by a sweep: no worker held it)`;
      if (status === 'failed') deps.log.warn(line, msg);
      else deps.log.info(line, msg);
    }
    if (runs.length) deps.onSwept?.(status, reason, runs.length);
  };
  let renewalFailing = false;
  // Every beat fails while the database is away: the first failure is logged, then a line at most every 30 s.
  const beats = createFailureStreak({ log: deps.log, what: 'heartbeat' });
  const timer = setInterval(() => {
    // A run whose lease ran out while renewals failed (the database unreachable) is abandoned before its model calls
    // are paid for answers its fenced writes may not keep; it is claimed again once the database answers. A renewal
    // that is merely slow abandons nothing: the run's writes are fenced by its owner, not by the lease's expiry.
    const now = Date.now();
    if (renewalFailing) for (const run of active.values()) if (now >= run.leaseUntil) abort(run, 'lease_expired');
    void (async () => {
      // Judge only the runs this heartbeat renewed: one claimed while it was in flight is not lost.
      const renewed = [...active.values()].filter((r) => r.abortReason !== 'lease_expired');
      const sentAt = Date.now();
      const owned = await queue.heartbeat(renewed.map((r) => r.id)).catch((err: unknown) => {
        renewalFailing = true;
        throw err;
      });
      renewalFailing = false;
      deps.liveness.heartbeatDone();
      for (const run of renewed) {
        const state = owned.get(run.id);
        if (!state) abort(run, 'lease_lost');
        else if (state.cancelRequested) abort(run, 'cancel');
        else run.leaseUntil = sentAt + leaseMs;
      }
      // Sweeps, not part of claiming: runs that died on every attempt end failed within a heartbeat, runs whose
      // worker died after a cancel was asked end cancelled, and runs left unheld past their deadline end as it does.
      swept('cancelled', 'cancelled', await queue.cancelAbandoned());
      swept('failed', 'error', await queue.failExhausted());
      swept('succeeded', 'budget', await queue.endOverdue());
    })().then(beats.succeeded, beats.failed);
  }, deps.heartbeatMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
