// Unauthenticated operational routes: liveness, readiness and Prometheus metrics.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import { migrationsApplied } from '../../db/migrate.js';
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
      const ready = await migrationsApplied(deps.db, deps.expectedMigrations).catch(() => false);
      if (!ready) return notReady(reply, 'The database is unreachable or migrations are not applied yet.');
      const stalled = deps.workerNotReady?.();
      if (stalled) return notReady(reply, stalled);
      return { status: 'ready' as const };
    },
  });

  app.get('/metrics', {
    schema: { tags, summary: 'Prometheus metrics (text exposition format)', response: { 200: z.string() } },
    handler: async (_request, reply) => {
      await deps.refreshGauges().catch(() => {});
      const pool = deps.db.poolStats();
      deps.metrics.dbPool.set({ state: 'total' }, pool.total);
      deps.metrics.dbPool.set({ state: 'idle' }, pool.idle);
      deps.metrics.dbPool.set({ state: 'waiting' }, pool.waiting);
      return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
    },
  });
};
