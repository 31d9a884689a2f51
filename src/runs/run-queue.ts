// The runs table as a work queue: claim with SKIP LOCKED, leases renewed by heartbeat, hand-backs and the sweeps of
// runs no worker will finish; a claimed run's own writes, each fenced by the lease, are in run-writes.ts.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { RunContext } from '../matching/context.js';
import { ENGINES, type Engine, type RoleSpec } from '../matching/domain.js';
import { roleSpecJson } from '../roles/role-store.js';
import type { RunParams, RunStatus, Stop } from './run-schemas.js';
import { appendEvent, appendFinishedTrail, endEvent } from './run-store.js';
import { createRunWrites } from './run-writes.js';

export interface ClaimedRun {
  id: string;
  orgId: string;
  roleId: string;
  engine: Engine;
  params: RunParams;
  checkpoint: RunContext | null;
  attempts: number;
  startedAt: Date;
  /**
   * How long the run had been started when it was claimed, on the database's clock, and when the claim answered, on
   * this process's: a run's age is their sum with this process's time since (runAgeMs), whatever the two clocks read.
   */
  elapsedMs: number;
  claimedAt: number;
  /** No worker claimed the run before this one: it has made no model call and written no checkpoint. */
  neverClaimed: boolean;
  /**
   * The run's start is in its audit trail (the row replay and auditors read: role, parameters, model specs) and in its
   * timeline. An earlier attempt may have claimed the run and ended before either was written (it failed before its
   * first step, or its process died before the journal's next flush): the attempt that finds them missing writes them.
   */
  startInTrail: boolean;
  startInTimeline: boolean;
  /** The run's role, read with the claim when there is no checkpoint to start from (null if it is gone). */
  role: RoleSpec | null;
}

/**
 * How long a claimed run has been going, in ms: its age at the claim on the database's clock, and since then on this
 * process's. A process whose clock is minutes off the database's (a worker on another host) still gives a run its
 * whole deadline, neither cutting it short nor stretching it.
 */
export function runAgeMs(run: Pick<ClaimedRun, 'elapsedMs' | 'claimedAt'>, now: number = Date.now()): number {
  return run.elapsedMs + Math.max(0, now - run.claimedAt);
}

/** A run a sweep ended: no worker held it. */
export interface SweptRun {
  id: string;
  orgId: string;
  stop: Stop;
  error: { title: string; detail: string } | null;
}

export function createRunQueue(
  db: Database,
  opts: { workerId: string; leaseMs: number; maxAttempts: number; engines?: readonly Engine[]; /** RUN_DEADLINE_MS, for endOverdue. */ deadlineMs?: number },
) {
  const { workerId, leaseMs, maxAttempts } = opts;
  const engines = [...(opts.engines ?? ENGINES)];

  /**
   * A sweep: ends, in one transaction, the runs the statement (an UPDATE ... RETURNING id, stop, and error if it sets
   * one) picked out, each with its last event and its trail's run.finished row, as a worker's finish writes them.
   */
  async function sweep(status: Extract<RunStatus, 'succeeded' | 'failed' | 'cancelled'>, statement: string, values: unknown[]): Promise<SweptRun[]> {
    return db.withTransaction(async (tx) => {
      const r = await tx.query<{ id: string; org_id: string; stop: Stop; error?: { title: string; detail: string } | null }>(statement, values);
      for (const row of r.rows) {
        const error = row.error ?? null;
        const end = endEvent(status, row.stop, error);
        await appendEvent(tx, row.id, end.type, end.data);
        await appendFinishedTrail(tx, row.id, { status, stop: row.stop, error });
      }
      return r.rows.map((row) => ({ id: row.id, orgId: row.org_id, stop: row.stop, error: row.error ?? null }));
    });
  }

  /** Ends runs that were claimed maxAttempts times and whose lease ran out again: they keep failing. */
  async function failExhausted(): Promise<SweptRun[]> {
    return sweep(
      'failed',
      `UPDATE matching_runs SET status = 'failed', finished_at = now(), version = version + 1, lease_owner = NULL, checkpoint = NULL,
         stop = jsonb_build_object('reason', 'error', 'iteration', (progress->>'iteration')::int,
                                   'reasoning', 'The run failed on every attempt.'),
         error = jsonb_build_object('title', 'Attempts exhausted',
                                    'detail', format('The run was claimed %s times and never finished; the last worker stopped without finishing it.', attempts))
       WHERE id IN (SELECT id FROM matching_runs WHERE status = 'running' AND lease_expires_at < now() AND attempts >= $1
                      AND cancel_requested_at IS NULL
                    FOR UPDATE SKIP LOCKED)
       RETURNING id, org_id, stop, error`,
      [maxAttempts],
    );
  }

  /**
   * Ends cancelled the runs asked to cancel whose worker stopped without finishing them (its lease ran out, or it
   * handed them back, also to be claimed after a provider's pause): no worker is left to reach the next step boundary, and none is to take them up again (the
   * claim leaves them to this sweep), whatever attempts they have left.
   */
  async function cancelAbandoned(): Promise<SweptRun[]> {
    return sweep(
      'cancelled',
      `UPDATE matching_runs SET status = 'cancelled', finished_at = now(), version = version + 1, lease_owner = NULL, checkpoint = NULL,
         lease_expires_at = NULL, stop = jsonb_build_object('reason', 'cancelled', 'iteration', (progress->>'iteration')::int, 'reasoning', $1::text)
       WHERE id IN (SELECT id FROM matching_runs WHERE status = 'running' AND (lease_expires_at < now() OR lease_owner IS NULL)
                      AND cancel_requested_at IS NOT NULL
                    FOR UPDATE SKIP LOCKED)
       RETURNING id, org_id, stop`,
      ['Cancelled on request; the shortlist keeps what was scored.'],
    );
  }

  /**
   * Ends the runs whose deadline passed while no worker held them (a worker died, or handed them back to wait out a
   * provider's pause), as a claim would end them at once: succeeded, reason budget, keeping what was scored. Without
   * it, a run of an engine no live process drives (a model configuration removed) stayed running, its deadline long
   * past, until someone cancelled it. A run still leased is its worker's to end; one never started has no deadline yet;
   * a heuristic run is left to a claim, which finishes it (the deadline bounds model calls, which it does not make).
   */
  async function endOverdue(): Promise<SweptRun[]> {
    if (opts.deadlineMs === undefined) return [];
    return sweep(
      'succeeded',
      `UPDATE matching_runs SET status = 'succeeded', finished_at = now(), version = version + 1, lease_owner = NULL, checkpoint = NULL,
         lease_expires_at = NULL, stop = jsonb_build_object('reason', 'budget', 'iteration', (progress->>'iteration')::int, 'reasoning', $2::text)
       WHERE id IN (SELECT id FROM matching_runs WHERE status = 'running' AND (lease_expires_at < now() OR lease_owner IS NULL)
                      AND cancel_requested_at IS NULL AND started_at < now() - $1 * interval '1 millisecond' AND engine = 'llm'
                    FOR UPDATE SKIP LOCKED)
       RETURNING id, org_id, stop`,
      [
        opts.deadlineMs,
        `Budget reached: the run's deadline (${opts.deadlineMs} ms from its start) passed while no worker held it; the shortlist keeps what was scored.`,
      ],
    );
  }

  return {
    workerId,
    failExhausted,
    cancelAbandoned,
    endOverdue,

    /**
     * Claims a queued run of an engine this worker drives, or a running one whose worker died (lease expired) unless
     * it was asked to cancel (cancelAbandoned ends it): the oldest of the organisation whose runs were claimed least
     * recently (never first), so organisations take turns and one's backlog of twenty runs does not hold another's
     * one run back until all twenty have run. Runs this process is still driving are excluded: a lease it lost but
     * has not yet noticed is not a new run.
     */
    async claim(excludeIds: string[] = [], claimId: string = randomUUID()): Promise<ClaimedRun | null> {
      // One statement: the claim, the organisation's turn taken, whether the run was ever claimed (its started_at
      // before this one), and the role a run without a checkpoint starts from.
      const r = await db.query<{
        id: string;
        org_id: string;
        role_id: string;
        engine: Engine;
        params: RunParams;
        checkpoint: RunContext | null;
        attempts: number;
        started_at: Date;
        elapsed_ms: number;
        never_claimed: boolean;
        start_in_trail: boolean;
        start_in_timeline: boolean;
        role: RoleSpec | null;
      }>(
        `WITH claimed AS (
           UPDATE matching_runs r SET status = 'running', lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond',
             attempts = r.attempts + 1, started_at = coalesce(r.started_at, now()), version = r.version + (r.status = 'queued')::int,
             last_write = $6
           FROM (SELECT m.id, m.started_at IS NULL AS never_claimed FROM matching_runs m JOIN organisations o ON o.id = m.org_id
                 WHERE (m.status = 'queued' OR (m.status = 'running' AND m.lease_expires_at < now() AND m.attempts < $3 AND m.cancel_requested_at IS NULL))
                   AND NOT (m.id = ANY($4::uuid[])) AND m.engine = ANY($5::text[])
                 ORDER BY o.last_claimed_at NULLS FIRST, m.created_at, m.id LIMIT 1 FOR UPDATE OF m SKIP LOCKED) c
           WHERE r.id = c.id
           RETURNING r.id, r.org_id, r.role_id, r.engine, r.params, r.checkpoint, r.attempts, r.started_at,
                     (extract(epoch FROM now() - r.started_at) * 1000)::float8 AS elapsed_ms, c.never_claimed,
                     CASE WHEN c.never_claimed THEN false
                       ELSE EXISTS (SELECT 1 FROM run_trace t WHERE t.run_id = r.id AND t.kind = 'run.started') END AS start_in_trail,
                     CASE WHEN c.never_claimed THEN false
                       ELSE EXISTS (SELECT 1 FROM run_events e WHERE e.run_id = r.id AND e.type = 'run.started') END AS start_in_timeline,
                     CASE WHEN r.checkpoint IS NULL THEN
                       (SELECT ${roleSpecJson('ro')} FROM roles ro WHERE ro.id = r.role_id AND ro.org_id = r.org_id) END AS role),
         turn AS (UPDATE organisations SET last_claimed_at = now() WHERE id IN (SELECT org_id FROM claimed))
         SELECT * FROM claimed`,
        [workerId, leaseMs, maxAttempts, excludeIds, engines, claimId],
      );
      const row = r.rows[0];
      if (!row) return null;
      const claimedAt = Date.now();
      return {
        id: row.id,
        orgId: row.org_id,
        roleId: row.role_id,
        engine: row.engine,
        params: row.params,
        checkpoint: row.checkpoint,
        attempts: row.attempts,
        startedAt: row.started_at,
        elapsedMs: Math.max(0, Number(row.elapsed_ms)),
        claimedAt,
        neverClaimed: row.never_claimed,
        startInTrail: row.start_in_trail,
        startInTimeline: row.start_in_timeline,
        role: row.role,
      };
    },

    /** Renews the leases of the given runs; returns those still ours and whether each was asked to cancel. */
    async heartbeat(runIds: string[]): Promise<Map<string, { cancelRequested: boolean }>> {
      if (!runIds.length) return new Map();
      const r = await db.query<{ id: string; cancel: boolean }>(
        // Locked in id order, as every statement that locks several runs takes them (an erasure, the journal).
        `UPDATE matching_runs SET lease_expires_at = now() + $2 * interval '1 millisecond'
         WHERE id IN (SELECT id FROM matching_runs WHERE id = ANY($1::uuid[]) AND lease_owner = $3 AND status = 'running'
                      ORDER BY id FOR NO KEY UPDATE)
         RETURNING id, cancel_requested_at IS NOT NULL AS cancel`,
        [runIds, leaseMs, workerId],
      );
      return new Map(r.rows.map((row) => [row.id, { cancelRequested: row.cancel }]));
    },

    /**
     * Hands back the run a claim took if its answer was lost (the connection dropped after the statement was sent): the
     * claim may have committed, and this worker, which never learnt of it, would neither drive the run nor renew its
     * lease, leaving it idle until the lease ran out, an attempt counted. Nothing if the claim took no run, or if the
     * run has been written since (another worker's, or driven).
     */
    async handBackLostClaim(claimId: string): Promise<void> {
      await db.query(
        `UPDATE matching_runs SET lease_owner = NULL, lease_expires_at = now() - interval '1 second', attempts = greatest(attempts - 1, 0)
         WHERE last_write = $1 AND lease_owner = $2 AND status = 'running'`,
        [claimId, workerId],
      );
    },

    /**
     * Hands a run back so the next worker may claim it at once, or once `delayMs` has passed (a provider's pause). On
     * shutdown or after a rate limit the claim does not count as an attempt; after a failure it does (so a run that
     * always fails reaches the attempt cap).
     */
    async release(runId: string, opts: { countAttempt: boolean; delayMs?: number }): Promise<void> {
      await db.query(
        `UPDATE matching_runs SET lease_owner = NULL, lease_expires_at = now() + $4 * interval '1 millisecond',
           attempts = CASE WHEN $3 THEN attempts ELSE greatest(attempts - 1, 0) END
         WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
        [runId, workerId, opts.countAttempt, opts.delayMs && opts.delayMs > 0 ? Math.round(opts.delayMs) : -1000],
      );
    },

    ...createRunWrites(db, workerId),
  };
}

export type RunQueue = ReturnType<typeof createRunQueue>;
