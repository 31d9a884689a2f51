// Starting, reading and cancelling matching runs: the rules the routes apply, in one place.
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import { sequencePageOf } from '../http/pagination.js';
import { AppError, ConflictError, NotFoundError, TooManyRequestsError, UnprocessableError } from '../errors.js';
import type { Engine } from '../matching/domain.js';
import type { RoleInput } from '../roles/role-schemas.js';
import { utcDayOf, type UsageStore } from '../usage/usage-store.js';
import { FINISHED_STATUSES, type Run, type RunParams, type RunStatus } from './run-schemas.js';
import type { RunStore } from './run-store.js';

export interface StartRunRequest {
  orgId: string;
  role?: RoleInput;
  roleId?: string;
  params: RunParams;
  idempotencyKey?: string;
}

export interface RunServiceLimits {
  maxRunsInFlightPerOrg: number;
  orgDailyBudgetUsd: number;
}

class IdempotentReplay extends Error {}

/**
 * The request's hashes: a role id is a UUID, whichever case it is spelt in, so a retry that spells it in capitals is
 * the same request. The first is the one stored; the second, as the id was spelt, matches a run stored before ids
 * were folded to lower case.
 */
function requestHashes(req: StartRunRequest): [string, string] {
  const { orgId: _orgId, idempotencyKey: _key, ...body } = req;
  const hash = (b: object) => createHash('sha256').update(JSON.stringify(b)).digest('hex');
  const folded = hash(body.roleId === undefined ? body : { ...body, roleId: body.roleId.toLowerCase() });
  return [folded, body.roleId === undefined ? folded : hash(body)];
}

export function createRunService(deps: {
  db: Database;
  runs: RunStore;
  usage: UsageStore;
  engine: Engine;
  /** Where query embeddings come from: 'llm' embeddings are paid model calls, whatever the engine. */
  embeddings: 'local' | 'llm';
  limits: RunServiceLimits;
  /** Wakes local workers so a new run starts without waiting for the next poll. */
  notifyQueued?: () => void;
  /** Epoch ms; says which UTC day the daily budget is for. Date.now unless a test sets the time. */
  now?: () => number;
  /** Hears of a run this service finished itself (a queued run cancelled): the finished runs' metric counts it. */
  onFinished?: (status: 'cancelled', reason: 'cancelled') => void;
}) {
  const { db, runs } = deps;

  async function replay(orgId: string, key: string, hashes: readonly string[]): Promise<{ runId: string; created: false }> {
    const first = await runs.findByIdempotencyKey(orgId, key);
    if (!first) throw new ConflictError('A request with this Idempotency-Key is still being processed; retry.');
    if (first.requestHash === null || !hashes.includes(first.requestHash)) {
      throw new UnprocessableError('This Idempotency-Key was used with a different request body.', [
        { path: 'headers.idempotency-key', message: 'already used with another body' },
      ]);
    }
    return { runId: first.id, created: false };
  }

  return {
    /**
     * Returns the run id, whether this request created it (false: an idempotent replay), and, when it did, the
     * run as created (a 202 needs no second read).
     */
    async start(req: StartRunRequest): Promise<{ runId: string; created: boolean; run?: Run & { version: number } }> {
      const hashes = requestHashes(req);
      const hash = hashes[0];
      if (req.idempotencyKey) {
        const first = await runs.findByIdempotencyKey(req.orgId, req.idempotencyKey);
        if (first) return replay(req.orgId, req.idempotencyKey, hashes);
      }
      // A run spends on models if its agents are models, or if its queries are embedded by one.
      if (deps.engine === 'llm' || deps.embeddings === 'llm') {
        // One reading of the clock for the day spent and the wait until the next: they cannot disagree at midnight.
        const now = new Date((deps.now ?? Date.now)());
        const spent = await deps.usage.spentOnUtcDayUsd(req.orgId, now);
        if (spent >= deps.limits.orgDailyBudgetUsd) {
          throw new AppError(
            429,
            'daily_budget_exhausted',
            'Daily model budget exhausted',
            `This organisation has spent $${spent.toFixed(2)} of its $${deps.limits.orgDailyBudgetUsd.toFixed(2)} daily model budget; new runs start again after midnight UTC.`,
            undefined,
            { 'retry-after': String(secondsUntilUtcMidnight(now)) },
          );
        }
      }
      try {
        const run = await db.withTransaction(async (tx) => {
          // Under the organisation's lock, so a burst of starts cannot all read the same in-flight count.
          await runs.lockRunStarts(tx, req.orgId);
          const created = await runs.create(tx, {
            orgId: req.orgId,
            ...(req.role ? { role: req.role } : { roleId: req.roleId! }),
            engine: deps.engine,
            params: req.params,
            idempotencyKey: req.idempotencyKey ?? null,
            requestHash: hash,
            maxInFlight: deps.limits.maxRunsInFlightPerOrg,
          });
          switch (created.outcome) {
            case 'created':
              return created.run;
            case 'over_limit':
              throw new TooManyRequestsError(
                `This organisation already has ${deps.limits.maxRunsInFlightPerOrg} runs queued or running; wait for one to finish.`,
                10,
              );
            case 'role_missing':
              throw new NotFoundError('Role');
            case 'key_taken':
              // A concurrent request with the same key won: roll back our inline role, answer with its run.
              throw new IdempotentReplay();
          }
        });
        deps.notifyQueued?.();
        return { runId: run.id, created: true, run };
      } catch (err) {
        if (err instanceof IdempotentReplay) return replay(req.orgId, req.idempotencyKey!, hashes);
        throw err;
      }
    },

    /** Whether a run of the organisation was started with this Idempotency-Key: a start with it can only replay. */
    async idempotencyKeyTaken(orgId: string, key: string): Promise<boolean> {
      return (await runs.findByIdempotencyKey(orgId, key)) !== null;
    },

    async get(orgId: string, id: string) {
      const run = await runs.get(orgId, id);
      if (!run) throw new NotFoundError('Matching run');
      return run;
    },

    /** Cheap check for If-None-Match: no shortlist read. */
    async version(orgId: string, id: string): Promise<{ version: number; status: RunStatus }> {
      const v = await runs.version(orgId, id);
      if (!v) throw new NotFoundError('Matching run');
      return v;
    },

    async cancel(orgId: string, id: string): Promise<void> {
      const before = await runs.requestCancel(orgId, id);
      if (!before) throw new NotFoundError('Matching run');
      if (before === 'queued') deps.onFinished?.('cancelled', 'cancelled');
      if (FINISHED_STATUSES.includes(before)) {
        throw new ConflictError(`The run has already finished (${before}); only a queued or running run can be cancelled.`);
      }
    },

    async events(orgId: string, id: string, after: number, limit: number) {
      if (!(await runs.exists(orgId, id))) throw new NotFoundError('Matching run');
      return sequencePageOf(await runs.events(id, after, limit + 1), limit, (e) => e.seq);
    },

    async trace(orgId: string, id: string, after: number, limit: number) {
      if (!(await runs.exists(orgId, id))) throw new NotFoundError('Matching run');
      // In lower case, as every answer writes a UUID (the path may spell it in upper case).
      return { runId: id.toLowerCase(), ...sequencePageOf(await runs.trace(id, after, limit + 1), limit, (t) => t.seq) };
    },

    list: runs.list,
  };
}

function secondsUntilUtcMidnight(now: Date): number {
  return Math.max(1, Math.ceil((utcDayOf(now).end.getTime() - now.getTime()) / 1000));
}

export type RunService = ReturnType<typeof createRunService>;
