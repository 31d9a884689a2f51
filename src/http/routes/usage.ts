// /v1/usage: the organisation's model calls, tokens and cost, read back from the ledger.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { BadRequestError } from '../../errors.js';
import { UsageQuerySchema, UsageReportSchema } from '../../runs/run-schemas.js';
import type { UsageStore } from '../../usage/usage-store.js';
import { callerOf } from '../auth.js';
import { standardErrors } from '../problem.js';

const DEFAULT_WINDOW_MS = 30 * 24 * 3600 * 1000;
const MAX_WINDOW_MS = 366 * 24 * 3600 * 1000;

export const usageRoutes: FastifyPluginAsyncZod<{ usage: UsageStore }> = async (app, deps) => {
  app.get('/v1/usage', {
    schema: {
      tags: ['usage'],
      summary: 'Model calls, tokens and cost of the caller’s organisation, grouped by day, agent or model',
      querystring: UsageQuerySchema,
      response: { 200: UsageReportSchema, ...standardErrors },
    },
    handler: async (request) => {
      const to = request.query.to ? new Date(request.query.to) : new Date();
      const from = request.query.from ? new Date(request.query.from) : new Date(to.getTime() - DEFAULT_WINDOW_MS);
      if (from >= to) throw new BadRequestError('"from" must be before "to".', [{ path: 'querystring.from', message: 'must be before to' }]);
      if (to.getTime() - from.getTime() > MAX_WINDOW_MS) {
        throw new BadRequestError('The window may span at most 366 days.', [{ path: 'querystring.from', message: 'window too long' }]);
      }
      return deps.usage.report(callerOf(request).orgId, from, to, request.query.groupBy);
    },
  });
};
