// /v1/candidates: bulk upsert by externalId, get, list, and erasure.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CANDIDATE_BODY_LIMIT,
  CandidateSchema,
  CandidateSummarySchema,
  UpsertCandidatesBodySchema,
  UpsertCandidatesResponseSchema,
} from '../../candidates/candidate-schemas.js';
import type { CandidateService } from '../../candidates/candidate-service.js';
import type { CandidateStore } from '../../candidates/candidate-store.js';
import { NotFoundError } from '../../errors.js';
import { callerOf } from '../auth.js';
import { PageQuerySchema, decodeCursor, pageOf, pageSchema } from '../pagination.js';
import { limited, notFound, standardErrors } from '../problem.js';
import { IdParamsSchema } from '../schemas.js';

export interface CandidateRouteDeps {
  candidates: CandidateService;
  candidateStore: CandidateStore;
  /** Told of each erasure, so answers cached in this process stop naming the candidate at once. */
  onErased: (orgId: string) => void;
  writeRateLimit: { max: number; timeWindow: number };
}

export const candidateRoutes: FastifyPluginAsyncZod<CandidateRouteDeps> = async (app, deps) => {
  const tags = ['candidates'];

  app.post('/v1/candidates', {
    bodyLimit: CANDIDATE_BODY_LIMIT,
    config: { rateLimit: deps.writeRateLimit },
    schema: {
      tags,
      summary: 'Upsert 1..500 candidates by externalId (all or nothing)',
      body: UpsertCandidatesBodySchema,
      // 502: with EMBEDDINGS=llm, the endpoint failed to embed the batch after retries (nothing is stored).
      response: { 200: UpsertCandidatesResponseSchema, ...standardErrors, ...limited, 413: standardErrors[400], 415: standardErrors[400], 502: standardErrors[400] },
    },
    handler: async (request) => ({ items: await deps.candidates.upsert(callerOf(request).orgId, request.body.candidates, { logger: request.log }) }),
  });

  app.get('/v1/candidates', {
    schema: { tags, summary: 'List candidates, newest first', querystring: PageQuerySchema, response: { 200: pageSchema(CandidateSummarySchema), ...standardErrors } },
    handler: async (request) => {
      const { limit, cursor } = request.query;
      const rows = await deps.candidateStore.list(callerOf(request).orgId, limit + 1, decodeCursor(cursor));
      const page = pageOf(rows, limit);
      return { items: page.items, nextCursor: page.nextCursor };
    },
  });

  app.get('/v1/candidates/:id', {
    schema: { tags, summary: 'Get a candidate', params: IdParamsSchema, response: { 200: CandidateSchema, ...standardErrors, ...notFound } },
    handler: async (request) => {
      const candidate = await deps.candidateStore.get(callerOf(request).orgId, request.params.id);
      if (!candidate) throw new NotFoundError('Candidate');
      return candidate;
    },
  });

  app.delete('/v1/candidates/:id', {
    config: { rateLimit: deps.writeRateLimit },
    schema: {
      tags,
      summary: 'Erase a candidate: its text and embedding everywhere; finished shortlists keep only the id and scores',
      params: IdParamsSchema,
      response: { 204: z.undefined(), ...standardErrors, ...notFound, ...limited },
    },
    handler: async (request, reply) => {
      const orgId = callerOf(request).orgId;
      if (!(await deps.candidateStore.erase(orgId, request.params.id))) throw new NotFoundError('Candidate');
      deps.onErased(orgId);
      return reply.code(204).send();
    },
  });
};
