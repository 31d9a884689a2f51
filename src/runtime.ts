// One running instance of the service: database, services, HTTP app and worker, started and stopped together.
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import pLimit from 'p-limit';
import { pino, type Logger } from 'pino';
import { checkConfiguredModels, createAgentsFactory } from './agents/create-agents.js';
import { buildApp } from './app.js';
import { createJournal } from './audit/journal.js';
import { ensureBootstrapKey, openMigratedDatabase } from './bootstrap.js';
import { startRescrubber } from './candidates/rescrub.js';
import { createEmbedder } from './embeddings/create-embedder.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { loggerOptions } from './logger.js';
import { createMetrics } from './metrics.js';
import { createSearch, ensureVectorIndex } from './retrieval/search.js';
import { startWorker, type Worker } from './runs/worker.js';
import { createServices, type Services } from './services.js';

export interface Runtime {
  config: Config;
  logger: Logger;
  db: Database;
  services: Services;
  /** Every role's: an api or all process serves the API, a worker process its operations routes only. */
  app: FastifyInstance;
  worker: Worker | null;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger?: Logger;
  /** Tests: start from a migrated database dump (its tarball's bytes). */
  loadDataDir?: Uint8Array;
  /** Where the generated first key is printed (stdout by default). */
  print?: (line: string) => void;
  /** Tests: the clock (epoch ms) the services and the worker's liveness read; Date.now and performance.now by default. */
  now?: () => number;
}

// The least time a shutdown gives requests under way, once the worker has stopped, before it closes their connections.
const FORCE_CLOSE_AFTER_MS = 2_000;
// How often a shutdown looks whether the requests under way are answered.
const UNDER_WAY_CHECK_MS = 25;

export async function startRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const logger = opts.logger ?? pino(loggerOptions(config.LOG_LEVEL));
  // A worker's engine checks its models as it is built (createAgentsFactory); an api process checks them here.
  if (config.PROCESS_ROLE === 'api' && config.engine === 'llm') checkConfiguredModels(config);
  const db = await openMigratedDatabase(config, logger, opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {});
  try {
    await ensureBootstrapKey(db, config, opts.print ?? ((line) => process.stdout.write(`${line}\n`)), logger);
    const metrics = createMetrics();
    // One cap on model requests in flight for the process: chat and embedding requests go to the same LLM_BASE_URL.
    const modelLimiter = pLimit(config.LLM_CONCURRENCY);
    // Embedding calls of the llm embedder are ledger rows like any other model call, written by the same journal: it
    // waits a database outage out, and a run is finished (or handed back) only once its rows are written.
    const journal = createJournal({ db, logger });
    const embedder = createEmbedder(config, { usage: journal, metrics, logger, limiter: modelLimiter });
    await ensureVectorIndex(db, embedder.model, embedder.dimension);
    const services = await createServices(config, { db, logger, embedder, journal, metrics, modelLimiter, now: opts.now });
    const search = createSearch({ db, embedder });
    const worker =
      config.PROCESS_ROLE === 'api'
        ? null
        : startWorker(
            {
              db,
              logger,
              metrics: services.metrics,
              journal: services.journal,
              candidateStore: services.candidateStore,
              search,
              ...createAgentsFactory(config, services),
              onRunQueued: services.onRunQueued,
            },
            {
              concurrency: config.WORKER_CONCURRENCY,
              pollMs: config.WORKER_POLL_MS,
              leaseMs: config.RUN_LEASE_MS,
              heartbeatMs: config.RUN_HEARTBEAT_MS,
              maxAttempts: config.RUN_MAX_ATTEMPTS,
              deadlineMs: config.RUN_DEADLINE_MS,
              globalScoreConcurrency: config.LLM_CONCURRENCY,
              ...(opts.now ? { now: opts.now } : {}),
            },
          );
    // Every role serves HTTP: a worker process its operations routes alone, with /readyz asking its worker.
    const app = await buildApp(config, services, { loggerInstance: logger, worker }).catch(async (err: unknown) => {
      await worker?.stop(0);
      throw err;
    });
    // Scrubbed copies made by older rules or another release are redone in the background, at start and then
    // periodically: agents' reads scrub a stale row on the fly meanwhile, and a large pool must not hold the start
    // (or the health checks) back.
    let closed = false;
    const rescrubber = startRescrubber(db, { logger });
    return {
      config,
      logger,
      db,
      services,
      app,
      worker,
      async close() {
        if (closed) return;
        closed = true;
        services.lifecycle.closing = true;
        // A database away now is not waited out: the journal's rows it cannot take are logged as lost, not cut off
        // silently when the shutdown's own deadline ends the process.
        services.journal.stopWaiting();
        const graceEnds = performance.now() + config.SHUTDOWN_GRACE_MS;
        // Asked first, so a pass in progress ends at its next batch while the worker winds down.
        const rescrubStopped = rescrubber.stop();
        await worker?.stop(config.SHUTDOWN_GRACE_MS);
        // Requests under way are answered (their connections close with them) within the grace, as runs are: an upload
        // of seconds was cut 2 s after a worker with nothing to hand back had stopped, its rows kept and its client
        // never told. One still running at the grace's end (at least 2 s after the worker stopped), or a connection left
        // open whatever its answer said, is cut, so that the journal is flushed and the database closed before the
        // shutdown's deadline.
        const cutAt = performance.now() + Math.max(FORCE_CLOSE_AFTER_MS, graceEnds - performance.now());
        // Until they are, the server goes on listening, and a new request is answered 503 with Retry-After (a client
        // told to retry elsewhere), not refused a connection.
        while (services.lifecycle.underWay > 0 && performance.now() < cutAt) await delay(UNDER_WAY_CHECK_MS);
        const cut = setTimeout(() => app.server.closeAllConnections(), Math.max(0, cutAt - performance.now()));
        cut.unref();
        await app.close();
        clearTimeout(cut);
        await rescrubStopped;
        await services.journal.flush();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
