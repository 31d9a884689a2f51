// Composes stores and services from config and a database: plain factories, no container.
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import { createJournal, type Journal } from './audit/journal.js';
import { createApiKeyStore } from './auth/api-keys.js';
import { createCandidateService } from './candidates/candidate-service.js';
import { createCandidateStore } from './candidates/candidate-store.js';
import { createErasureGuard } from './candidates/erasure-guard.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { readMigrations } from './db/migrate.js';
import type { Embedder } from './embeddings/embedder.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createRoleStore } from './roles/role-store.js';
import { createRunService } from './runs/run-service.js';
import { createRunStore } from './runs/run-store.js';
import { createUsageStore } from './usage/usage-store.js';

export interface ServiceDeps {
  db: Database;
  logger: Logger;
  embedder: Embedder;
  /** The process's journal, if the embedder (made first) already writes to it. */
  journal?: Journal;
  metrics?: Metrics;
  /** The process's one cap on model requests in flight (chat and embeddings alike); runtime.ts shares it with the embedder. */
  modelLimiter?: LimitFunction;
  /** Epoch ms: the clock of the daily budget (Date.now) and of the in-process caches (monotonic), unless a test sets the time. */
  now?: () => number;
}

/** How long a /metrics scrape waits for the queue's statistics before it reports them unknown. */
const QUEUE_STATS_WAIT_MS = 2_000;

export async function createServices(config: Config, deps: ServiceDeps) {
  const { db, logger, embedder } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const candidateStore = createCandidateStore(db);
  const roleStore = createRoleStore(db);
  const runStore = createRunStore(db);
  const usage = createUsageStore(db);
  const journal = deps.journal ?? createJournal({ db, logger });
  const apiKeys = createApiKeyStore(db, { cacheTtlMs: config.CACHE_TTL_MS, now: deps.now });
  /**
   * closing: the process is shutting down (new requests are answered 503). underWay: requests received and not yet
   * answered (counted from the first hook to the answer's send), which a shutdown lets finish before it stops listening.
   */
  const lifecycle = { closing: false, underWay: 0 };
  const queueListeners = new Set<() => void>();
  const erasureGuard = createErasureGuard(db);

  return {
    config,
    db,
    logger,
    metrics,
    embedder,
    modelLimiter: deps.modelLimiter ?? pLimit(config.LLM_CONCURRENCY),
    /** Epoch ms: what the daily budget takes the time to be. */
    now: deps.now ?? Date.now,
    /**
     * The in-process caches' clock when a test sets the time; else none, and they measure time passed on a monotonic
     * clock: a wall clock stepped back an hour (NTP, a VM restored) kept a finished run's answer, an erased candidate's
     * name in it, for that hour instead of CACHE_TTL_MS.
     */
    cacheNow: deps.now,
    lifecycle,
    /** Whether candidates are still there before a model request carries their text; told of this process's erasures. */
    erasureGuard,
    apiKeys,
    candidateStore,
    candidates: createCandidateService({ db, store: candidateStore, embedder }),
    roleStore,
    runStore,
    usage,
    /** Ledger and audit-trail rows, written in batches behind the work they record. */
    journal,
    runs: createRunService({
      db,
      runs: runStore,
      usage,
      engine: config.engine,
      embeddings: config.EMBEDDINGS,
      limits: { maxRunsInFlightPerOrg: config.MAX_RUNS_IN_FLIGHT_PER_ORG, orgDailyBudgetUsd: config.ORG_DAILY_BUDGET_USD },
      notifyQueued: () => queueListeners.forEach((listener) => listener()),
      now: deps.now,
      onFinished: (status, reason) => metrics.runsFinished.inc({ status, reason }),
    }),
    /** Local workers subscribe here to hear of new runs at once. */
    onRunQueued(listener: () => void): () => void {
      queueListeners.add(listener);
      return () => queueListeners.delete(listener);
    },
    expectedMigrations: (await readMigrations()).length,
    /**
     * Reads the queue's depth and oldest age into their gauges for a scrape. While the database does not answer
     * within QUEUE_STATS_WAIT_MS, both read NaN (unknown) rather than their last value, which an alert on the queue's
     * age would take for current, and the scrape goes on without them rather than waiting past its own timeout.
     */
    async refreshQueueGauges() {
      const unknown = () => {
        metrics.queueDepth.set(NaN);
        metrics.oldestQueuedAge.set(NaN);
      };
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), QUEUE_STATS_WAIT_MS)));
      try {
        const q = await Promise.race([runStore.queueStats(), late]);
        if (!q) return unknown();
        metrics.queueDepth.set(q.depth);
        metrics.oldestQueuedAge.set(q.oldestAgeSeconds);
      } catch {
        unknown();
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
