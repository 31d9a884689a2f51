// SQL for matching runs as resources: create (idempotent), the one-read poll, lists, events, cancel.
import type { Database, Queryable } from '../db/database.js';
import type { Keyset } from '../http/pagination.js';
import { iso } from '../http/schemas.js';
import type { Engine } from '../matching/domain.js';
import type { RoleInput } from '../roles/role-schemas.js';
import { ROLE_INSERT_COLUMNS, roleInsertValues } from '../roles/role-store.js';
import type { Progress, Run, RunParams, RunStatus, ShortlistEntry, Stop } from './run-schemas.js';

export interface RunRow {
  id: string;
  org_id: string;
  role_id: string;
  status: RunStatus;
  engine: Engine;
  params: RunParams;
  version: number;
  progress: Progress;
  stop: Stop | null;
  error: { title: string; detail: string } | null;
  llm_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  request_hash: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  shortlist?: Omit<ShortlistEntry, 'rank'>[] | null;
}

export function initialProgress(params: RunParams): Progress {
  return { iteration: 0, maxIterations: params.maxIterations, candidatesSeen: 0, candidatesScored: 0, strongCandidates: 0 };
}

export function rowToRun(r: RunRow): Run {
  return {
    id: r.id,
    roleId: r.role_id,
    status: r.status,
    engine: r.engine,
    params: r.params,
    createdAt: iso(r.created_at)!,
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    progress: r.progress,
    stop: r.stop,
    usage: {
      llmCalls: r.llm_calls,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      totalTokens: r.prompt_tokens + r.completion_tokens,
      costUsd: Number(r.cost_usd),
    },
    shortlist: (r.shortlist ?? []).map((e, i) => ({ rank: i + 1, ...e })),
    error: r.error,
  };
}

const RUN_COLUMNS = `r.id, r.org_id, r.role_id, r.status, r.engine, r.params, r.version, r.progress, r.stop, r.error,
  r.llm_calls, r.prompt_tokens, r.completion_tokens, r.cost_usd, r.request_hash, r.created_at, r.started_at, r.finished_at`;

// The shortlist ranking: total score, then retrieval's fused score, then id; deterministic.
const SHORTLIST_SUBQUERY = `(SELECT coalesce(json_agg(json_build_object(
    'candidateId', s.candidate_id, 'externalId', s.external_id, 'name', s.name, 'totalScore', s.total_score,
    'subscores', s.subscores, 'rationale', s.rationale, 'evidence', coalesce(s.evidence, '[]'::jsonb),
    'iteration', s.iteration)
    ORDER BY s.total_score DESC, s.retrieval_score DESC, s.candidate_id), '[]'::json)
  FROM shortlist_entries s WHERE s.run_id = r.id AND s.status = 'scored') AS shortlist`;

export type CreateOutcome =
  | { outcome: 'created'; run: Run & { version: number } }
  | { outcome: 'over_limit' | 'role_missing' | 'key_taken' };

export interface NewRun {
  orgId: string;
  /** A stored role, or an inline one created with the run. */
  roleId?: string;
  role?: RoleInput;
  engine: Engine;
  params: RunParams;
  idempotencyKey: string | null;
  requestHash: string | null;
  /** The organisation's cap on runs queued or running. */
  maxInFlight: number;
}

export function createRunStore(db: Database) {
  return {
    /**
     * Creates a run, with its inline role if it has one, and its run.queued event, in one statement, unless the
     * organisation already has maxInFlight runs queued or running. Call it under lockRunStarts, so concurrent
     * starts of one organisation count in turn. The outcome names what stopped it; on 'key_taken' (another request
     * with the same Idempotency-Key won) the caller rolls back, which takes the inline role back too. A taken key
     * wins over the cap: the run that took it may be the one that filled the cap.
     */
    async create(tx: Queryable, run: NewRun): Promise<CreateOutcome> {
      const values: unknown[] = [run.orgId, run.maxInFlight];
      const param = (v: unknown) => `$${values.push(v)}`;
      const key = param(run.idempotencyKey);
      const roleSource = run.role
        ? `INSERT INTO roles (org_id, ${ROLE_INSERT_COLUMNS})
             SELECT $1, ${roleInsertValues(run.role).map(param).join(', ')} FROM inflight WHERE inflight.n < $2 RETURNING id`
        : `SELECT id FROM roles WHERE org_id = $1 AND id = ${param(run.roleId ?? null)}::uuid`;
      const r = await tx.query<RunRow & { in_flight: number; roles: number; key_taken: boolean }>(
        `WITH inflight AS (SELECT count(*)::int AS n FROM matching_runs WHERE org_id = $1 AND status IN ('queued', 'running')),
         role AS (${roleSource}),
         created AS (
           INSERT INTO matching_runs AS r (org_id, role_id, engine, params, progress, idempotency_key, request_hash, event_seq, version)
           SELECT $1, role.id, ${param(run.engine)}, ${param(JSON.stringify(run.params))}, ${param(JSON.stringify(initialProgress(run.params)))},
                  ${key}::text, ${param(run.requestHash)}, 1, 2
           FROM role, inflight WHERE inflight.n < $2
           ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
           RETURNING ${RUN_COLUMNS}),
         queued AS (INSERT INTO run_events (run_id, seq, type, data) SELECT id, 1, 'run.queued', ${param(JSON.stringify({ engine: run.engine }))} FROM created)
         SELECT inflight.n AS in_flight, (SELECT count(*)::int FROM role) AS roles,
                EXISTS (SELECT 1 FROM matching_runs WHERE org_id = $1 AND idempotency_key = ${key}::text) AS key_taken, created.*
         FROM inflight LEFT JOIN created ON true`,
        values,
      );
      const row = r.rows[0]!;
      // First: a retry that arrived with the first request is answered with its run, even once that run fills the cap.
      if (row.key_taken) return { outcome: 'key_taken' };
      if (row.in_flight >= run.maxInFlight) return { outcome: 'over_limit' };
      if (row.roles === 0) return { outcome: 'role_missing' };
      if (!row.id) return { outcome: 'key_taken' };
      return { outcome: 'created', run: { ...rowToRun(row), version: row.version } };
    },

    async findByIdempotencyKey(orgId: string, key: string): Promise<{ id: string; requestHash: string | null } | null> {
      const r = await db.query<{ id: string; request_hash: string | null }>(
        'SELECT id, request_hash FROM matching_runs WHERE org_id = $1 AND idempotency_key = $2',
        [orgId, key],
      );
      return r.rows[0] ? { id: r.rows[0].id, requestHash: r.rows[0].request_hash } : null;
    },

    /** The poll: one indexed read of the run and its shortlist. */
    async get(orgId: string, id: string): Promise<(Run & { version: number }) | null> {
      const r = await db.query<RunRow>(`SELECT ${RUN_COLUMNS}, ${SHORTLIST_SUBQUERY} FROM matching_runs r WHERE r.org_id = $1 AND r.id = $2`, [orgId, id]);
      const row = r.rows[0];
      return row ? { ...rowToRun(row), version: row.version } : null;
    },

    /** The ETag source alone: lets a 304 skip reading the shortlist. */
    async version(orgId: string, id: string): Promise<{ version: number; status: RunStatus } | null> {
      const r = await db.query<{ version: number; status: RunStatus }>('SELECT version, status FROM matching_runs WHERE org_id = $1 AND id = $2', [orgId, id]);
      return r.rows[0] ?? null;
    },

    async list(orgId: string, status: RunStatus | undefined, limit: number, after: Keyset | null): Promise<Run[]> {
      // A status is a condition of its own, which matching_runs_org_status_created serves: written as "$2 IS NULL OR
      // status = $2" it could not, and listing an organisation's failed runs read its whole history.
      const r = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM matching_runs r
         WHERE r.org_id = $1 ${status ? 'AND r.status = $2' : 'AND $2::text IS NULL'}
           AND ($3::timestamptz IS NULL OR (r.created_at, r.id) < ($3::timestamptz, $4::uuid))
         ORDER BY r.created_at DESC, r.id DESC LIMIT $5`,
        [orgId, status ?? null, after?.createdAt ?? null, after?.id ?? null, limit],
      );
      return r.rows.map(rowToRun);
    },

    async exists(orgId: string, id: string): Promise<boolean> {
      const r = await db.query('SELECT 1 FROM matching_runs WHERE org_id = $1 AND id = $2', [orgId, id]);
      return r.rowCount > 0;
    },

    async events(runId: string, after: number, limit: number) {
      const r = await db.query<{ seq: number; at: Date; type: string; data: Record<string, unknown> }>(
        'SELECT seq, at, type, data FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [runId, after, limit],
      );
      return r.rows.map((e) => ({ seq: e.seq, at: iso(e.at)!, type: e.type, data: e.data }));
    },

    /**
     * The trail's rows after its first `after`, oldest first, each with its place in the run's trail as its seq (1, 2,
     * ...). Not the row's id: every organisation's runs draw their rows' ids from one sequence, and the gaps between a
     * run's ids would tell its owner how much every other organisation's runs wrote meanwhile. A trail loses no row
     * but with the whole trail (prune-traces), so a row's place stays its own; the run's index walks to it.
     */
    async trace(runId: string, after: number, limit: number) {
      const r = await db.query<{ at: Date; kind: string; candidate_id: string | null; data: unknown }>(
        'SELECT at, kind, candidate_id, data FROM run_trace WHERE run_id = $1 ORDER BY id OFFSET $2 LIMIT $3',
        [runId, after, limit],
      );
      return r.rows.map((t, i) => ({ seq: after + i + 1, at: iso(t.at)!, kind: t.kind, candidateId: t.candidate_id, data: t.data }));
    },

    /**
     * A queued run is cancelled at once; a running one is flagged and its worker stops at the next
     * step boundary or scored candidate. Returns the status before the request, or null if absent.
     */
    async requestCancel(orgId: string, id: string): Promise<RunStatus | null> {
      return db.withTransaction(async (tx) => {
        const r = await tx.query<{ status: RunStatus }>('SELECT status FROM matching_runs WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
        const status = r.rows[0]?.status;
        if (!status) return null;
        if (status === 'queued') {
          const stop: Stop = { reason: 'cancelled', iteration: 0, reasoning: 'Cancelled before a worker started it.' };
          await tx.query(
            `UPDATE matching_runs SET status = 'cancelled', finished_at = now(), version = version + 1,
               cancel_requested_at = now(), stop = $2 WHERE id = $1`,
            [id, JSON.stringify(stop)],
          );
          const end = endEvent('cancelled', stop, null);
          await appendEvent(tx, id, end.type, end.data);
          await appendFinishedTrail(tx, id, { status: 'cancelled', stop, error: null });
        } else if (status === 'running') {
          await tx.query('UPDATE matching_runs SET cancel_requested_at = coalesce(cancel_requested_at, now()) WHERE id = $1', [id]);
        }
        return status;
      });
    },

    /**
     * Serialises run starts of one organisation until tx ends, so a burst of concurrent starts cannot all
     * read the same in-flight count and overshoot the cap together.
     */
    async lockRunStarts(tx: Queryable, orgId: string): Promise<void> {
      await tx.query('SELECT pg_advisory_xact_lock(7242414, hashtext($1))', [orgId]);
    },

    async queueStats(): Promise<{ depth: number; oldestAgeSeconds: number }> {
      const r = await db.query<{ depth: number; oldest: number | null }>(
        "SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS oldest FROM matching_runs WHERE status = 'queued'",
      );
      return { depth: r.rows[0]?.depth ?? 0, oldestAgeSeconds: r.rows[0]?.oldest ?? 0 };
    },
  };
}

/**
 * Appends an event with the run's next sequence number. The run's version (its ETag) stays: the timeline is not part
 * of the run's answer, and each caller changes the run itself (its status) in a statement that moves the version.
 */
export async function appendEvent(tx: Queryable, runId: string, type: string, data: Record<string, unknown>): Promise<number> {
  const r = await tx.query<{ seq: number }>(
    `WITH bumped AS (UPDATE matching_runs SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq)
     INSERT INTO run_events (run_id, seq, type, data) SELECT $1, event_seq, $2, $3 FROM bumped RETURNING seq`,
    [runId, type, JSON.stringify(data)],
  );
  return r.rows[0]?.seq ?? 0;
}

/**
 * The trail's run.finished row of a run no worker finished (a queued run cancelled, a sweep of an abandoned or exhausted
 * run), as a worker's finish writes it: its outcome, with no counts (no context was read). `at` is the transaction's
 * now(), the run's finished_at. It names no candidate, so no erasure touches it.
 */
export async function appendFinishedTrail(tx: Queryable, runId: string, outcome: { status: string; stop: Stop; error: { title: string; detail?: string } | null }): Promise<void> {
  await tx.query(
    `INSERT INTO run_trace (run_id, org_id, kind, candidate_id, data, at)
     SELECT id, org_id, 'run.finished', NULL, $2::jsonb, now() FROM matching_runs WHERE id = $1`,
    [runId, JSON.stringify({ ...outcome, scored: null, unscored: null, durationMs: null })],
  );
}

/**
 * A run's last event, however it ended (its worker, a cancel while queued, a sweep of an abandoned run): run.failed or
 * run.stopped, with the run's stop and, for a failed run, its error's title, so every ending reads the same.
 */
export function endEvent(status: 'succeeded' | 'failed' | 'cancelled', stop: Stop, error: { title: string } | null) {
  return { type: status === 'failed' ? 'run.failed' : 'run.stopped', data: { reason: stop.reason, iteration: stop.iteration, reasoning: stop.reasoning, ...(error ? { error: error.title } : {}) } };
}

export type RunStore = ReturnType<typeof createRunStore>;
