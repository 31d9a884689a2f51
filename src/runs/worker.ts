// The worker: claims runs from the queue, drives the workflow under a renewed lease, and finishes
// every run with a named outcome; on shutdown it stops claiming and hands back what it cannot finish.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { AgentCallContext, Agents } from '../agents/types.js';
import { exchangeRecord } from '../audit/exchanges.js';
import type { Journal } from '../audit/journal.js';
import type { CandidateStore } from '../candidates/candidate-store.js';
import type { ErasureGuard } from '../candidates/erasure-guard.js';
import { databaseFault, unappliedOutage, type Database } from '../db/database.js';
import { NotFoundError } from '../errors.js';
import { initialContext, type RunContext } from '../matching/context.js';
import { ENGINES, type Engine } from '../matching/domain.js';
import { runWorkflow, WorkflowInterrupted, type RunEventInput } from '../matching/workflow.js';
import type { Metrics } from '../metrics.js';
import type { Search } from '../retrieval/search.js';
import { scrubRole } from '../roles/scrub-role.js';
import { createFailureStreak } from './failure-streak.js';
import { createRunEnding } from './run-ending.js';
import { createRunQueue, type ClaimedRun } from './run-queue.js';
import { startHeartbeat } from './heartbeat.js';
import { leasedReads, leasedWrites, type LeasedRead } from './while-leased.js';
import { createLiveness } from './worker-liveness.js';

/** Claims with a lost answer remembered at most, for their runs to be handed back (runs past them wait out their leases). */
const MAX_LOST_CLAIMS = 100;

export interface WorkerOptions {
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  heartbeatMs: number;
  maxAttempts: number;
  deadlineMs: number;
  /** Process-wide cap on concurrent scorer calls across all runs. */
  globalScoreConcurrency: number;
  /** The clock of the worker's liveness (ms, any monotonic scale); performance.now unless a test drives it. */
  now?: () => number;
}

export interface WorkerDeps {
  db: Database;
  logger: Logger;
  metrics: Metrics;
  /** Where ledger and audit-trail rows go; flushed before a run is finished. */
  journal: Pick<Journal, 'trace' | 'flush'>;
  candidateStore: CandidateStore;
  search: Search;
  agentsFor(engine: Engine): Agents;
  /**
   * The engines agentsFor can drive (all, unless told): a worker claims no other run. One without a model configured
   * left an llm run's attempts spent on errors while a worker with one was there to drive it.
   */
  engines?: readonly Engine[];
  /** Per-run call context for agents (budget, deadline); built when a run is claimed. */
  callContextFor(run: ClaimedRun, signal: AbortSignal, deadline: number): Promise<AgentCallContext>;
  /** Classifies an error that ended the workflow: a budget stop is a normal exit, not a failure. */
  isBudgetError(err: unknown): boolean;
  /** What the audit trail records about the engine when a run starts (model specs, prompt hashes). */
  manifestFor?(engine: Engine): object;
  /** Told when a run reads candidates' texts, and what the read found (src/candidates/erasure-guard.ts). */
  erasureGuard?: Pick<ErasureGuard, 'present'>;
  onRunQueued?(listener: () => void): () => void;
}

export interface ActiveRun {
  id: string;
  controller: AbortController;
  /** Why the controller was aborted: the run's outcome depends on it. lease_expired: it ran out unrenewed. */
  abortReason: 'cancel' | 'shutdown' | 'lease_lost' | 'lease_expired' | null;
  /** When the lease ends unless renewed, by this process's clock: the claim's or last renewal's send time plus the lease. */
  leaseUntil: number;
  /** The round in progress, for log lines written outside drive(). */
  iteration: number | null;
  done: Promise<void>;
}

export function startWorker(deps: WorkerDeps, opts: WorkerOptions) {
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const queue = createRunQueue(deps.db, { workerId, leaseMs: opts.leaseMs, maxAttempts: opts.maxAttempts, engines: deps.engines ?? ENGINES, deadlineMs: opts.deadlineMs });
  const log = deps.logger.child({ workerId });
  const active = new Map<string, ActiveRun>();
  const globalScoreLimit = pLimit(opts.globalScoreConcurrency);
  let stopping = false;
  let wake: (() => void) | null = null;
  const liveness = createLiveness({ pollMs: opts.pollMs, heartbeatMs: opts.heartbeatMs, now: opts.now ?? (() => performance.now()) });

  // While the database is away every poll's claim fails: the first failure is logged, then a line at most every 30 s.
  const claims = createFailureStreak({ log, what: 'claim' });
  const heartbeat = startHeartbeat({
    queue, active, leaseMs: opts.leaseMs, heartbeatMs: opts.heartbeatMs, liveness, abort, log,
    onSwept: (status, reason, count) => {
      deps.metrics.runsFinished.inc({ status, reason }, count);
      // An overdue run the sweep ends stopped for its budget (its deadline), as a worker's finish counts one.
      if (reason === 'budget') deps.metrics.budgetStops.inc(count);
    },
  });
  const ending = createRunEnding({ queue, journal: deps.journal, metrics: deps.metrics, maxAttempts: opts.maxAttempts, isBudgetError: deps.isBudgetError });

  function abort(run: ActiveRun, reason: NonNullable<ActiveRun['abortReason']>): void {
    if (run.abortReason) return;
    run.abortReason = reason;
    run.controller.abort(new Error(`run ${reason}`));
  }

  // Agents, the trace and the checkpoint get the role scrubbed (a description may name a contact with an email and
  // a phone); only the stored role, which its owner reads back, keeps the text as given.
  async function contextFor(run: ClaimedRun, read: LeasedRead): Promise<RunContext> {
    if (run.checkpoint) {
      // Entries are the truth for what was scored: a crash between an entry and a checkpoint loses nothing.
      const entries = await read(() => queue.entries(run.id));
      return {
        ...run.checkpoint,
        // A checkpoint written before roles were scrubbed holds the role as given.
        role: scrubRole(run.checkpoint.role),
        scored: entries.flatMap((e) => (e.status === 'scored' ? [{ candidateId: e.candidateId, totalScore: e.totalScore!, iteration: e.iteration }] : [])),
        unscoredIds: entries.filter((e) => e.status === 'unscored').map((e) => e.candidateId),
      };
    }
    // The claim read the role with the run. Without it the run cannot start, on this attempt or any other.
    if (!run.role) throw Object.assign(new NotFoundError(`The run's role ${run.roleId}`), { retryable: false });
    return initialContext({ runId: run.id, orgId: run.orgId, engine: run.engine, role: scrubRole(run.role), params: run.params });
  }

  async function drive(run: ClaimedRun, active: ActiveRun): Promise<void> {
    const runLog = log.child({ runId: run.id, orgId: run.orgId });
    const signal = active.controller.signal;
    // The run's reads and writes wait a database outage out while its lease lasts (while-leased.ts).
    const read = leasedReads(active, runLog);
    const write = leasedWrites(active, runLog, () => abort(active, 'lease_lost'));
    const attempt = { run, active, log: runLog, write };
    // On this process's clock, from the run's age on the database's: the run's start is the database's time.
    const deadline = run.claimedAt - run.elapsedMs + opts.deadlineMs;
    // What the run starts from: its context and its budget (what earlier attempts spent), read before any model call.
    let ctx: RunContext;
    let budgeted: AgentCallContext;
    try {
      ctx = await contextFor(run, read);
      budgeted = await read(() => deps.callContextFor(run, signal, deadline));
    } catch (err) {
      await ending.interrupted(attempt, err, { runId: run.id, iteration: run.checkpoint?.iteration ?? 1 });
      return;
    }
    active.iteration = ctx.iteration;
    // Every line of a run carries runId, orgId and the round in progress (agents and the model layer included).
    const iterationLog = () => runLog.child({ iteration: ctx.iteration });
    const traceTo = { runId: run.id, orgId: run.orgId };
    // The start (or resumption) joins the timeline with the workflow's first write, which the first step does not wait for.
    let opening: RunEventInput;
    // Whether the run's start was ever recorded, not whether this is attempt 1: a hand-back on shutdown gives the
    // attempt back, and an attempt may end before it recorded the start (ClaimedRun.startInTrail).
    const starts = !run.startInTimeline;
    if (starts) {
      deps.metrics.runsStarted.inc({ engine: run.engine });
      opening = { type: 'run.started', data: { engine: run.engine, attempt: run.attempts } };
    } else {
      opening = { type: 'run.resumed', data: { attempt: run.attempts, iteration: ctx.iteration, step: ctx.step } };
    }
    if (!run.startInTrail) deps.journal.trace(ctx, 'run.started', { role: ctx.role, params: ctx.params, engine: ctx.engine, ...deps.manifestFor?.(run.engine) });
    if (!run.neverClaimed) deps.journal.trace(ctx, 'run.resumed', { attempt: run.attempts, iteration: ctx.iteration, step: ctx.step });
    iterationLog().info({ engine: run.engine, attempt: run.attempts, step: ctx.step }, starts ? 'run started' : 'run resumed');
    const callContext: AgentCallContext = {
      ...budgeted,
      startedAt: run.startedAt.getTime(),
      read,
      get logger() {
        return iterationLog();
      },
      // Each model attempt, as sent and as answered, joins the trail; the scorer's carries its candidate for erasure.
      // The record (hashes of a request of tens of KB) is built when the row is written, not while the answer waits.
      onExchange: async (x) => {
        const iteration = ctx.iteration;
        deps.journal.trace(traceTo, 'model.exchange', () => exchangeRecord(x, iteration), x.candidateIds.length === 1 ? x.candidateIds[0]! : null);
      },
    };
    // A retrieval follows the first model call: what it reads once per organisation is loaded meanwhile.
    deps.search.warm(run.orgId);
    let stepStarted = Date.now();
    // The workflow's last checkpoint (its context has a stop) is written by the finish, with the run's end: the
    // context once instead of twice in a row, and a statement less between the last answer and the finished run.
    let closing: RunEventInput[] = [];
    try {
      ctx = await runWorkflow(ctx, {
        agents: deps.agentsFor(run.engine),
        search: (req) => deps.search.search({ ...req, read }),
        views: async (orgId, ids, o) => {
          const at = performance.now();
          const { views, erasures } = await read(() => deps.candidateStore.viewsWithErasures(orgId, ids, o));
          if (erasures !== null) deps.erasureGuard?.present(orgId, views.map((v) => v.id), { at, erasures });
          return views;
        },
        identities: (orgId, ids) => read(() => deps.candidateStore.identities(orgId, ids)),
        saveEntries: async (c, entries) => {
          const r = await write((writeId) => queue.saveEntries(c, entries, writeId));
          for (const entry of entries) {
            // Counted where the entry is written, so every engine's unscored candidates count, once each.
            if (entry.status === 'unscored') deps.metrics.unscoredCandidates.inc();
            const decision = entry.status === 'scored' ? { totalScore: entry.totalScore, subscores: entry.subscores } : { reason: entry.reason };
            deps.journal.trace(traceTo, `candidate.${entry.status}`, { iteration: entry.iteration, ...decision }, entry.candidateId);
          }
          return r;
        },
        checkpoint: async (c, events) => {
          for (const event of events) {
            if (event === opening) continue;
            if (event.type === 'iteration.started') {
              ctx = c;
              active.iteration = c.iteration;
            } else {
              // A folded step's event says when it ended; the step after it started then.
              const endedAt = event.at ?? Date.now();
              const durationMs = endedAt - stepStarted;
              stepStarted = endedAt;
              iterationLog().debug({ event: event.type, durationMs }, 'step finished');
              deps.journal.trace(traceTo, 'step.finished', { iteration: event.data.iteration, event: event.type, durationMs });
            }
          }
          stepStarted = Date.now();
          if (c.stop) {
            closing = [...closing, ...events];
            return { cancelRequested: false };
          }
          return write((writeId) => queue.checkpoint(c, events, writeId));
        },
        trace: async (kind, data, candidateId) => deps.journal.trace(traceTo, kind, data, candidateId ?? null),
        onCancelRequested: () => abort(active, 'cancel'),
        signal,
        callContext,
        get logger() {
          return iterationLog();
        },
        globalScoreLimit: (fn) => globalScoreLimit(fn),
      }, { opening: [opening] });
      await ending.finish(attempt, ctx, 'succeeded', ctx.stop!, null, closing);
    } catch (err) {
      // The workflow's own interruption carries the last context it saved; a failed finish, the run's end.
      const interrupted = err instanceof WorkflowInterrupted ? err : new WorkflowInterrupted(ctx, err);
      await ending.interrupted(attempt, interrupted.cause, interrupted.context, err instanceof WorkflowInterrupted ? [] : closing);
    }
  }

  /** Claims whose answer was lost: the run each may have taken is handed back before the next claim. */
  const lostClaims: string[] = [];

  async function loop(): Promise<void> {
    while (!stopping) {
      liveness.loopPassed();
      let claimed: ClaimedRun | null = null;
      const claimSentAt = Date.now();
      if (active.size < opts.concurrency) {
        const claimId = randomUUID();
        try {
          // Runs of claims whose answers were lost go back to the queue before another is taken.
          while (lostClaims.length) {
            await queue.handBackLostClaim(lostClaims[0]!);
            lostClaims.shift();
          }
          claimed = await queue.claim([...active.keys()], claimId).catch((err: unknown) => {
            if (databaseFault(err) && !unappliedOutage(err)) lostClaims.push(claimId);
            throw err;
          });
          claims.succeeded();
        } catch (err) {
          claims.failed(err);
          // A long outage is not remembered claim by claim: runs past these wait out their leases, as they did.
          lostClaims.splice(0, Math.max(0, lostClaims.length - MAX_LOST_CLAIMS));
        }
      }
      if (claimed) {
        const controller = new AbortController();
        // Every concurrent model call of the run listens on its signal; scoreLimit can exceed Node's default of 10.
        setMaxListeners(1000, controller.signal);
        const run: ActiveRun = { id: claimed.id, controller, abortReason: null, leaseUntil: claimSentAt + opts.leaseMs, iteration: null, done: Promise.resolve() };
        active.set(claimed.id, run);
        const c = claimed;
        run.done = drive(c, run)
          .catch((err) => log.error({ runId: c.id, orgId: c.orgId, iteration: run.iteration, err }, 'run could not be finished'))
          .finally(() => {
            active.delete(c.id);
            wake?.();
          });
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  }

  const unsubscribe = deps.onRunQueued?.(() => wake?.()) ?? (() => {});
  const loopDone = loop();

  return {
    workerId,
    activeRuns: () => [...active.keys()],
    /** Why this worker is not ready to work (stopping, or its loop or heartbeat stalled), or null: /readyz reads it. */
    notReady: () => liveness.problem(),
    /** Stop claiming; give in-flight runs graceMs to finish, then abort and hand back the rest. */
    async stop(graceMs: number): Promise<void> {
      stopping = true;
      liveness.stopping();
      unsubscribe();
      wake?.();
      await loopDone;
      const all = Promise.all([...active.values()].map((r) => r.done));
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
      if ((await Promise.race([all, timeout])) === 'timeout') {
        for (const run of active.values()) abort(run, 'shutdown');
        await all;
      }
      heartbeat.stop();
    },
  };
}

export type Worker = ReturnType<typeof startWorker>;
