// A claimed run's writes (checkpoints, scored candidates, events, the finish), each fenced by the lease owner so a
// worker that lost its lease cannot overwrite its successor, and each carrying an id so one sent again after its
// answer was lost changes nothing (migration 014, src/runs/while-leased.ts). Their JSON is written storable: a NUL or
// a half emoji in text from a model or a resume must not fail the write, and the attempt with it.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { RunContext } from '../matching/context.js';
import { progressOf } from '../matching/context.js';
import type { Evidence, Subscores } from '../matching/domain.js';
import { storableJsonText } from '../text/storable.js';
import type { RunStatus, Stop } from './run-schemas.js';
import { endEvent } from './run-store.js';

export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

export interface EntryWrite {
  candidateId: string;
  externalId: string | null;
  name: string | null;
  status: 'scored' | 'unscored';
  subscores?: Subscores;
  totalScore?: number;
  rationale?: string;
  evidence?: Evidence[];
  reason?: string;
  retrievalScore: number;
  iteration: number;
}

type EventInput = { type: string; data: Record<string, unknown>; at?: number };

/**
 * The INSERT of a statement's events, numbered after the run's event_seq as the CTE r returned it (already moved
 * on by their count). Each is stamped with the database's clock, earlier by how long ago it happened if it says
 * (`at`): the worker's clock measures only the delay, so the two clocks need not agree.
 */
function eventsInsertSql(runId: string, types: string, data: string, agoMs: string): string {
  return `INSERT INTO run_events (run_id, seq, type, data, at)
     SELECT ${runId}, r.event_seq - cardinality(${types}::text[]) + i.ord, i.type, i.data, now() - i.ago_ms * interval '1 millisecond'
     FROM r, unnest(${types}::text[], ${data}::jsonb[], ${agoMs}::float8[]) WITH ORDINALITY AS i(type, data, ago_ms, ord)`;
}

/** The three array parameters eventsInsertSql reads: types, data, and how many milliseconds ago each happened. */
function eventColumns(events: EventInput[]): [string[], string[], number[]] {
  const now = Date.now();
  return [events.map((e) => e.type), events.map((e) => storableJsonText(e.data)), events.map((e) => (e.at === undefined ? 0 : Math.max(0, now - e.at)))];
}

/** The writes of the runs a worker (workerId) holds: createRunQueue's, beside its claims and leases. */
export function createRunWrites(db: Database, workerId: string) {
  /**
   * After a write of the run changed nothing: whether it had landed already, sent again with the same id after its
   * answer was lost (and then the run's cancel flag, as the write would have returned it); otherwise the lease is
   * no longer this worker's. Read anew, after the write: a first send still running when the second came (the
   * connection cut, not the server) has committed by then, as the second waited for its lock of the run's row.
   */
  async function landedAlready(runId: string, writeId: string): Promise<{ cancelRequested: boolean }> {
    const r = await db.query<{ cancel: boolean }>(
      'SELECT cancel_requested_at IS NOT NULL AS cancel FROM matching_runs WHERE id = $1 AND last_write = $2',
      [runId, writeId],
    );
    if (!r.rows[0]) throw new LeaseLostError(`lost the lease of run ${runId}`);
    return { cancelRequested: r.rows[0].cancel };
  }

  return {
    /**
     * Saves the context after a step, with its events in order, in one statement. Returns whether a cancel was requested.
     * An event is stamped with the database's clock, earlier by how long ago it happened if it says (`at`): the
     * worker's clock measures only the delay, so the two clocks need not agree.
     */
    async checkpoint(ctx: RunContext, events: EventInput[] = [], writeId: string = randomUUID()): Promise<{ cancelRequested: boolean }> {
      const r = await db.query<{ cancel: boolean }>(
        `WITH r AS (
           UPDATE matching_runs SET checkpoint = $3, progress = $4, version = version + (progress IS DISTINCT FROM $4::jsonb)::int, event_seq = event_seq + cardinality($5::text[]),
             last_write = $8
           WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND last_write IS DISTINCT FROM $8
           RETURNING event_seq, cancel_requested_at IS NOT NULL AS cancel),
         e AS (${eventsInsertSql('$1', '$5', '$6', '$7')})
         SELECT cancel FROM r`,
        [ctx.runId, workerId, storableJsonText(ctx), JSON.stringify(progressOf(ctx)), ...eventColumns(events), writeId],
      );
      return r.rows[0] ? { cancelRequested: r.rows[0].cancel } : landedAlready(ctx.runId, writeId);
    },

    /**
     * Writes scored (or unscored) candidates, progress and one event each: one statement, however many.
     * The checkpoint is left as the step boundary wrote it: on resume the entries are read back and merged.
     */
    async saveEntries(ctx: RunContext, entries: EntryWrite[], writeId: string = randomUUID()): Promise<{ cancelRequested: boolean }> {
      const column = <V>(f: (e: EntryWrite) => V) => entries.map(f);
      const r = await db.query<{ cancel: boolean }>(
        `WITH
         -- A candidate erased since the step read it (its scorer's answer outlives the erasure, which found no entry
         -- to redact) keeps only its id and scores, as erasure leaves every entry and event (no reason either). The
         -- key-share lock orders this write and a concurrent erasure: one waits for the other, and the erasure then
         -- sees the entry. It is taken before the run's row (r reads it first), as an erasure takes a candidate's
         -- row and then its runs': the other order could deadlock with it.
         live AS (SELECT id FROM candidates WHERE id = ANY($5::uuid[]) ORDER BY id FOR KEY SHARE),
         r AS (
           UPDATE matching_runs SET progress = $3, event_seq = event_seq + $4, last_write = $18,
             -- The run's answer shows scored entries and progress only: an unscored one is in its events.
             version = version + (progress IS DISTINCT FROM $3::jsonb OR 'scored' = ANY($6::text[]))::int
           WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND last_write IS DISTINCT FROM $18 AND (SELECT count(*) FROM live) >= 0
           RETURNING event_seq, cancel_requested_at IS NOT NULL AS cancel),
         input AS (
           SELECT * FROM unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::jsonb[], $10::int[], $11::text[],
                                $12::jsonb[], $13::text[], $14::float8[], $15::int[], $16::text[], $17::jsonb[])
             WITH ORDINALITY AS t(candidate_id, status, external_id, name, subscores, total_score, rationale,
                                  evidence, reason, retrieval_score, iteration, event_type, event_data, ord)),
         s AS (
           INSERT INTO shortlist_entries (run_id, candidate_id, status, external_id, name, subscores, total_score,
                                          rationale, evidence, reason, retrieval_score, iteration)
           SELECT $1, i.candidate_id, i.status, CASE WHEN l.id IS NULL THEN NULL ELSE i.external_id END,
                  CASE WHEN l.id IS NULL THEN NULL ELSE i.name END, i.subscores, i.total_score,
                  CASE WHEN l.id IS NULL THEN NULL ELSE i.rationale END, CASE WHEN l.id IS NULL THEN '[]'::jsonb ELSE i.evidence END,
                  CASE WHEN l.id IS NULL THEN NULL ELSE i.reason END, i.retrieval_score, i.iteration
           FROM input i CROSS JOIN r LEFT JOIN live l ON l.id = i.candidate_id ORDER BY i.ord
           ON CONFLICT (run_id, candidate_id) DO NOTHING),
         e AS (
           INSERT INTO run_events (run_id, seq, type, data)
           SELECT $1, r.event_seq - $4 + i.ord, i.event_type, CASE WHEN l.id IS NULL THEN i.event_data - 'reason' ELSE i.event_data END
           FROM input i CROSS JOIN r LEFT JOIN live l ON l.id = i.candidate_id)
         SELECT cancel FROM r`,
        [
          ctx.runId,
          workerId,
          JSON.stringify(progressOf(ctx)),
          entries.length,
          column((e) => e.candidateId),
          column((e) => e.status),
          column((e) => e.externalId),
          column((e) => e.name),
          column((e) => (e.subscores ? JSON.stringify(e.subscores) : null)),
          column((e) => e.totalScore ?? null),
          column((e) => e.rationale ?? null),
          column((e) => (e.evidence ? storableJsonText(e.evidence) : null)),
          column((e) => e.reason ?? null),
          column((e) => e.retrievalScore),
          column((e) => e.iteration),
          column((e) => (e.status === 'scored' ? 'candidate.scored' : 'candidate.unscored')),
          column((e) =>
            storableJsonText(
              e.status === 'scored'
                ? { candidateId: e.candidateId, totalScore: e.totalScore, iteration: e.iteration }
                : { candidateId: e.candidateId, reason: e.reason, iteration: e.iteration },
            ),
          ),
          writeId,
        ],
      );
      return r.rows[0] ? { cancelRequested: r.rows[0].cancel } : landedAlready(ctx.runId, writeId);
    },

    /** Scored and unscored entries already written: on resume these are never scored again. */
    async entries(runId: string): Promise<Array<{ candidateId: string; status: 'scored' | 'unscored'; totalScore: number | null; iteration: number }>> {
      const r = await db.query<{ candidate_id: string; status: 'scored' | 'unscored'; total_score: number | null; iteration: number }>(
        'SELECT candidate_id, status, total_score, iteration FROM shortlist_entries WHERE run_id = $1 ORDER BY created_at, candidate_id',
        [runId],
      );
      return r.rows.map((e) => ({ candidateId: e.candidate_id, status: e.status, totalScore: e.total_score, iteration: e.iteration }));
    },

    async finish(
      /**
       * The run's last context; or, for a run that ended before its context was read, its id: its progress stays. A
       * finished run is never resumed: its checkpoint (~20 KB, read only by a claim) is dropped.
       */
      ctx: RunContext | { runId: string },
      status: Extract<RunStatus, 'succeeded' | 'failed' | 'cancelled'>,
      stop: Stop,
      error: { title: string; detail: string } | null,
      /** The trail's run.finished row, written with the outcome it records. */
      finished: Record<string, unknown>,
      /** Events that lead to the final context (its last step's), written before the run's own last event. */
      events: EventInput[] = [],
      writeId: string = randomUUID(),
    ): Promise<void> {
      const all = [...events, endEvent(status, stop, error)];
      // One statement, so no transaction of its own: the run's end, its last events and its trail's last row, which
      // names no candidate (no erasure can touch it); nothing is written unless the lease is still this worker's.
      const r = await db.query(
        `WITH r AS (
           UPDATE matching_runs SET status = $3, stop = $4, error = $5, checkpoint = NULL,
             progress = coalesce($6::jsonb, progress), finished_at = now(),
             lease_owner = NULL, lease_expires_at = NULL, version = version + 1, event_seq = event_seq + cardinality($7::text[]),
             last_write = $11
           WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND last_write IS DISTINCT FROM $11
           RETURNING event_seq, org_id, finished_at),
         e AS (${eventsInsertSql('$1', '$7', '$8', '$9')}),
         t AS (INSERT INTO run_trace (run_id, org_id, kind, candidate_id, data, at)
               SELECT $1, r.org_id, 'run.finished', NULL, $10::jsonb, r.finished_at FROM r)
         SELECT 1 FROM r`,
        [
          ctx.runId,
          workerId,
          status,
          storableJsonText(stop),
          error ? storableJsonText(error) : null,
          'params' in ctx ? JSON.stringify(progressOf(ctx)) : null,
          ...eventColumns(all),
          storableJsonText(finished),
          writeId,
        ],
      );
      if (r.rowCount === 0) await landedAlready(ctx.runId, writeId);
    },

    /**
     * Appends an event to a run this worker still holds, in one statement; nothing if it lost the lease (its
     * heartbeat may not have noticed yet): the run's timeline is its new owner's.
     */
    async appendEvent(runId: string, type: string, data: Record<string, unknown>, writeId: string = randomUUID()): Promise<void> {
      await db.query(
        `WITH r AS (
           UPDATE matching_runs SET event_seq = event_seq + 1, last_write = $5
           WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND last_write IS DISTINCT FROM $5
           RETURNING event_seq)
         INSERT INTO run_events (run_id, seq, type, data) SELECT $1, r.event_seq, $3, $4 FROM r`,
        [runId, workerId, type, storableJsonText(data), writeId],
      );
    },
  };
}
