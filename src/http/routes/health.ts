// Unauthenticated operational routes: liveness, readiness and Prometheus metrics.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { databaseFault, type Database } from '../../db/database.js';
import { appliedMigrationCount } from '../../db/migrate.js';
import type { DatabaseFault } from '../../errors.js';
import type { Metrics } from '../../metrics.js';
import { PROBLEM_CONTENT_TYPE, problem, ProblemSchema } from '../problem.js';

export interface HealthRouteDeps {
  db: Database;
  metrics: Metrics;
  expectedMigrations: number;
  /** Refreshes gauges that are read from the database (queue depth, oldest queued run). */
  refreshGauges(): Promise<void>;
  /** A worker process: why its worker is not ready to work (stopping, loop or heartbeat stalled), or null. */
  workerNotReady?: () => string | null;
}

// What a probe's reader (an operator looking at an unhealthy container) needs: which of the causes it is.
const DATABASE_NOT_READY: Record<DatabaseFault, string> = {
  database_unavailable: 'The database cannot be reached, or the connection to it was lost.',
  database_busy:
    'No pooled database connection came free within DB_CONNECTION_TIMEOUT_MS: all DB_POOL_MAX are in use (a pool too small for the load, or slow statements or lock waits).',
  database_timeout: 'The database did not answer in time (DB_STATEMENT_TIMEOUT_MS, or a server that stopped answering).',
  database_conflict: 'The database rolled the readiness check back on every attempt for conflicts with concurrent work (deadlocks).',
  database_out_of_resources: 'The database ran out of disk space or memory (SQLSTATE class 53).',
};

/** Why the database cannot serve this process yet, or null when it can. */
async function databaseNotReady(db: Database, expected: number): Promise<string | null> {
  try {
    const applied = await appliedMigrationCount(db);
    if (applied >= expected) return null;
    return `${applied} of the ${expected} migrations of this release are applied: run migrate (node dist/cli.js migrate), or restart the process.`;
  } catch (err) {
    const fault = databaseFault(err);
    return fault ? DATABASE_NOT_READY[fault] : 'The database could not be asked which migrations are applied.';
  }
}

function notReady(reply: FastifyReply, detail: string) {
  return reply.code(503).type(PROBLEM_CONTENT_TYPE).send(problem(503, 'not_ready', 'Not ready', detail));
}

export const healthRoutes: FastifyPluginAsyncZod<HealthRouteDeps> = async (app, deps) => {
  const tags = ['operations'];
  app.get('/healthz', {
    schema: { tags, summary: 'The process is up', response: { 200: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    schema: {
      tags,
      summary: 'The database is reachable and migrations are applied',
      response: { 200: z.object({ status: z.literal('ready') }), 503: ProblemSchema },
    },
    handler: async (_request, reply) => {
      const database = await databaseNotReady(deps.db, deps.expectedMigrations);
      if (database) return notReady(reply, database);
      const stalled = deps.workerNotReady?.();
      if (stalled) return notReady(reply, stalled);
      return { status: 'ready' as const };
    },
  });

  app.get('/metrics', {
    schema: { tags, summary: 'Prometheus metrics (text exposition format)', response: { 200: z.string() } },
    handler: async (_request, reply) => {
      // Never fails: while the database does not answer, the queue's gauges read NaN (services.ts).
      await deps.refreshGauges();
      const pool = deps.db.poolStats();
      deps.metrics.dbPool.set({ state: 'in_use' }, pool.total - pool.idle);
      deps.metrics.dbPool.set({ state: 'idle' }, pool.idle);
      deps.metrics.dbPoolWaiting.set(pool.waiting);
      return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
    },
  });
};
