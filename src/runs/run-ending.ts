// How a claimed run ends: finished with a named outcome, handed back for another attempt, or left to the worker that
// took it; whether its workflow returned, was interrupted, or could not start (its context or budget not read).
import type { Logger } from 'pino';
import type { Journal } from '../audit/journal.js';
import { sqlState } from '../db/database.js';
import { ModelCallError } from '../llm/errors.js';
import type { RunContext } from '../matching/context.js';
import { CancelRequested } from '../matching/steps.js';
import { CancelledAtBoundary, type RunEventInput } from '../matching/workflow.js';
import type { Metrics } from '../metrics.js';
import { runError } from './run-error.js';
import { runAgeMs, type ClaimedRun, type RunQueue } from './run-queue.js';
import type { Stop } from './run-schemas.js';
import { LeaseLostError } from './run-writes.js';
import type { LeasedWrite } from './while-leased.js';
import type { ActiveRun } from './worker.js';

/** What a run ends from: its last context, or only its id and round when it ended before its context was read. */
export type RunEnd = RunContext | { runId: string; iteration: number };

/** One attempt of a run as its ending needs it. */
export interface Attempt {
  run: ClaimedRun;
  active: Pick<ActiveRun, 'abortReason'>;
  log: Logger;
  write: LeasedWrite;
}

const isContext = (end: RunEnd): end is RunContext => 'params' in end;

export function createRunEnding(deps: {
  queue: Pick<RunQueue, 'finish' | 'checkpoint' | 'appendEvent' | 'release'>;
  journal: Pick<Journal, 'flush'>;
  metrics: Metrics;
  maxAttempts: number;
  isBudgetError(err: unknown): boolean;
}) {
  const { queue } = deps;

  async function finish(
    attempt: Attempt,
    end: RunEnd,
    status: 'succeeded' | 'failed' | 'cancelled',
    stop: Stop,
    error: { title: string; detail: string } | null,
    /** The events of the workflow's last checkpoint, which the finish writes (the worker folds it into the finish). */
    closing: RunEventInput[] = [],
  ): Promise<void> {
    // A finished run's usage totals and trail are complete: its rows are written first, and its last trail row with it.
    await deps.journal.flush();
    const counts = isContext(end) ? { scored: end.scored.length, unscored: end.unscoredIds.length } : { scored: null, unscored: null };
    const durationMs = Math.round(runAgeMs(attempt.run));
    await attempt.write((writeId) => queue.finish(end, status, stop, error, { status, stop, error, ...counts, durationMs }, closing, writeId));
    deps.metrics.runsFinished.inc({ status, reason: stop.reason });
    if (stop.reason === 'budget') deps.metrics.budgetStops.inc();
    attempt.log.child({ iteration: stop.iteration }).info({ status, reason: stop.reason }, `run ${status}: ${stop.reason}: ${stop.reasoning}`);
  }

  // The next claim builds the run's budget from its ledger rows: this attempt's are written first, as a finish does.
  async function handBack(runId: string, opts: { countAttempt: boolean; delayMs?: number }): Promise<void> {
    await deps.journal.flush();
    await queue.release(runId, opts);
  }

  /**
   * Ends an attempt that did not finish its run: its workflow was interrupted (`end` is the last context it saved),
   * its finish failed (`end` has its stop, `closing` the events of its last checkpoint), or it could not start (`end`
   * names the run only).
   */
  async function interrupted(attempt: Attempt, cause: unknown, end: RunEnd, closing: RunEventInput[] = []): Promise<void> {
    const { run, active } = attempt;
    const log = attempt.log.child({ iteration: end.iteration });
    if (active.abortReason === 'lease_expired') {
      log.warn('lease ran out unrenewed (the database did not answer); run abandoned, to be claimed again');
      return;
    }
    if (active.abortReason === 'lease_lost' || cause instanceof LeaseLostError) {
      log.warn('lease lost; another worker owns the run now');
      return;
    }
    if (active.abortReason === 'shutdown') {
      await handBack(run.id, { countAttempt: false });
      log.info('handed back on shutdown');
      return;
    }
    if (active.abortReason === 'cancel' || cause instanceof CancelRequested || cause instanceof CancelledAtBoundary) {
      await finish(attempt, end, 'cancelled', { reason: 'cancelled', iteration: end.iteration, reasoning: 'Cancelled on request; the shortlist keeps what was scored.' }, null, closing);
      return;
    }
    if (deps.isBudgetError(cause)) {
      await finish(attempt, end, 'succeeded', { reason: 'budget', iteration: end.iteration, reasoning: `Budget reached: ${describe(cause)}` }, null, closing);
      return;
    }
    const failure = runError(cause);
    const pause = providerPause(cause, run.attempts);
    const retryable = (cause as { retryable?: boolean }).retryable !== false && (!pause.countAttempt || run.attempts < deps.maxAttempts);
    // The error is logged here with its SQLSTATE if it is the database's, through the logger's err serializer: its
    // codes and constraint, its words without the values they quote (src/log-errors.ts). The owner reads runError's.
    // An attempt handed back to be tried again is a warning (a rate-limited provider hands a run back many times);
    // the run's failure, once, an error.
    const logged = { err: cause, sqlState: sqlState(cause), attempt: run.attempts, willRetry: retryable };
    if (retryable) {
      log.warn({ ...logged, countAttempt: pause.countAttempt, retryInMs: pause.delayMs }, isContext(end) ? 'run attempt failed; handed back to be tried again' : 'run could not start; handed back to be tried again');
    } else {
      log.error(logged, isContext(end) ? 'run failed' : 'run could not start');
    }
    if (retryable) {
      // Only the finish failed: the workflow's last checkpoint, folded into it, is saved on its own, so the next
      // attempt finishes at once instead of making the last step's model calls again.
      // Should that fail too, the next attempt repeats the step, as it did before.
      if (isContext(end) && end.stop && closing.length) await attempt.write((writeId) => queue.checkpoint(end, closing, writeId)).catch(() => {});
      const retrying = { attempt: run.attempts, error: `${failure.title}: ${failure.detail}`, ...(pause.delayMs > 0 ? { retryInMs: pause.delayMs } : {}) };
      await attempt.write((writeId) => queue.appendEvent(run.id, 'run.retrying', retrying, writeId));
      await attempt.write(() => handBack(run.id, pause));
      return;
    }
    await finish(attempt, end, 'failed', { reason: 'error', iteration: end.iteration, reasoning: 'The run failed; see error.' }, failure, closing);
  }

  return { finish, interrupted };
}

// A provider that refuses for a while (a rate limit, an outage) is waited out between attempts, not retried at once:
// claimed again at once, a run spent its attempts within seconds while the provider still refused.
/** The pause after a rate limit whose answer named none: per-minute limits reset within a minute. */
export const RATE_LIMIT_PAUSE_MS = 30_000;
/** The longest pause before a run handed back may be claimed again. */
export const MAX_PROVIDER_PAUSE_MS = 300_000;
const OUTAGE_PAUSE_MS = 5_000;

/**
 * How a run whose attempt ended with `cause` is handed back: after a rate limit, once the provider's pause (or
 * RATE_LIMIT_PAUSE_MS) has passed, without counting the attempt (the run's deadline still bounds its waits); after a
 * provider's fault or a connection lost, counted, after a pause that doubles with each attempt (5, 10, 20 s...) or the
 * provider's, whichever is longer; otherwise at once, counted.
 */
export function providerPause(cause: unknown, attempts: number): { countAttempt: boolean; delayMs: number } {
  if (!(cause instanceof ModelCallError) || !cause.retryable) return { countAttempt: true, delayMs: 0 };
  const clamp = (ms: number) => Math.min(MAX_PROVIDER_PAUSE_MS, Math.max(1_000, Math.ceil(ms)));
  if (cause.kind === 'rate_limited') return { countAttempt: false, delayMs: clamp(cause.retryAfterMs ?? RATE_LIMIT_PAUSE_MS) };
  return { countAttempt: true, delayMs: clamp(Math.max(cause.retryAfterMs ?? 0, OUTAGE_PAUSE_MS * 2 ** Math.max(0, attempts - 1))) };
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
