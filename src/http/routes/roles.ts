// /v1/roles: create, get, list.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { NotFoundError } from '../../errors.js';
import { RoleInputSchema, RoleSchema } from '../../roles/role-schemas.js';
import type { RoleStore } from '../../roles/role-store.js';
import { callerOf } from '../auth.js';
import { PageQuerySchema, decodeCursor, pageOf, pageSchema } from '../pagination.js';
import { limited, notFound, standardErrors } from '../problem.js';
import { IdParamsSchema } from '../schemas.js';

export interface RoleRouteDeps {
  roleStore: RoleStore;
  writeRateLimit: { max: number; timeWindow: number };
}

export const roleRoutes: FastifyPluginAsyncZod<RoleRouteDeps> = async (app, deps) => {
  const tags = ['roles'];

  app.post('/v1/roles', {
    config: { rateLimit: deps.writeRateLimit },
    schema: { tags, summary: 'Create a role', body: RoleInputSchema, response: { 201: RoleSchema, ...standardErrors, ...limited } },
    handler: async (request, reply) => {
      const role = await deps.roleStore.create(callerOf(request).orgId, request.body);
      return reply.code(201).header('location', `/v1/roles/${role.id}`).send(role);
    },
  });

  app.get('/v1/roles', {
    schema: { tags, summary: 'List roles, newest first', querystring: PageQuerySchema, response: { 200: pageSchema(RoleSchema), ...standardErrors } },
    handler: async (request) => {
      const { limit, cursor } = request.query;
      return pageOf(await deps.roleStore.list(callerOf(request).orgId, limit + 1, decodeCursor(cursor)), limit);
    },
  });

  app.get('/v1/roles/:id', {
    schema: { tags, summary: 'Get a role', params: IdParamsSchema, response: { 200: RoleSchema, ...standardErrors, ...notFound } },
    handler: async (request) => {
      const role = await deps.roleStore.get(callerOf(request).orgId, request.params.id);
      if (!role) throw new NotFoundError('Role');
      return role;
    },
  });
};
