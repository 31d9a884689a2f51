// /v1/matching-runs: start (idempotent), poll (ETag, Retry-After), list, events, cancel, trace.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  FINISHED_STATUSES,
  CreateRunBodySchema,
  CreateRunForRoleBodySchema,
  EventSchema,
  EventsQuerySchema,
  IdempotencyHeadersSchema,
  ListRunsQuerySchema,
  MAX_EVENT_SEQ,
  RunSchema,
  RunSummarySchema,
  TraceSchema,
  type Run,
  type RunStatus,
} from '../../runs/run-schemas.js';
import type { RunService } from '../../runs/run-service.js';
import { BadRequestError } from '../../errors.js';
import { callerOf } from '../auth.js';
import type { FinishedRunAnswer, FinishedRunCache } from '../finished-runs.js';
import { decodeCursor, decodeSequenceCursor, PageQuerySchema, pageOf } from '../pagination.js';
import { ProblemSchema, limited, notFound, standardErrors } from '../problem.js';
import { IdParamsSchema } from '../schemas.js';

export interface RunRouteDeps {
  runs: RunService;
  finishedRuns: FinishedRunCache;
  runRateLimit: { max: number; timeWindow: number };
}

// A polling hint: soon while a run moves, never for a finished one.
const RETRY_AFTER_SECONDS: Record<RunStatus, number | null> = { queued: 2, running: 1, succeeded: null, failed: null, cancelled: null };

/** One tag per run version, however the client spelt the id in the path (a UUID's hex digits may be upper case). */
function etagOf(runId: string, version: number): string {
  return `"${runId.slice(0, 8).toLowerCase()}-${version}"`;
}

/** If-None-Match names this ETag (a list, weak or strong), or is `*`: any current version (RFC 9110, 13.1.2). */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch === etag || ifNoneMatch.split(',').some((s) => s.trim() === '*' || s.trim().replace(/^W\//, '') === etag);
}

/** Sends JSON serialized earlier (by the same schema); fastify passes a Buffer through untouched. */
function sendSerialized(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

function cacheHeaders(reply: FastifyReply, etag: string, status: RunStatus): void {
  reply.header('etag', etag);
  reply.header('cache-control', 'private, no-cache');
  const retryAfter = RETRY_AFTER_SECONDS[status];
  if (retryAfter !== null) reply.header('retry-after', String(retryAfter));
}

export const runRoutes: FastifyPluginAsyncZod<RunRouteDeps> = async (app, deps) => {
  const tags = ['matching runs'];
  // 404: the role; 429: the rate limit, the runs in flight or the daily model budget.
  const accepted = { 202: RunSchema, ...standardErrors, ...notFound, 409: ProblemSchema, 422: ProblemSchema, ...limited };

  // The run limit counts runs started. A start whose Idempotency-Key already names a run of the caller's organisation
  // cannot start one: it is answered with that run (or 422 for another body), so it is not counted, and a client
  // retrying a start whose answer it lost gets its run even with the minute's allowance spent. It costs what a read
  // costs (reads are not limited). The check runs where the limiter does, before the body is parsed: a start without
  // a taken key is counted whatever its body, as before.
  const runRateLimit = { ...deps.runRateLimit, allowList: (request: FastifyRequest) => replaysTakenKey(request) };
  async function replaysTakenKey(request: FastifyRequest): Promise<boolean> {
    const key = request.headers['idempotency-key'];
    // A key the header schema refuses is answered 400 later, and counted now.
    if (!request.caller || typeof key !== 'string' || !IdempotencyHeadersSchema.safeParse({ 'idempotency-key': key }).success) return false;
    return deps.runs.idempotencyKeyTaken(request.caller.orgId, key);
  }

  /** A new run as created; a replayed one (same Idempotency-Key) as it is now. */
  async function answerStarted(reply: FastifyReply, orgId: string, started: { runId: string; run?: Run & { version: number } }) {
    const run = started.run ?? (await deps.runs.get(orgId, started.runId));
    cacheHeaders(reply, etagOf(run.id, run.version), run.status);
    const { version: _version, ...body } = run;
    return reply.code(202).header('location', `/v1/matching-runs/${run.id}`).send(body);
  }

  app.post('/v1/matching-runs', {
    config: { rateLimit: runRateLimit },
    schema: {
      tags,
      summary: 'Start a matching run for an inline role or a stored one',
      headers: IdempotencyHeadersSchema,
      body: CreateRunBodySchema,
      response: accepted,
    },
    handler: async (request, reply) => {
      const orgId = callerOf(request).orgId;
      const { role, roleId, ...params } = request.body;
      const started = await deps.runs.start({
        orgId,
        ...(role ? { role } : {}),
        ...(roleId ? { roleId } : {}),
        params,
        ...(request.headers['idempotency-key'] ? { idempotencyKey: request.headers['idempotency-key'] } : {}),
      });
      return answerStarted(reply, orgId, started);
    },
  });

  app.post('/v1/roles/:id/matching-runs', {
    config: { rateLimit: runRateLimit },
    schema: {
      tags,
      summary: 'Start a matching run for a stored role',
      params: IdParamsSchema,
      headers: IdempotencyHeadersSchema,
      // Every parameter has a default, so no body is needed: fastify validates a missing body as null.
      body: CreateRunForRoleBodySchema.nullish(),
      response: accepted,
    },
    // The schema cannot tell a JSON null from no body (both reach it as null), but the parsed body can: a body that
    // is there must be an object of parameters, as on every other route, not a run with defaults.
    preValidation: (request, _reply, done) =>
      done(request.body === null ? new BadRequestError('The body, when sent, must be an object of run parameters.', [{ path: 'body', message: 'must be an object, not null' }]) : undefined),
    handler: async (request, reply) => {
      const orgId = callerOf(request).orgId;
      const started = await deps.runs.start({
        orgId,
        roleId: request.params.id,
        // Validated (with defaults) by the route schema; an absent body means all defaults.
        params: request.body ?? CreateRunForRoleBodySchema.parse({}),
        ...(request.headers['idempotency-key'] ? { idempotencyKey: request.headers['idempotency-key'] } : {}),
      });
      return answerStarted(reply, orgId, started);
    },
  });

  app.get('/v1/matching-runs', {
    schema: {
      tags,
      summary: 'List matching runs, newest first',
      querystring: ListRunsQuerySchema,
      response: { 200: z.object({ items: z.array(RunSummarySchema), nextCursor: z.string().nullable() }), ...standardErrors },
    },
    handler: async (request) => {
      const { limit, cursor, status } = request.query;
      const rows = await deps.runs.list(callerOf(request).orgId, status, limit + 1, decodeCursor(cursor));
      const page = pageOf(rows, limit);
      return { items: page.items.map(({ shortlist: _s, ...summary }) => summary), nextCursor: page.nextCursor };
    },
  });

  app.get('/v1/matching-runs/:id', {
    schema: {
      tags,
      summary: 'Poll a matching run (ETag / If-None-Match, Retry-After while unfinished)',
      params: IdParamsSchema,
      response: { 200: RunSchema, 304: z.undefined(), ...standardErrors, ...notFound },
    },
    handler: (request, reply) => {
      const orgId = callerOf(request).orgId;
      // As the database spells it: the cached answers are kept, and dropped on an erasure, under that spelling.
      const runId = request.params.id.toLowerCase();
      const ifNoneMatch = request.headers['if-none-match'];
      // The polling case, a finished run answered moments ago: no database read, and no promise either.
      const fresh = deps.finishedRuns.fresh(orgId, runId);
      if (fresh) {
        sendFinished(reply, fresh, ifNoneMatch);
        return;
      }
      return poll(reply, orgId, runId, ifNoneMatch);
    },
  });

  function sendFinished(reply: FastifyReply, answer: FinishedRunAnswer, ifNoneMatch: string | undefined): FastifyReply {
    cacheHeaders(reply, answer.etag, answer.status);
    if (matchesEtag(ifNoneMatch, answer.etag)) return reply.code(304).send();
    return sendSerialized(reply, answer.body);
  }

  async function poll(reply: FastifyReply, orgId: string, runId: string, ifNoneMatch: string | undefined) {
    let answer: FinishedRunAnswer | undefined;
    // Before any read: an erasure in this process while they are on their way keeps their answer out of the cache.
    const epoch = deps.finishedRuns.epoch();
    const stale = deps.finishedRuns.stale(orgId, runId);
    if (stale || ifNoneMatch) {
      // One indexed read of the version decides: still the cached answer, not modified, or read it whole.
      const v = await deps.runs.version(orgId, runId);
      if (stale?.version === v.version) {
        answer = stale;
        deps.finishedRuns.keep(orgId, runId, stale, epoch);
      } else {
        if (stale) deps.finishedRuns.forget(orgId, runId);
        if (matchesEtag(ifNoneMatch, etagOf(runId, v.version))) {
          cacheHeaders(reply, etagOf(runId, v.version), v.status);
          return reply.code(304).send();
        }
      }
    }
    if (!answer) {
      const { version, ...run } = await deps.runs.get(orgId, runId);
      if (!FINISHED_STATUSES.includes(run.status)) {
        cacheHeaders(reply, etagOf(runId, version), run.status);
        return reply.send(run);
      }
      answer = {
        version,
        status: run.status,
        etag: etagOf(runId, version),
        body: Buffer.from(JSON.stringify(z.encode(RunSchema, run))),
      } satisfies FinishedRunAnswer;
      deps.finishedRuns.keep(orgId, runId, answer, epoch);
    }
    return sendFinished(reply, answer, ifNoneMatch);
  }

  app.get('/v1/matching-runs/:id/events', {
    schema: {
      tags,
      summary: "The run's timeline, oldest first",
      params: IdParamsSchema,
      querystring: EventsQuerySchema,
      response: { 200: z.object({ items: z.array(EventSchema), nextCursor: z.string().nullable() }), ...standardErrors, ...notFound },
    },
    handler: async (request) => {
      const { after, limit, cursor } = request.query;
      let from = after;
      if (cursor !== undefined) from = Number(decodeSequenceCursor(cursor, BigInt(MAX_EVENT_SEQ)));
      return deps.runs.events(callerOf(request).orgId, request.params.id, from, limit);
    },
  });

  app.post('/v1/matching-runs/:id/cancel', {
    schema: {
      tags,
      summary: 'Cancel a run; it stops at the next step boundary or scored candidate',
      params: IdParamsSchema,
      response: { 202: RunSchema, ...standardErrors, ...notFound, 409: ProblemSchema },
    },
    handler: async (request, reply) => {
      const orgId = callerOf(request).orgId;
      await deps.runs.cancel(orgId, request.params.id);
      const { version, ...run } = await deps.runs.get(orgId, request.params.id);
      cacheHeaders(reply, etagOf(run.id, version), run.status);
      return reply.code(202).send(run);
    },
  });

  app.get('/v1/matching-runs/:id/trace', {
    schema: {
      tags,
      summary: "The run's audit trail (scrubbed text only), oldest first",
      params: IdParamsSchema,
      // The trail is a list like any other (API.md, Conventions): a long run's is megabytes of prompts.
      querystring: PageQuerySchema,
      response: { 200: TraceSchema, ...standardErrors, ...notFound },
    },
    handler: async (request) => {
      const { limit, cursor } = request.query;
      // A trail row's seq is its place in the run's trail, as an event's is.
      const after = cursor === undefined ? 0 : Number(decodeSequenceCursor(cursor, BigInt(MAX_EVENT_SEQ)));
      return deps.runs.trace(callerOf(request).orgId, request.params.id, after, limit);
    },
  });

};
